"""`plansight hook AGENT`: the agents' own hooks feed their plans to Plansight and carry
the person's edits back, with no change to how the agent works."""

# The largest event a hook takes (a Write of a large file carries its whole content): the
# hook reads no more, and the warm process's relay (`warm/relay.py`) passes no more.
MAX_EVENT_BYTES = 64 * 1024 * 1024


class HookError(Exception):
    """An event the hook cannot use; logged, and the agent gets `{}`."""
