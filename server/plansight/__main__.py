"""`python -m plansight` does what the `plansight` command does."""

from plansight.cli.main import main

raise SystemExit(main())
