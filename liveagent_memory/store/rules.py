"""Input rules of the store: slugs, scopes, types, modes, size limits and the secret scan."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

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
from liveagent_memory.domain.risk import RiskClass
from liveagent_memory.domain.schema import WRITABLE_TYPES, MemoryType, Scope, UpdateMode
from liveagent_memory.domain.text import has_cjk

# `\Z`, not `$` (which also matches before a final newline); ASCII digits only.
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]\Z")  # REFERENCE A3
DAILY_SLUG_PATTERN = re.compile(r"^daily-([0-9]{4}-[0-9]{2}-[0-9]{2})\Z")
WORKDIR_HASH_PATTERN = re.compile(r"^[0-9a-fA-F]{16}\Z")


def suggest_slug(text: str) -> str:
    """Suggest a valid slug for any title, Chinese included (stable: same title, same slug).

    Chinese characters are spelled in pinyin; other non-alphanumeric runs become `-`.
    """
    value = text.strip().lower()
    if has_cjk(value):  # pinyin spells the Han in it; other CJK letters drop out below
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
    # A suggestion needs only the start of a (maybe megabytes long) input, and so does the
    # message, which must not echo all of it back.
    suggestion = suggest_slug(raw[: 4 * config.MAX_SLUG_CHARS])
    shown = raw if len(raw) <= 2 * config.MAX_SLUG_CHARS else raw[: 2 * config.MAX_SLUG_CHARS] + "…"
    raise SlugInvalid(
        f"memory slug {shown!r} is invalid: use 3-64 characters of a-z, 0-9 and '-', "
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
            "journal instead",
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
        kinds = {*WRITABLE_TYPES, MemoryType.DAILY} if allow_daily else WRITABLE_TYPES
        allowed = ", ".join(sorted(t.value for t in kinds))
        raise InvalidType(
            f"invalid memory type: {value!r} (use one of {allowed})", field="type"
        ) from None
    if memory_type is MemoryType.DAILY and not allow_daily:
        raise InvalidType(
            "The type 'daily' is a day's journal, not a memory of its own: append to the journal",
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
        raise InvalidWorkdirHash("The project id must be 16 hex characters", field="workdir_hash")
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


# --- Secret scan (REFERENCE A3, SPEC 7) -------------------------------------------------------
# Hard patterns: credentials. Text holding one is refused outright, wherever it would go: a
# memory, its source block, the audit log, a run report, an episode, the settings file.
# Shapes follow gitleaks' and detect-secrets' rules for the major providers: a fixed prefix plus
# the token's length and alphabet, so ordinary text (slugs, UUIDs, commit ids) never matches.
# The boundaries are ASCII-only, not `\b`: Chinese characters count as word characters, and a
# key pasted right after one (密钥sk-proj-…) must still be found.
_S = r"(?<![A-Za-z0-9])"
_E = r"(?![A-Za-z0-9])"
_TOKEN = r"[A-Za-z0-9_\-]"
# (label, pattern, must look random): the third element asks for at least two of upper case,
# lower case and digits in the match, which keeps a generic shape off long hyphenated names
# such as a slug `sk-proj-notes-about-the-new-laptop-setup`.
_HARD_PATTERNS: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    ("private key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"), False),
    (
        "AWS access key",
        re.compile(rf"{_S}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{{16}}{_E}"),
        False,
    ),
    (
        "AWS secret access key",
        re.compile(r"(?i:aws_?secret_?access_?key)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}" + _E),
        False,
    ),
    ("Anthropic API key", re.compile(rf"sk-ant-(?:api03|admin01)-{_TOKEN}{{40,}}"), False),
    (
        "OpenAI API key",
        re.compile(
            # "OpenAI" in base64 marks OpenAI keys (gitleaks); it sits within the first ~80
            # characters, and the bound keeps a long run of hyphens from costing quadratic time.
            rf"{_S}sk-{_TOKEN}{{0,160}}T3BlbkFJ{_TOKEN}+"
            rf"|{_S}sk-(?:proj|svcacct|admin|None)-{_TOKEN}{{32,}}"
        ),
        True,
    ),
    ("API key (sk-…)", re.compile(rf"{_S}sk-[A-Za-z0-9]{{32,}}{_E}"), True),
    ("GitHub token", re.compile(rf"{_S}(?:ghp|gho|ghu|ghs|ghr)_[0-9A-Za-z]{{36}}"), False),
    ("GitHub fine-grained token", re.compile(r"github_pat_[0-9A-Za-z_]{82,}"), False),
    ("GitLab token", re.compile(rf"{_S}gl(?:pat|oas|dt|rt|ptt)-{_TOKEN}{{20,}}"), False),
    ("Slack bot token", re.compile(r"xoxb-[0-9A-Za-z\-]+"), False),
    ("Slack token", re.compile(rf"{_S}xox[aepors]-(?:[0-9]+-){{2,}}[0-9A-Za-z\-]{{20,}}"), False),
    (
        "Slack webhook",
        re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{40,}"),
        False,
    ),
    ("Google API key", re.compile(rf"{_S}AIza{_TOKEN}{{35}}"), False),
    ("Google OAuth secret", re.compile(rf"{_S}GOCSPX-{_TOKEN}{{28}}"), False),
    ("Google OAuth token", re.compile(rf"{_S}ya29\.{_TOKEN}{{30,}}"), False),
    ("Hugging Face token", re.compile(rf"{_S}hf_[A-Za-z]{{34}}{_E}"), True),
    ("Groq API key", re.compile(rf"{_S}gsk_[A-Za-z0-9]{{52}}{_E}"), False),
    ("xAI API key", re.compile(rf"{_S}xai-[A-Za-z0-9]{{80}}{_E}"), False),
    ("Perplexity API key", re.compile(rf"{_S}pplx-[A-Za-z0-9]{{48}}{_E}"), False),
    ("Replicate API token", re.compile(rf"{_S}r8_[A-Za-z0-9]{{37}}{_E}"), False),
    ("Stripe key", re.compile(rf"{_S}(?:sk|rk)_(?:test|live|prod)_[0-9A-Za-z]{{24,}}"), False),
    ("Twilio API key", re.compile(rf"{_S}SK[0-9a-fA-F]{{32}}{_E}"), False),
    ("SendGrid API key", re.compile(rf"{_S}SG\.{_TOKEN}{{22}}\.{_TOKEN}{{43}}"), False),
    ("npm token", re.compile(rf"{_S}npm_[A-Za-z0-9]{{36}}{_E}"), False),
    ("PyPI token", re.compile(rf"pypi-AgEIcHlwaS5vcmc{_TOKEN}{{50,}}"), False),
    ("DigitalOcean token", re.compile(rf"{_S}do[pr]_v1_[a-f0-9]{{64}}{_E}"), False),
    ("Telegram bot token", re.compile(rf"{_S}[0-9]{{8,10}}:AA{_TOKEN}{{33}}{_E}"), False),
    ("Azure storage key", re.compile(r"AccountKey=[A-Za-z0-9+/]{86}=="), False),
    (
        "JSON web token",
        re.compile(rf"{_S}eyJ{_TOKEN}{{10,}}\.eyJ{_TOKEN}{{10,}}\.{_TOKEN}{{10,}}"),
        False,
    ),
    # user:password@ in a URL (detect-secrets' basic auth). `{ < $ * %` open a placeholder
    # (`{password}`, `<token>`, `${PASS}`, `***`, `%s`): documentation, not a secret.
    (
        "password in a URL",
        re.compile(
            r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s/:@{}<>$*%]+:[^\s/@{}<>$*%]+@"
        ),
        False,
    ),
)
# What every hard pattern starts with (or must hold): text with none of these holds no
# credential, so a few substring searches (C-fast, 4x faster than one regex alternation) spare
# ordinary text the thirty patterns; a reconcile scans every file it reads.
# tests/store/test_rules.py checks each format against the full list through this filter.
_ANCHOR_NEEDLES = (
    "-----BEGIN ", "A3T", "AKIA", "ASIA", "ABIA", "ACCA", "sk-", "sk_", "rk_",
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
    "glpat-", "gloas-", "gldt-", "glrt-", "glptt-", "xox", "hooks.slack.com",
    "AIza", "GOCSPX-", "ya29.", "hf_", "gsk_", "xai-", "pplx-", "r8_", "SK", "SG.", "npm_",
    "pypi-", "_v1_", ":AA", "AccountKey=", "eyJ", "://",
)  # fmt: skip
_AWS_SECRET_ANCHOR = re.compile(r"(?i:aws_?secret)")


def _gated(needles: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The needles grouped under a character each holds (a mark, else an upper-case letter,
    else the needle itself): a text without that character holds none of its group."""
    groups: dict[str, list[str]] = {}
    for needle in needles:
        gate = next((c for c in "_-.:=" if c in needle), None)
        gate = gate or next((c for c in needle if c.isupper()), needle)
        groups.setdefault(gate, []).append(needle)
    return tuple((gate, tuple(group)) for gate, group in groups.items())


