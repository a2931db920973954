"""Small checks that also narrow types: a test states what it expects to be there."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def present(value: T | None) -> T:
    """`value`, failing the test if it is None (an optional result the test expects to be set)."""
    assert value is not None, "expected a value, got None"
    return value
