"""The `plansight` command: serving, watching the plan, and letting shell agents write."""
