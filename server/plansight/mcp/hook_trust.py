"""The line a plan tool's answer adds for a Codex whose Plansight hooks it does not trust
yet: nothing else tells the model (or the person) that its plan and the person's changes
are not travelling by themselves. Read from Codex's files at each call, so the line goes
away as soon as the person trusts the hooks in `/hooks`."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

UNTRUSTED_LINE = (
    "Codex does not run Plansight's hooks yet: until the person trusts them, the person's "
    "changes to this plan are not told to you and your plan does not reach their editor by "
    "itself. Ask the person to type /hooks in Codex and trust Plansight's hooks."
)


def with_trust_line(text: str, agent: str | None) -> str:
    """`text`, with the line when the client is Codex and its Plansight hooks are
    untrusted. Never fails a tool call: when the files cannot tell, nothing is added."""
    if agent != "codex":
        return text
    try:
        from plansight.codex_hook_trust import codex_home, plansight_hook_trust
        from plansight.paths import workspace_root

        trust = plansight_hook_trust(codex_home(), workspace_root())
    except Exception:  # a bug here must not cost the model its tool's answer
        log.exception("cannot tell whether Codex trusts Plansight's hooks")
        return text
    return f"{text}\n\n{UNTRUSTED_LINE}" if trust == "untrusted" else text
