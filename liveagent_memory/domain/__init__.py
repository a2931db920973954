"""Pure domain definitions: enums, shapes, constants and errors (imports nothing of ours)."""
