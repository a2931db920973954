"""Input rules of the store: slugs, scopes, types, modes, size limits and the secret scan."""

from __future__ import annotations

import re
import unicodedata

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import (
    BodyTooLarge,
    DescriptionRequired,
    InvalidMode,
    InvalidScope,
    InvalidType,
    InvalidWorkdirHash,
    RiskHardBlocked,
    SlugInvalid,
)
from liveagent_memory.domain.schema import WRITABLE_TYPES, MemoryType, RiskClass, Scope, UpdateMode

# `\Z`, not `$` (which also matches before a final newline); ASCII digits only.
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]\Z")  # REFERENCE A3
DAILY_SLUG_PATTERN = re.compile(r"^daily-([0-9]{4}-[0-9]{2}-[0-9]{2})\Z")
WORKDIR_HASH_PATTERN = re.compile(r"^[0-9a-fA-F]{16}\Z")
_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def suggest_slug(text: str) -> str:
    """Suggest a valid slug for any title, Chinese included (stable: same title, same slug).

    Chinese characters are spelled in pinyin; other non-alphanumeric runs become `-`.
    """
    value = text.strip().lower()
    if _CJK.search(value):
        from pypinyin import lazy_pinyin  # imported on demand: it loads a 0.5 s dictionary

        value = " ".join(lazy_pinyin(value)).lower()
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", value).strip("-")
    slug = slug[: config.MAX_SLUG_CHARS].strip("-")
    if len(slug) < config.SLUG_MIN_SUGGESTION_CHARS:
        return config.FALLBACK_SLUG
    return slug


def normalize_slug(raw: str, *, action: str = "write") -> str:
    """Return the canonical slug or raise `slug_invalid` with a suggested slug.

    Lowercases and maps `_` to `-` like the reference; anything else must already match
    `^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$`, which also rules out path traversal.
    """
    slug = raw.strip().lower().replace("_", "-")
    if SLUG_PATTERN.match(slug):
        return slug
    suggestion = suggest_slug(raw)
    raise SlugInvalid(
        f"memory slug {raw!r} is invalid: use 3-64 characters of a-z, 0-9 and '-', "
        f"starting and ending with a letter or digit (try {suggestion!r})",
        suggested_next_call={"action": action, "slug": suggestion},
        field="slug",
    )


def is_daily_slug(raw: str) -> bool:
    return raw.strip().lower().startswith("daily-")


def refuse_journal_name(slug: str) -> None:
    """A memory may not take a journal's name (REFERENCE A3: `daily-YYYY-MM-DD` is never
    written): the day's journal would then share its key and never be indexed."""
    if DAILY_SLUG_PATTERN.match(slug):
        raise SlugInvalid(
            f"{slug!r} is the name of a day's journal; choose another slug, or append to the "
            "journal with memory_daily_append",
            suggested_next_call={"action": "append_daily", "local_date": slug[len("daily-") :]},
            field="slug",
        )


def normalize_daily_slug(raw: str, *, today: str) -> str:
    """Return `daily-YYYY-MM-DD` or raise `slug_invalid` pointing at today's journal."""
    slug = raw.strip().lower()
    if DAILY_SLUG_PATTERN.match(slug):
        return slug
    raise SlugInvalid(
        "daily memory slug must be daily-YYYY-MM-DD",
        suggested_next_call={"action": "update", "slug": f"daily-{today}", "mode": "append"},
        field="slug",
    )


def normalize_scope(raw: str | None) -> Scope:
    """Scope of a write: exactly `global` or `project`."""
    value = (raw or "").strip()
    try:
        return Scope(value)
    except ValueError:
        raise InvalidScope(
            f"invalid memory scope: {value!r} (use 'global' or 'project')", field="scope"
        ) from None


def normalize_scope_filter(raw: str | None) -> Scope | None:
    """Scope filter of a read: None/`auto` (global + current project), `global`, `project`."""
    value = (raw or "").strip()
    if value in ("", "auto"):
        return None
    return normalize_scope(value)