# Nine looks for a gate character instead of forty for a needle (issue 17: the pre-check
# ran on every memory a cold reconcile indexes and several times per batch item).
_GATED_NEEDLES = _gated(_ANCHOR_NEEDLES)
# Soft patterns: prompt-injection or dangerous-instruction phrases. Stored, but unreviewed
# with risk_flag=low so a person looks at them before they carry weight.
_SOFT_PATTERNS = (
    re.compile(
        r"bypass\s+auth|disable\s+validation|override\s+safety|ignore\s+previous\s+instructions",
        re.IGNORECASE,
    ),
    re.compile(r"\bsudo\b|\bexec\s*\(|\beval\s*\(|--no-verify", re.IGNORECASE),
)


def _looks_random(token: str) -> bool:
    """At least two of upper case, lower case and digits: a generated token, not a name."""
    kinds = (
        any(c.isupper() for c in token),
        any(c.islower() for c in token),
        any(c.isdigit() for c in token),
    )
    return sum(kinds) >= 2


def may_hold_secret(text: str) -> bool:
    """False when `text` cannot hold a credential (none of the patterns' anchors is in it)."""
    for gate, needles in _GATED_NEEDLES:
        if gate in text and any(map(text.__contains__, needles)):
            return True
    return bool(_AWS_SECRET_ANCHOR.search(text))


