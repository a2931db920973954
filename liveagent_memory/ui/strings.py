"""Error codes and value codes from the core → translated text (the only such tables, STYLE 10)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.organizer.run_record import EVERY_PLAN_FAILED

_ERRORS: dict[str, str] = {
    "slug_not_found": str(QT_TRANSLATE_NOOP("Strings", "That memory no longer exists.")),
    "memory_error": str(QT_TRANSLATE_NOOP("Strings", "Something went wrong in the memory store.")),
    "invalid_argument": str(QT_TRANSLATE_NOOP("Strings", "A value is missing or not valid.")),
    "slug_invalid": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "That slug cannot be used: write lowercase words with dashes, e.g. tea-preference.",
        )
    ),
    "slug_exists": str(
        QT_TRANSLATE_NOOP("Strings", "A memory with this slug already exists: choose another slug.")
    ),
    "scope_ambiguous": str(
        QT_TRANSLATE_NOOP(
            "Strings", "This slug is both a global and a project memory: say which one you mean."
        )
    ),
    "invalid_scope": str(QT_TRANSLATE_NOOP("Strings", "The scope must be global or project.")),
    "invalid_type": str(QT_TRANSLATE_NOOP("Strings", "That memory type cannot be used here.")),
    "invalid_mode": str(
        QT_TRANSLATE_NOOP("Strings", "That way of updating a memory is not known.")
    ),
    "append_mode_required": str(
        QT_TRANSLATE_NOOP("Strings", "A day's journal can only be added to, not replaced.")
    ),
    "workdir_required": str(
        QT_TRANSLATE_NOOP("Strings", "A project memory needs its project folder.")
    ),
    "invalid_workdir_hash": str(QT_TRANSLATE_NOOP("Strings", "That project id is not valid.")),
    "description_required": str(
        QT_TRANSLATE_NOOP("Strings", "A memory needs a one-line description.")
    ),
    "body_too_large": str(QT_TRANSLATE_NOOP("Strings", "The text is too long for one memory.")),
    "daily_archived": str(
        QT_TRANSLATE_NOOP("Strings", "That day's journal is archived and can no longer be changed.")
    ),
    "unknown_command": str(
        QT_TRANSLATE_NOOP("Strings", "This version of the program does not know that command.")
    ),
    "display_unavailable": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "No window can be opened here: there is no display, or system libraries are missing.",
        )
    ),
    "store_not_found": str(QT_TRANSLATE_NOOP("Strings", "The memory folder does not exist.")),
    "index_version_unsupported": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "The search index was made by a newer version of LiveAgent Memory: update the program.",
        )
    ),
    "settings_invalid": str(
        QT_TRANSLATE_NOOP("Strings", "A setting is not valid, so nothing was saved.")
    ),
    "llm_error": str(QT_TRANSLATE_NOOP("Strings", "The model call failed.")),
    "llm_malformed_tool_arguments": str(
        QT_TRANSLATE_NOOP("Strings", "The model answered with a tool call that is not valid JSON.")
    ),
    "embedding_error": str(
        QT_TRANSLATE_NOOP("Strings", "Embeddings could not be used; search uses keywords only.")
    ),
    "embedding_unavailable": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "The embedding provider failed or is not installed; search uses keywords only.",
        )
    ),
    "local_weights_unreadable": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "The local model's weights could not be read by the fast path; vectors are built "
            "by the slower engine.",
        )
    ),
    "meanings_unavailable": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "The local embedding model could not be used; duplicates were looked for by "
            "their words only.",
        )
    ),
    "embedding_dimension_mismatch": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "The embedding model's vectors do not fit its index; search uses keywords only.",
        )
    ),
    "file_unparsable": str(
        QT_TRANSLATE_NOOP("Strings", "That memory's file cannot be read; it was left as it is.")
    ),
    "store_unavailable": str(QT_TRANSLATE_NOOP("Strings", "The memory folder cannot be used.")),
    "index_unavailable": str(QT_TRANSLATE_NOOP("Strings", "The search index is busy or damaged.")),
    "risk_hard_blocked": str(
        QT_TRANSLATE_NOOP("Strings", "The text looks like it holds a secret, so it was not saved.")
    ),
    "action_not_allowed": str(
        QT_TRANSLATE_NOOP(
            "Strings", "Only a person can do this: a model may not mark memories reviewed."
        )
    ),
    "credential_in_settings": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "Settings never hold API keys or passwords. Store the key in the system keyring "
            "with the key field, and give the base URL without user:password@ or a key in it.",
        )
    ),
    "quota_exceeded": str(
        QT_TRANSLATE_NOOP(
            "Strings", "This scope is full. Run the organizer or delete memories first."
        )
    ),
    "version_not_found": str(QT_TRANSLATE_NOOP("Strings", "That version is no longer available.")),
    "conflict_not_found": str(
        QT_TRANSLATE_NOOP(
            "Strings", "That sync conflict is no longer there: it was resolved already."
        )
    ),
    "memory_changed": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "This memory changed since, so undo would overwrite that; nothing was changed.",
        )
    ),
    "keyring_unavailable": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "No secure keyring is available on this system, so API keys cannot be stored or "
            "read here (they are never written to a file). Start a Secret Service (e.g. "
            "gnome-keyring or KWallet) and unlock it, or put the key in the provider's "
            "environment variable instead (for example OPENAI_API_KEY).",
        )
    ),
    "bind_failed": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "The web bridge cannot listen on that port: another program (or another bridge) "
            "uses it. Choose another port.",
        )
    ),
    "episode_exists": str(
        QT_TRANSLATE_NOOP("Strings", "An episode with this id is already recorded.")
    ),
    "episode_not_found": str(QT_TRANSLATE_NOOP("Strings", "That episode no longer exists.")),
    "skill_invalid": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "A skill needs at least one step in its Steps section, and a When to use section "
            "or a description that says when to use it.",
        )
    ),
    "episode_unreadable": str(
        QT_TRANSLATE_NOOP("Strings", "That episode's file cannot be read; it was left as it is.")
    ),
    "path_not_found": str(QT_TRANSLATE_NOOP("Strings", "That folder does not exist.")),
    "loki_store_not_found": str(
        QT_TRANSLATE_NOOP("Strings", "That folder holds no Loki Mode memory.")
    ),
    "project_id_invalid": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "The project's id file (.liveagent/project-id) holds no usable id: fix or delete it.",
        )
    ),
    "project_marker_invalid": str(
        QT_TRANSLATE_NOOP("Strings", "A project folder's .workdir.json cannot be read.")
    ),
    "project_not_portable": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "This project has no git remote and no id file, so no other folder can be known to "
            "hold it: run liveagent-memory projects pin first.",
        )
    ),
    "nothing_to_merge": str(
        QT_TRANSLATE_NOOP(
            "Strings", "This project is kept in one folder: there is nothing to merge."
        )
    ),
    "git_missing": str(
        QT_TRANSLATE_NOOP("Strings", "git is not installed: install git to sync the store.")
    ),
    "sync_not_initialised": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "This store does not sync with git yet: run liveagent-memory sync init REMOTE.",
        )
    ),
    "sync_already_initialised": str(
        QT_TRANSLATE_NOOP("Strings", "This store already syncs with a git remote.")
    ),
    "sync_remote_unreachable": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "The git remote could not be reached; nothing was changed. Try again later.",
        )
    ),
    "sync_remote_not_empty": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "The remote already holds a store: start syncing it from an empty store folder.",
        )
    ),
    "sync_failed": str(
        QT_TRANSLATE_NOOP("Strings", "The sync did not happen; nothing was changed.")
    ),
    "llm_not_configured": str(
        QT_TRANSLATE_NOOP(
            "Strings", "No model is configured: choose one on the Model & keys page first."
        )
    ),
    "llm_auth_failed": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "Authentication failed: the provider refused the API key. Store a valid key "
            "or set the provider's environment variable.",
        )
    ),
    "llm_rate_limited": str(
        QT_TRANSLATE_NOOP(
            "Strings", "Rate limited: the provider refuses more requests for now. Try again later."
        )
    ),
    "llm_timeout": str(
        QT_TRANSLATE_NOOP("Strings", "Timed out: the model did not answer in time.")
    ),
    "llm_unavailable": str(
        QT_TRANSLATE_NOOP(
            "Strings",
            "Unavailable: the provider's server could not be reached or failed. Check the "
            "network connection and, if you gave one, the base URL.",
        )
    ),
    "llm_bad_request": str(
        QT_TRANSLATE_NOOP("Strings", "The provider refused the request: check the model name.")
    ),
}


# Why an organizer run ended without its work (store/runs.py codes in the run's `error`).
_RUN_ERRORS: dict[str, str] = {
    "abandoned": str(
        QT_TRANSLATE_NOOP(
            "Strings", "Abandoned: the program running it stopped before it finished."
        )
    ),
    "unclaimed": str(
        QT_TRANSLATE_NOOP(
            "Strings", "Never started: no desktop app picked up this queued run in time."
        )
    ),
    "stale_timeout": str(
        QT_TRANSLATE_NOOP("Strings", "Stopped: it was still running after 6 hours.")
    ),
    "already_running": str(QT_TRANSLATE_NOOP("Strings", "Skipped: another run was active.")),
    # organizer/pipeline.py: a person cancelled it; no cluster got a plan from the model
    "cancelled": str(QT_TRANSLATE_NOOP("Strings", "Cancelled before it finished.")),
    EVERY_PLAN_FAILED: str(
        QT_TRANSLATE_NOOP("Strings", "Failed: no cluster got a usable plan from the model.")
    ),
}


# Codes the core returns as values (scope, type, confidence, run status, …) → words to show.
_VALUES: dict[str, str] = {
    # scopes and memory types (SPEC 1.2)
    "global": str(QT_TRANSLATE_NOOP("Strings", "global")),
    "project": str(QT_TRANSLATE_NOOP("Strings", "project")),
    "user": str(QT_TRANSLATE_NOOP("Strings", "user")),
    "feedback": str(QT_TRANSLATE_NOOP("Strings", "feedback")),
    "reference": str(QT_TRANSLATE_NOOP("Strings", "reference")),
    "skill": str(QT_TRANSLATE_NOOP("Strings", "skill")),
    "daily": str(QT_TRANSLATE_NOOP("Strings", "journal")),
    "other": str(QT_TRANSLATE_NOOP("Strings", "other")),  # discovered stores: an unknown type
    # confidence (SPEC 1.4) and risk
    "unknown": str(QT_TRANSLATE_NOOP("Strings", "unknown")),
    "low": str(QT_TRANSLATE_NOOP("Strings", "low")),
    "medium": str(QT_TRANSLATE_NOOP("Strings", "medium")),
    "high": str(QT_TRANSLATE_NOOP("Strings", "high")),
    # organizer run status, trigger, phase (SPEC 4)
    "pending": str(QT_TRANSLATE_NOOP("Strings", "pending")),
    "running": str(QT_TRANSLATE_NOOP("Strings", "running")),
    "succeeded": str(QT_TRANSLATE_NOOP("Strings", "succeeded")),
    "failed": str(QT_TRANSLATE_NOOP("Strings", "failed")),
    "skipped": str(QT_TRANSLATE_NOOP("Strings", "skipped")),
    "cancelled": str(QT_TRANSLATE_NOOP("Strings", "cancelled")),
    "manual": str(QT_TRANSLATE_NOOP("Strings", "manual")),
    "scheduled": str(QT_TRANSLATE_NOOP("Strings", "scheduled")),
    "scan": str(QT_TRANSLATE_NOOP("Strings", "scan")),
    "cluster": str(QT_TRANSLATE_NOOP("Strings", "cluster")),
    "plan": str(QT_TRANSLATE_NOOP("Strings", "plan")),
    "gate": str(QT_TRANSLATE_NOOP("Strings", "gate")),
    "apply": str(QT_TRANSLATE_NOOP("Strings", "apply")),
    "done": str(QT_TRANSLATE_NOOP("Strings", "done")),
    "consolidate": str(QT_TRANSLATE_NOOP("Strings", "consolidate")),  # issue 18: a learning run
    # organizer scope and mode (settings)
    "all": str(QT_TRANSLATE_NOOP("Strings", "all memories")),
    "projects": str(QT_TRANSLATE_NOOP("Strings", "all projects")),
    "current-project": str(QT_TRANSLATE_NOOP("Strings", "current project")),
    "conservative": str(QT_TRANSLATE_NOOP("Strings", "conservative")),
    "standard": str(QT_TRANSLATE_NOOP("Strings", "standard")),
    "aggressive": str(QT_TRANSLATE_NOOP("Strings", "aggressive")),
    # task types (domain/task_types.py)
    "exploration": str(QT_TRANSLATE_NOOP("Strings", "exploration")),
    "implementation": str(QT_TRANSLATE_NOOP("Strings", "implementation")),
    "debugging": str(QT_TRANSLATE_NOOP("Strings", "debugging")),
    "review": str(QT_TRANSLATE_NOOP("Strings", "review")),
    "refactoring": str(QT_TRANSLATE_NOOP("Strings", "refactoring")),
    # journal source trigger (REFERENCE A2: a daily entry written at the end of a turn)
    "end": str(QT_TRANSLATE_NOOP("Strings", "end of turn")),
    # a run report's review items: how much they matter (REFERENCE A10 severity)
    "info": str(QT_TRANSLATE_NOOP("Strings", "note")),
    "warning": str(QT_TRANSLATE_NOOP("Strings", "warning")),
    "error": str(QT_TRANSLATE_NOOP("Strings", "error")),
    # review queue state
    "partial": str(QT_TRANSLATE_NOOP("Strings", "partly applied")),
    "applied": str(QT_TRANSLATE_NOOP("Strings", "applied")),
    "rejected": str(QT_TRANSLATE_NOOP("Strings", "rejected")),
    # rejection buckets (REFERENCE A10)
    "reviewedProtected": str(QT_TRANSLATE_NOOP("Strings", "reviewed memory protected")),
    "lowConfidence": str(QT_TRANSLATE_NOOP("Strings", "low confidence")),
    "crossType": str(QT_TRANSLATE_NOOP("Strings", "crosses types")),
    "crossScope": str(QT_TRANSLATE_NOOP("Strings", "crosses scopes")),
    "reviewRequiredByLlm": str(QT_TRANSLATE_NOOP("Strings", "the model asked for review")),
    "missingPayload": str(QT_TRANSLATE_NOOP("Strings", "merged text too long")),
    "unsupported": str(QT_TRANSLATE_NOOP("Strings", "unsupported")),
}


def value_text(value: str | None) -> str:
    """A code the core returns as a value, in the current language ("—" for none; unknown
    codes as they are)."""
    if not value:
        return "—"
    known = _VALUES.get(value)
    return QCoreApplication.translate("Strings", known) if known is not None else value


def error_text(exc: BaseException) -> str:
    """A person-readable line for an error, in the current language: the sentence of its code
    (every code of domain/errors.py has one); a bug's type and text otherwise."""
    if isinstance(exc, MemoryDomainError):
        known = _ERRORS.get(exc.code) or _ERRORS["memory_error"]
        return QCoreApplication.translate("Strings", known)
    return QCoreApplication.translate("Strings", "Something went wrong: %1").replace(
        "%1", f"{type(exc).__name__}: {exc}"
    )


