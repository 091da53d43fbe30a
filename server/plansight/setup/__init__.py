"""`plansight setup`: Plansight into an agent's hooks or an editor, in one line."""
