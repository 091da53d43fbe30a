"""The wire contract, at the bottom of the house: it imports nothing else of Plansight.

- `vocabulary`: the contract's words (statuses, priorities, origins, default names);
- `text`: how contents, notes and names are cleaned (the contract's Limits section);
- `models`: the pydantic models of every request, result and notification, the one
  source of names and shapes (the JSON Schema, the TypeScript types and the Lua names are
  generated from them or checked against them).

Kept light on purpose: importing `vocabulary` or `text` does not build the models, so the
one-shot commands (`plansight hook`) pay for pydantic only when they need it.
"""
