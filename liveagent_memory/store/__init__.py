"""The Markdown store and its SQLite index: MemoryStore (store/store.py) is the entry point,
a facade over one module per concept; its docstring maps them. Beside it, the store's other
derived databases, which the services open directly (store/derived.py maps them)."""