def secret_label(text: str) -> str | None:
    """The kind of credential `text` holds (e.g. "OpenAI API key"), or None."""
    if not may_hold_secret(text):
        return None
    for label, pattern, must_look_random in _HARD_PATTERNS:
        for match in pattern.finditer(text):
            if not must_look_random or _looks_random(match.group()):
                return label
    return None


def classify_risk(*texts: str) -> tuple[RiskClass, str | None]:
    """Classify text: (HARD, what was found) | (SOFT, None) | (NONE, None)."""
    joined = "\n".join(texts)
    label = secret_label(joined)
    if label is not None:
        return RiskClass.HARD, label
    if any(pattern.search(joined) for pattern in _SOFT_PATTERNS):
        return RiskClass.SOFT, None
    return RiskClass.NONE, None


def refuse_secrets(slug: str, *texts: str) -> RiskClass:
    """Raise `risk_hard_blocked` for a secret; otherwise return the risk class."""
    risk, label = classify_risk(*texts)
    if risk is RiskClass.HARD:
        # The message names the memory, unless its slug is where the secret is.
        name = "this memory" if secret_label(slug) else f"memory {slug!r}"
        raise RiskHardBlocked(
            f"{name} contains what looks like a secret ({label}) and was not stored; "
            "remove it and write again",
            field="body",
        )
    return risk


def texts_in(value: Any) -> Iterator[tuple[str, str, bool]]:
    """Every text inside `value`, in order: (field path, text, whether it is a mapping key).

    `value` is a string, or mappings and sequences of them at any depth. Paths read like
    `items[2].reason` ("" for `value` itself); a key comes with the path of its mapping, so a
    path never holds a key's text.
    """
    pending: list[tuple[str, Any, bool]] = [("", value, False)]
    while pending:  # a loop, not recursion: a payload may nest deeper than the stack allows
        path, item, is_key = pending.pop()
        if isinstance(item, str):
            yield path, item, is_key
        elif isinstance(item, Mapping):
            children: list[tuple[str, Any, bool]] = []
            for key, child in item.items():
                children += [
                    (path, str(key), True),
                    (f"{path}.{key}" if path else str(key), child, False),
                ]
            pending.extend(reversed(children))  # reversed: texts come out in order
        elif isinstance(item, list | tuple | set | frozenset):
            pending.extend(reversed([(f"{path}[{i}]", c, False) for i, c in enumerate(item)]))


def _flat_texts(value: Any) -> list[str] | None:
    """The texts of a mapping whose values are all plain (text, number, bool, None): its keys
    and its text values; None for anything else (texts_in walks that)."""
    if not isinstance(value, Mapping):
        return None
    texts: list[str] = []
    for key, item in value.items():
        texts.append(str(key))
        if isinstance(item, str):
            texts.append(item)
        elif item is not None and not isinstance(item, int | float):
            return None
    return texts


def find_secret(value: Any) -> tuple[str, str] | None:
    """The first text inside `value` (see texts_in) holding a credential: (path, the kind).

    The path of a secret in a mapping key is its mapping's (`value` at the top): never the key.
    """
    # One look over all of it first (an anchor in any text is an anchor in the joined text):
    # the per-text scan only on a hint, as a request's twenty-odd fields mostly hold none.
    flat = _flat_texts(value)
    if flat is not None and not may_hold_secret("\n".join(flat)):
        return None  # (a flat mapping's texts without walking it: a third of a write's scan)
    texts = list(texts_in(value))
    if flat is None and not may_hold_secret("\n".join(text for _, text, _ in texts)):
        return None
    for path, text, is_key in texts:
        label = secret_label(text)
        if label is not None:
            where = path or "value"
            return (f"{where} (a key)" if is_key else where), label
    return None


def refuse_secret_fields(value: Mapping[str, Any], *, what: str) -> None:
    """Raise `risk_hard_blocked` naming the field (never its text) when any text holds a secret.

    For everything besides a memory's body that reaches a file or the index: provenance
    (conversation id, model, trigger), reasons, workdirs, slugs, ids, run reports, settings.
    """
    found = find_secret(value)
    if found is None:
        return
    field, label = found
    raise RiskHardBlocked(
        f"{what}: {field} holds what looks like a secret ({label}), so nothing was stored; "
        "remove it and try again (API keys belong in the system keyring, never in memory)",
        field=field,
    )