def normalize_type(raw: str | None, *, allow_daily: bool = False) -> MemoryType:
    value = (raw or "").strip()
    try:
        memory_type = MemoryType(value)
    except ValueError:
        allowed = ", ".join(sorted(t.value for t in WRITABLE_TYPES))
        raise InvalidType(
            f"invalid memory type: {value!r} (use one of {allowed})", field="type"
        ) from None
    if memory_type is MemoryType.DAILY and not allow_daily:
        raise InvalidType(
            "type=daily cannot be written; append to the journal with memory_daily_append",
            field="type",
        )
    return memory_type


def normalize_mode(raw: str | None, default: UpdateMode, *, slug: str) -> UpdateMode:
    value = (raw or "").strip() or default.value
    if value == UpdateMode.APPEND:
        raise InvalidMode(
            'ordinary memory entries do not support mode="append"; '
            'use mode="replace" or mode="merge"',
            suggested_next_call={"action": "update", "slug": slug, "mode": "merge"},
            field="mode",
        )
    try:
        return UpdateMode(value)
    except ValueError:
        raise InvalidMode(
            f'invalid mode {value!r}: ordinary memories support "replace" or "merge"',
            suggested_next_call={"action": "update", "slug": slug, "mode": "merge"},
            field="mode",
        ) from None


def normalize_workdir_hash(raw: str | None) -> str | None:
    value = (raw or "").strip()
    if not value:
        return None
    if not WORKDIR_HASH_PATTERN.match(value):
        raise InvalidWorkdirHash(
            "workdir_hash must be a 16-character hex project id", field="workdir_hash"
        )
    return value.lower()


def normalize_description(raw: str | None) -> str:
    """Trim, fold whitespace to single spaces, require text, cut to 120 characters."""
    value = " ".join((raw or "").split())
    if not value:
        raise DescriptionRequired("memory description is required", field="description")
    return value[: config.MAX_DESCRIPTION_CHARS].rstrip()


def check_body_size(body: str, *, slug: str, limit: int = config.MAX_BODY_BYTES) -> None:
    size = len(body.encode("utf-8"))
    if size <= limit:
        return
    raise BodyTooLarge(
        f"memory body for {slug!r} is {size} bytes; the limit is {limit} bytes",
        suggested_next_call={
            "action": "update",
            "slug": slug,
            "body": "<consolidated shorter body>",
        },
        field="body",
    )


# --- Secret scan (REFERENCE A3) --------------------------------------------------------------
# Hard patterns: credentials. A write holding one is refused outright (SPEC 7).
_HARD_PATTERNS = (
    ("private key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")),
    ("AWS access key", re.compile(r"AKIA[0-9A-Z]{16}")),
    ("Anthropic API key", re.compile(r"sk-ant-api03-[0-9A-Za-z_\-]{40,}")),
    ("GitHub token", re.compile(r"ghp_[0-9A-Za-z]{36}")),
    ("Slack bot token", re.compile(r"xoxb-[0-9A-Za-z\-]+")),
    ("GitHub fine-grained token", re.compile(r"github_pat_[0-9A-Za-z_]{82,}")),
)
# Soft patterns: prompt-injection or dangerous-instruction phrases. Stored, but unreviewed
# with risk_flag=low so a person looks at them before they carry weight.
_SOFT_PATTERNS = (
    re.compile(
        r"bypass\s+auth|disable\s+validation|override\s+safety|ignore\s+previous\s+instructions",
        re.IGNORECASE,
    ),
    re.compile(r"\bsudo\b|\bexec\s*\(|\beval\s*\(|--no-verify", re.IGNORECASE),
)


def classify_risk(*texts: str) -> tuple[RiskClass, str | None]:
    """Classify text: (HARD, what was found) | (SOFT, None) | (NONE, None)."""
    joined = "\n".join(texts)
    for label, pattern in _HARD_PATTERNS:
        if pattern.search(joined):
            return RiskClass.HARD, label
    if any(pattern.search(joined) for pattern in _SOFT_PATTERNS):
        return RiskClass.SOFT, None
    return RiskClass.NONE, None


def refuse_secrets(slug: str, *texts: str) -> RiskClass:
    """Raise `risk_hard_blocked` for a secret; otherwise return the risk class."""
    risk, label = classify_risk(*texts)
    if risk is RiskClass.HARD:
        raise RiskHardBlocked(
            f"memory {slug!r} contains what looks like a secret ({label}) and was not stored; "
            "remove it and write again",
            field="body",
        )
    return risk
