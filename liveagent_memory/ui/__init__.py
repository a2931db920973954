"""The desktop app (PySide6 + qasync); the only package that imports Qt."""
