"""What the warm process may answer of a command line, derived from the CLI's
parser by `warm/derive.py`: written by `python -m plansight.warm.derive`, not by
hand (a test holds it to the parser). Plain literals: a relay's start-up loads it."""

# The commands the warm process answers (`Command.relayed`).
COMMANDS = frozenset(
    {
        "apply",
        "clear",
        "context",
        "export",
        "history",
        "import",
        "ingest",
        "restore",
        "sessions",
        "undo",
        "write",
    }
)
# The options naming a file a command opens (`names_a_file`), of every relayed command.
FILE_OPTIONS = (
    "--db",
    "--output",
    "-o",
)
# A request for the help, which fits the caller's terminal.
HELP_OPTIONS = (
    "--help",
    "-h",
)
# The commands with an argument naming a file: their options that take a value, and
# for each of their positional arguments whether it names a file.
FILE_ARGUMENTS = {
    "import": (
        (
            "--base-version",
            "--db",
            "--origin",
            "--session",
            "--workspace",
        ),
        (True,),
    ),
}
