"""Error and status codes from the core → translated text (the only such table, STYLE 10)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from liveagent_memory.domain.errors import MemoryDomainError

_CONTEXT = "Strings"
_ERRORS: dict[str, str] = {
    "slug_not_found": str(QT_TRANSLATE_NOOP("Strings", "That memory no longer exists.")),
    "store_unavailable": str(QT_TRANSLATE_NOOP("Strings", "The memory folder cannot be used.")),
    "index_unavailable": str(QT_TRANSLATE_NOOP("Strings", "The search index is busy or damaged.")),
    "risk_hard_blocked": str(
        QT_TRANSLATE_NOOP("Strings", "The text looks like it holds a secret, so it was not saved.")
    ),
    "quota_exceeded": str(
        QT_TRANSLATE_NOOP(
            "Strings", "This scope is full. Run the organizer or delete memories first."
        )
    ),
    "version_not_found": str(QT_TRANSLATE_NOOP("Strings", "That version is no longer available.")),
}


def error_text(exc: BaseException) -> str:
    """A person-readable line for an error: translated when known, else the core's message."""
    if isinstance(exc, MemoryDomainError):
        known = _ERRORS.get(exc.code)
        if known is not None:
            return QCoreApplication.translate(_CONTEXT, known)
        return exc.message
    return QCoreApplication.translate(_CONTEXT, "Something went wrong: %1").replace(
        "%1", f"{type(exc).__name__}: {exc}"
    )
