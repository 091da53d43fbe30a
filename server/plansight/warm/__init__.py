"""The warm process: one `plansight hook-daemon` per user and settings that answers the
agents' hook events and the one-shot commands shell agents run in a loop, so that each
waits a relay's start-up instead of a Python process loading the store's code.

- `entry.py`: the `plansight` command's entry point, which decides what is relayed;
- `relay.py`: the caller's side, which hands a hook event or a command line over and
  runs it itself when no warm process takes it;
- `protocol.py`: the bytes between the two sides;
- `daemon.py`: the warm process's side, which runs each request as its caller would;
- `command_line.py`, `relayed.py`, `derive.py`: which command lines may be relayed,
  derived from the CLI's parser.

It stands above the hook face and the command line, whose events and commands it runs."""
