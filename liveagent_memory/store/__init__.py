"""The Markdown store and its SQLite index."""
