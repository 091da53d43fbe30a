"""The benchmark's report: one markdown table, the machine it ran on, and the document
it is kept in."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


@dataclass
class Row:
    figure: str
    plansight: str
    floor: str = "—"
    ratio: str = "—"
    target: str = "—"
    met: str = "—"


def verdict(ok: bool) -> str:
    return "yes" if ok else "**no**"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )


def load() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def table(rows: list[Row]) -> str:
    lines = [
        "| figure | plansight | floor | ratio | target | met? |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.figure} | {r.plansight} | {r.floor} | {r.ratio} | {r.target} | {r.met} |"
        for r in rows
    ]
    return "\n".join(lines)


def write_doc(report: str, path: Path) -> None:
    """Replace the generated part of the document, keeping what people wrote around it."""
    block = f"{BEGIN}\n{report}\n{END}"
    if path.exists():
        text = path.read_text()
        if BEGIN in text and END in text:
            head, rest = text.split(BEGIN, 1)
            text = head + block + rest.split(END, 1)[1]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
    else:
        text = f"# Performance\n\n{block}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
