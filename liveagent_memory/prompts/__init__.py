"""Prompt text, split by audience; policy (precedence, rubric, type tree) lives in `shared`."""
