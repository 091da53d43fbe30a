"""Plansight: see and steer an AI coding agent's plan from inside the editor."""

__version__ = "0.1.0"
