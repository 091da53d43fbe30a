"""The language server: pygls wiring of the contract's requests to `PlanService`."""
