"""`python -m plansight` does what the `plansight` command does."""

from plansight.warm.entry import main

raise SystemExit(main())
