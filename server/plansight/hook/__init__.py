"""`plansight hook AGENT`: the agents' own hooks feed their plans to Plansight and carry
the person's edits back, with no change to how the agent works."""
