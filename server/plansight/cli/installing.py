"""The commands that install Plansight and say whether it works (`setup`, `doctor`) and
that move a local store's sessions into a team store (`migrate`), each declared beside
its handler."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from plansight.cli.command import EXIT_OK, BadInput, Command
from plansight.cli.stores import close_when_done


def _migrate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="source",
        metavar="SQLITE_PATH",
        help="the local store (default: this project's, or $PLANSIGHT_DB when it is a file)",
    )
    parser.add_argument("--to", required=True, metavar="URL", help="a postgresql:// URL")
    parser.add_argument(
        "--workspace",
        metavar="KEY",
        help="the team store's workspace (default: $PLANSIGHT_WORKSPACE, else from git's origin)",
    )


def _migrate(args: argparse.Namespace) -> int:
    from plansight.paths import workspace_root
    from plansight.service import PlanService
    from plansight.store import open_store
    from plansight.store.location import is_postgres_url, is_url, store_location

    if not is_postgres_url(args.to):
        raise BadInput("--to must be a postgresql:// URL")
    source = args.source or store_location(None, None)
    if is_url(source):
        raise BadInput("--from must be a local store file (PLANSIGHT_DB is a URL: give --from)")
    if not Path(source).expanduser().is_file():
        raise BadInput("no plan store at the --from path")
    # Both opened as every face opens a store; closed when the command ends.
    target = close_when_done(PlanService(open_store(args.to, workspace_root(), args.workspace)))
    local = close_when_done(PlanService(open_store(Path(source).expanduser())))
    report = local.copy_into(target)  # a StoreError is one line, as everywhere
    where = f'{target.location}, workspace "{report.workspace}"'
    print(f"Copied {len(report.copied)} session(s), {report.changes} change(s), into {where}.")
    if report.pruned:
        print(
            f"Pruned {len(report.pruned)} older session(s): a store holds the "
            f"{target.session_limit} updated last."
        )
    if report.skipped:
        names = ", ".join(f'"{name}"' for name in report.skipped)
        print(f"Left alone, the workspace has them already: {names}.")
    return EXIT_OK


MIGRATE = Command(
    "migrate",
    "copy a local store's sessions and history into a team store",
    _migrate_arguments,
    _migrate,
)


def _setup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        choices=("claude-code", "codex", "gemini", "opencode", "copilot", "vscode", "nvim"),
    )
    parser.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="every project of this user (default), or only the project in the current folder",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print what would change, change nothing"
    )
    parser.add_argument("--remove", action="store_true", help="take Plansight's entries out again")


def _setup(args: argparse.Namespace) -> int:
    from plansight.setup.setup_command import SetupError, run_setup

    try:
        code = run_setup(args.target, args.scope, dry_run=args.dry_run, remove=args.remove)
    except SetupError as exc:
        raise BadInput(str(exc)) from None
    if code == 0 and not (args.dry_run or args.remove) and args.target not in ("nvim", "vscode"):
        from plansight.setup.doctor import run_doctor

        # Ends by saying whether it all works (its own exit code is `plansight doctor`'s).
        print(flush=True)
        run_doctor([args.target], lambda line: print(line, flush=True))
    return code


SETUP = Command(
    "setup",
    "install Plansight into an agent's hooks or an editor, in one line",
    _setup_arguments,
    _setup,
)


def _doctor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "agents",
        nargs="*",
        metavar="AGENT",
        help="only these agents, claude-code, codex, gemini, opencode or copilot (and the "
        "store); default: every agent and editor found",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="the same findings as JSON, for editors: {ok, agents, store, editors}",
    )


def _doctor(args: argparse.Namespace) -> int:
    from plansight.setup.doctor import doctor_json, run_doctor

    # Checked here: argparse's `choices` refuses an empty `nargs="*"` list.
    unknown = [
        name
        for name in args.agents
        if name not in ("claude-code", "codex", "gemini", "opencode", "copilot")
    ]
    if unknown:
        raise BadInput(
            f"doctor: unknown agent {unknown[0]!r} "
            "(claude-code, codex, gemini, opencode or copilot)"
        )
    if args.json:
        report, code = doctor_json(args.agents or None)
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return code
    return run_doctor(args.agents or None, lambda line: print(line, flush=True))


DOCTOR = Command(
    "doctor",
    "what of Plansight is installed and working for each agent and editor found",
    _doctor_arguments,
    _doctor,
)
