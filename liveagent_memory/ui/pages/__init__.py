"""Drawer pages, one per module (STYLE 5)."""
