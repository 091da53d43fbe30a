"""The rules of a todo list: pure Python, no I/O.

Everything a client can ask of a plan is decided here; the store persists the result and
the server and CLI only carry requests in and answers out.
"""