def error_detail(exc: BaseException) -> str:
    """The core's own (English) message of a typed error, shown beside `error_text` (e.g. as
    its tooltip): it names the value or the setting at fault. Empty when there is none."""
    if not isinstance(exc, MemoryDomainError):
        return ""
    message = exc.message.strip()
    source = _ERRORS.get(exc.code, "")
    # A core message that already is the code's sentence (the keyring's help) adds nothing.
    if not message or message == error_text(exc) or (source and source in message):
        return ""
    return message


# The memory space's level (domain/quota.py `quota_ladder`) in words: the quota banner, the
# Projects page. A person reads how full the space is, not the ladder's names.
_QUOTA_LEVELS: dict[str, str] = {
    "normal": str(QT_TRANSLATE_NOOP("Strings", "plenty of room")),
    "notice": str(QT_TRANSLATE_NOOP("Strings", "filling up")),
    "degraded": str(QT_TRANSLATE_NOOP("Strings", "getting full")),
    "critical": str(QT_TRANSLATE_NOOP("Strings", "nearly full")),
    "exhausted": str(QT_TRANSLATE_NOOP("Strings", "full")),
}


def quota_level_text(level: str) -> str:
    """How full the memory space is at a quota level ("nearly full"), in the current language."""
    known = _QUOTA_LEVELS.get(level)
    return QCoreApplication.translate("Strings", known) if known is not None else level


def error_code_text(code: str) -> str | None:
    """The sentence of an error code in the current language; None for a code not known."""
    known = _ERRORS.get(code)
    return QCoreApplication.translate("Strings", known) if known is not None else None


def run_error_text(error: str | None) -> str:
    """An organizer run's `error` to show: a known code translated, a typed error the pipeline
    recorded as "code: message" by its code's sentence, other text as it is."""
    if not error:
        return ""
    known = _RUN_ERRORS.get(error)
    if known is not None:
        return QCoreApplication.translate("Strings", known)
    code, colon, _message = error.partition(": ")
    sentence = error_code_text(code) if colon else None
    return sentence if sentence is not None else error
