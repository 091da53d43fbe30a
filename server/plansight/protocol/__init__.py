"""The wire contract, at the bottom of the house: it imports nothing else of Plansight.

- `vocabulary`: the contract's words (statuses, priorities, origins, default names);
- `methods`: the protocol's version, its request and notification names, ingest formats;
- `text`: how contents, notes and names are cleaned (the contract's Limits section);
- `transport`: how big a message may be, how deep it may nest, which ids are ids;
- `requests`: every request, op and item as a plain dataclass (`shape`: how pydantic
  validates them, only when a face asks);
- `models`: the pydantic models of every result and notification;
- `registry`: each request once (its params, result and faces), from which the language
  server, the CLI, the MCP tools and the JSON Schema derive (the service method that
  answers each is bound above, in `plansight/bindings.py`).
  With `requests` and `models`, the one source of names and shapes (the JSON Schema, the
  TypeScript types and the Lua names are generated from them or checked against them).

Kept light on purpose: only `models` imports pydantic, so the one-shot commands
(`plansight hook`) never pay for it.
"""
