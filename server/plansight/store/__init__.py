"""Where plans live. `TodoStore` is the interface; SQLite is the embedded default."""

from plansight.store.base import ChangeEvent, ChangeNotice, SessionEdit, TodoStore
from plansight.store.sqlite import SqliteStore, open_store

__all__ = ["ChangeEvent", "ChangeNotice", "SessionEdit", "SqliteStore", "TodoStore", "open_store"]
