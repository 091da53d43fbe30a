"""What `plansight doctor` finds, as each check reports it (`setup/doctor.py`, and the
agents' own checks such as `setup/opencode_doctor.py`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Finding:
    ok: bool
    what: str
    fix: str | None = None  # the one command that fixes it
    broken: bool = True  # False: worth knowing, not a fault (an editor without the plugin)


@dataclass(slots=True)
class Section:
    title: str
    findings: list[Finding]
    agent: str | None = None  # the name `plansight setup` takes, for an agent's section
    set_up: bool = True  # False: an agent Plansight was never set up for (nothing is broken)
