"""`python -m plansight` does what the `plansight` command does."""

from plansight.cli.entry import main

raise SystemExit(main())
