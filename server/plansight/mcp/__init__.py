"""`plansight mcp`: the plan tools for terminal agents, over the Model Context Protocol.

Only `server` imports the `mcp` SDK, so nothing else in Plansight pays for it.
"""
