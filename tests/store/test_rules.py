"""Input rules (store/rules.py): slugs, scopes, types, modes, limits and the secret scan
(SPEC 1.2, 1.3, 7; REFERENCE A3)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liveagent_memory.domain import config, errors
from liveagent_memory.domain.risk import RiskClass
from liveagent_memory.domain.schema import MemoryType, Scope, UpdateMode
from liveagent_memory.store import rules
from liveagent_memory.store.rules import (
    DAILY_SLUG_PATTERN,
    SLUG_PATTERN,
    check_body_size,
    classify_risk,
    is_daily_slug,
    normalize_daily_slug,
    normalize_description,
    normalize_mode,
    normalize_scope,
    normalize_scope_filter,
    normalize_slug,
    normalize_type,
    normalize_workdir_hash,
    refuse_secrets,
    suggest_slug,
)


def is_valid_slug(slug: str) -> bool:
    return SLUG_PATTERN.fullmatch(slug) is not None


# --- slugs --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "slug"),
    [
        ("abc", "abc"),
        ("a1b", "a1b"),
        ("007", "007"),
        ("tea-pref", "tea-pref"),
        ("a--b", "a--b"),
        ("a" * 64, "a" * 64),
        ("Tea-Pref", "tea-pref"),
        ("TEA_PREF", "tea-pref"),
        ("snake_case_name", "snake-case-name"),
        ("  padded  ", "padded"),
    ],
)
def test_valid_slugs_are_normalized(raw: str, slug: str) -> None:
    assert normalize_slug(raw) == slug
    assert is_valid_slug(slug)


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "ab",
        "a",
        "a" * 65,
        "-abc",
        "abc-",
        "_abc",  # '_' becomes '-', which may not lead
        "a b",
        "a.b",
        "tea.md",
        "ü-slug",
        "slug!",
        "用户偏好",
        "../x",
        "..",
        "a/b",
        "x\\y",
        "/etc/passwd",
        "C:\\Windows",
        "~/notes",
        "a\x00b",
        "abc\x00",
        ".hidden",
        "abc/..",
        "%2e%2e%2fetc",
        "a" * 10_000,
        "line\nbreak",
    ],
)
def test_invalid_and_unsafe_slugs_are_refused_with_a_valid_suggestion(raw: str) -> None:
    with pytest.raises(errors.SlugInvalid) as caught:
        normalize_slug(raw, action="update")
    error = caught.value
    assert error.code == "slug_invalid" and error.field == "slug"
    assert error.suggested_next_call is not None
    assert error.suggested_next_call["action"] == "update"
    suggestion = error.suggested_next_call["slug"]
    assert is_valid_slug(suggestion)
    assert normalize_slug(suggestion) == suggestion
    assert repr(suggestion) in error.message
    out = error.to_dict()
    assert out["error"] == "slug_invalid" and out["suggested_next_call"]["slug"] == suggestion


@pytest.mark.parametrize(
    ("raw", "suggestion"),
    [
        ("Hello World!", "hello-world"),
        ("../x", "memory-note"),  # under 3 characters left -> REFERENCE A3 fallback
        ("..", "memory-note"),
        ("", "memory-note"),
        ("a/b/c/d", "a-b-c-d"),
        ("/etc/passwd", "etc-passwd"),
        ("Café Crème", "cafe-creme"),
        ("用户偏好", "yong-hu-pian-hao"),
        ("API 设计规范", "api-she-ji-gui-fan"),
        ("  项目：构建步骤  ", "xiang-mu-gou-jian-bu-zhou"),
        ("メモ", "memory-note"),  # kana has no romanization here: the fallback
        ("-" * 10 + "ok" + "-" * 10, "memory-note"),
        ("x" * 100, "x" * 64),
    ],
)
def test_suggest_slug(raw: str, suggestion: str) -> None:
    assert suggest_slug(raw) == suggestion
    assert is_valid_slug(suggestion)


def test_chinese_title_yields_a_stable_valid_slug() -> None:
    title = "用户的编程语言偏好：Python 与 Rust"
    first = suggest_slug(title)
    assert first == suggest_slug(title) == suggest_slug(f"  {title}  ")
    assert is_valid_slug(first)
    assert first.startswith("yong-hu-de-bian-cheng-yu-yan-pian-hao")
    assert "python" in first and "rust" in first
    with pytest.raises(errors.SlugInvalid) as caught:
        normalize_slug(title)
    assert caught.value.suggested_next_call == {"action": "write", "slug": first}


def test_long_suggestion_never_ends_with_a_dash() -> None:
    suggestion = suggest_slug("a" * 63 + " b")
    assert suggestion == "a" * 63 and is_valid_slug(suggestion)


def test_slug_pattern_rejects_a_trailing_newline() -> None:
    assert SLUG_PATTERN.match("abc\n") is None
    assert DAILY_SLUG_PATTERN.match("daily-2025-01-01\n") is None


@settings(deadline=None)
@given(st.text(max_size=80))
def test_any_title_gives_a_valid_stable_suggestion(title: str) -> None:
    suggestion = suggest_slug(title)
    assert is_valid_slug(suggestion)
    assert suggest_slug(title) == suggestion
    assert normalize_slug(suggestion) == suggestion


@settings(deadline=None)
@given(st.text(max_size=80))
def test_normalize_slug_accepts_only_safe_names(raw: str) -> None:
    try:
        slug = normalize_slug(raw)
    except errors.SlugInvalid as exc:
        assert exc.suggested_next_call is not None
        assert is_valid_slug(exc.suggested_next_call["slug"])
        return
    assert is_valid_slug(slug)
    assert not any(part in slug for part in ("/", "\\", "..", "\x00"))


# --- daily slugs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("daily-2025-03-01", True), ("DAILY-x", True), (" daily-", True), ("dailyx", False)],
)
def test_is_daily_slug(raw: str, expected: bool) -> None:
    assert is_daily_slug(raw) is expected


@pytest.mark.parametrize(
    ("raw", "slug"),
    [("daily-2025-03-01", "daily-2025-03-01"), ("  DAILY-2025-12-31 ", "daily-2025-12-31")],
)
def test_valid_daily_slugs(raw: str, slug: str) -> None:
    assert normalize_daily_slug(raw, today="2026-11-30") == slug


@pytest.mark.parametrize(
    "raw",
    [
        "daily-2025-3-1",
        "daily-today",
        "daily-",
        "daily-2025-03-01-extra",
        "daily-2025/03/01",
        "daily-../2025-03-01",
        "daily-２０２５-03-01",  # full-width digits
        "daily-٢٠٢٥-03-01",  # Arabic-Indic digits
    ],
)
def test_invalid_daily_slugs_point_at_todays_journal(raw: str) -> None:
    with pytest.raises(errors.SlugInvalid) as caught:
        normalize_daily_slug(raw, today="2026-11-30")
    assert caught.value.suggested_next_call == {
        "action": "update",
        "slug": "daily-2026-11-30",
        "mode": "append",
    }


# --- scope, type, mode, workdir hash -----------------------------------------------------------


@pytest.mark.parametrize(("raw", "scope"), [("global", Scope.GLOBAL), (" project ", Scope.PROJECT)])
def test_normalize_scope(raw: str, scope: Scope) -> None:
    assert normalize_scope(raw) is scope


@pytest.mark.parametrize("raw", [None, "", "auto", "GLOBAL", "user", "projects", "global/x"])
def test_invalid_scope(raw: str | None) -> None:
    with pytest.raises(errors.InvalidScope) as caught:
        normalize_scope(raw)
    assert caught.value.code == "invalid_scope" and caught.value.field == "scope"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, None),
        ("", None),
        ("auto", None),
        (" auto ", None),
        ("global", Scope.GLOBAL),
        ("project", Scope.PROJECT),
    ],
)
def test_normalize_scope_filter(raw: str | None, expected: Scope | None) -> None:
    assert normalize_scope_filter(raw) is expected


def test_scope_filter_refuses_unknown_scopes() -> None:
    with pytest.raises(errors.InvalidScope):
        normalize_scope_filter("everywhere")


@pytest.mark.parametrize(
    "memory_type", ["user", "feedback", "project", "reference", "skill", " user "]
)
def test_writable_types(memory_type: str) -> None:
    assert normalize_type(memory_type) is MemoryType(memory_type.strip())


@pytest.mark.parametrize("raw", [None, "", "USER", "note", "dailies", "user,project"])
def test_invalid_type(raw: str | None) -> None:
    with pytest.raises(errors.InvalidType) as caught:
        normalize_type(raw)
    assert caught.value.code == "invalid_type" and caught.value.field == "type"
    assert "feedback, project, reference, skill, user" in caught.value.message


def test_daily_is_not_a_writable_type() -> None:
    with pytest.raises(errors.InvalidType) as caught:
        normalize_type("daily")
    assert caught.value.code == "invalid_type"
    assert "daily" in caught.value.message
    assert normalize_type("daily", allow_daily=True) is MemoryType.DAILY


@pytest.mark.parametrize(
    ("raw", "default", "expected"),
    [
        (None, UpdateMode.REPLACE, UpdateMode.REPLACE),
        ("", UpdateMode.MERGE, UpdateMode.MERGE),
        ("  ", UpdateMode.MERGE, UpdateMode.MERGE),
        ("replace", UpdateMode.MERGE, UpdateMode.REPLACE),
        (" merge ", UpdateMode.REPLACE, UpdateMode.MERGE),
    ],
)
def test_normalize_mode(raw: str | None, default: UpdateMode, expected: UpdateMode) -> None:
    assert normalize_mode(raw, default, slug="tea-pref") is expected


@pytest.mark.parametrize("raw", ["append", " append ", "APPEND", "overwrite", "Merge"])
def test_invalid_mode_for_ordinary_memories(raw: str) -> None:
    with pytest.raises(errors.InvalidMode) as caught:
        normalize_mode(raw, UpdateMode.REPLACE, slug="tea-pref")
    assert caught.value.code == "invalid_mode" and caught.value.field == "mode"
    assert caught.value.suggested_next_call == {
        "action": "update",
        "slug": "tea-pref",
        "mode": "merge",
    }


def test_append_mode_message_names_the_ordinary_modes() -> None:
    with pytest.raises(errors.InvalidMode) as caught:
        normalize_mode("append", UpdateMode.REPLACE, slug="x-y-z")
    assert 'mode="append"' in caught.value.message and "merge" in caught.value.message


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, None),
        ("", None),
        ("0123456789abcdef", "0123456789abcdef"),
        (" 0123456789ABCDEF ", "0123456789abcdef"),
    ],
)
def test_normalize_workdir_hash(raw: str | None, expected: str | None) -> None:
    assert normalize_workdir_hash(raw) == expected


@pytest.mark.parametrize("raw", ["xyz", "0123456789abcde", "0123456789abcdef0", "../../etc/passw"])
def test_invalid_workdir_hash(raw: str) -> None:
    with pytest.raises(errors.InvalidWorkdirHash) as caught:
        normalize_workdir_hash(raw)
    assert caught.value.code == "invalid_workdir_hash"


# --- description and body size ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Drinks green tea  ", "Drinks green tea"),
        ("two\nlines\r\nand\ttabs", "two lines and tabs"),
        ("a   b", "a b"),
        ("用户偏好：简体中文", "用户偏好：简体中文"),
        ("x" * 200, "x" * 120),
        ("字" * 200, "字" * 120),
        ("a" * 119 + " bcd", "a" * 119),  # cut at 120 leaves no trailing space
        ("a" * 120, "a" * 120),
    ],
)
def test_normalize_description(raw: str, expected: str) -> None:
    assert normalize_description(raw) == expected
    assert len(expected) <= config.MAX_DESCRIPTION_CHARS == 120


@pytest.mark.parametrize("raw", [None, "", "   ", "\n\t"])
def test_description_is_required(raw: str | None) -> None:
    with pytest.raises(errors.DescriptionRequired) as caught:
        normalize_description(raw)
    assert caught.value.code == "description_required"
    assert caught.value.field == "description"


@settings(deadline=None)
@given(st.text(min_size=1, max_size=300).filter(lambda t: t.strip()))
def test_normalized_description_is_one_trimmed_line(raw: str) -> None:
    value = normalize_description(raw)
    assert value == value.strip() and value
    assert len(value) <= 120
    assert value.split() == value.split(" ")  # no line breaks, tabs or double spaces


@pytest.mark.parametrize(
    "body",
    ["", "a" * 8192, "字" * 2730 + "ab", "😀" * 2048, "é" * 4096],
)
def test_body_up_to_8_kib_in_utf8_bytes_is_accepted(body: str) -> None:
    assert len(body.encode("utf-8")) <= 8192
    check_body_size(body, slug="tea-pref")


@pytest.mark.parametrize(
    "body",
    ["a" * 8193, "字" * 2731, "😀" * 2048 + "a", "é" * 4096 + "a"],
)
def test_body_over_8_kib_in_utf8_bytes_is_refused(body: str) -> None:
    size = len(body.encode("utf-8"))
    assert size == 8193  # one byte over; the Chinese and emoji bodies are far under 8192 chars
    with pytest.raises(errors.BodyTooLarge) as caught:
        check_body_size(body, slug="tea-pref")
    error = caught.value
    assert error.code == "body_too_large" and error.field == "body"
    assert str(size) in error.message and "8192" in error.message
    assert error.suggested_next_call is not None
    assert error.suggested_next_call["slug"] == "tea-pref"


def test_body_limit_is_8_kib_and_can_be_overridden() -> None:
    assert config.MAX_BODY_BYTES == 8192
    check_body_size("abcd", slug="x-y-z", limit=4)
    with pytest.raises(errors.BodyTooLarge):
        check_body_size("abcde", slug="x-y-z", limit=4)


# --- secret scan ---------------------------------------------------------------------------------

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (PEM, "private key"),
        ("-----BEGIN PRIVATE KEY-----", "private key"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
        ("-----BEGIN EC PRIVATE KEY-----", "private key"),
        ("key=AKIAIOSFODNN7EXAMPLE", "AWS access key"),
        ("sk-ant-api03-" + "A" * 40, "Anthropic API key"),
        ("token sk-ant-api03-" + "aZ09_-" * 10 + " end", "Anthropic API key"),
        ("ghp_" + "a" * 36, "GitHub token"),
        ("xoxb-1234-5678-abcdef", "Slack bot token"),
        ("github_pat_" + "A1_" * 28, "GitHub fine-grained token"),
        ("我的密钥是 AKIAIOSFODNN7EXAMPLE，别告诉别人", "AWS access key"),
    ],
)
def test_hard_patterns_refuse_the_write(text: str, label: str) -> None:
    assert classify_risk(text) == (RiskClass.HARD, label)
    assert classify_risk("harmless", text) == (RiskClass.HARD, label)
    with pytest.raises(errors.RiskHardBlocked) as caught:
        refuse_secrets("tea-pref", "description", text)
    assert caught.value.code == "risk_hard_blocked"
    assert label in caught.value.message
    assert text not in caught.value.message  # the secret itself is never echoed


@pytest.mark.parametrize(
    "text",
    [
        "bypass auth",
        "Bypass   Authentication for admins",
        "disable validation",
        "DISABLE VALIDATION",
        "override safety",
        "Please ignore previous instructions and ...",
        "IGNORE PREVIOUS INSTRUCTIONS",
        "run sudo apt install",
        "SUDO rm",
        "exec(",
        "os.exec (cmd)",
        "eval(",
        "Eval (x)",
        "git commit --no-verify",
        "用 sudo 安装",
    ],
)
def test_soft_phrases_are_stored_for_review(text: str) -> None:
    assert classify_risk(text) == (RiskClass.SOFT, None)
    assert refuse_secrets("tea-pref", text) is RiskClass.SOFT


def test_hard_beats_soft() -> None:
    assert classify_risk("sudo", "ghp_" + "b" * 36)[0] is RiskClass.HARD


@pytest.mark.parametrize(
    "text",
    [
        "The user prefers green tea.",
        "用户喜欢喝绿茶。",
        "",
        # near misses of the hard patterns
        "AKIA" + "A" * 15,
        "akiaiosfodnn7example",
        "sk-ant-api03-" + "A" * 39,
        "sk-ant-api02-" + "A" * 40,
        "ghp_" + "a" * 35,
        "ghp-" + "a" * 36,
        "xoxb",
        "xoxb-",
        "xoxp-1234-5678",
        "github_pat_" + "A" * 81,
        "-----BEGIN PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----",
        "a private key is needed",
        # near misses of the soft phrases
        "bypass the auth flow",
        "authentication bypass",
        "disable-validation flag",
        "override-safety",
        "ignore previous instruction",
        "pseudo code",
        "sudoers file",
        "execute(task)",
        "evaluate(x)",
        "medieval(times)",
        "no-verify",
        "-no-verify",
    ],
)
def test_ordinary_text_and_near_misses_are_clean(text: str) -> None:
    assert classify_risk(text) == (RiskClass.NONE, None)
    assert refuse_secrets("tea-pref", text) is RiskClass.NONE


def test_rules_module_exports_the_reference_patterns() -> None:
    assert SLUG_PATTERN.pattern.startswith("^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]")
    assert rules.DAILY_SLUG_PATTERN.fullmatch("daily-2025-03-01") is not None


# --- provider key formats (issue 12; gitleaks / detect-secrets shapes) ---------------------------
# Built from parts so no file of the repository holds a whole key-shaped string by accident.
MIXED = "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7cF0xR"  # 32 characters: upper, lower and digits
OPENAI_PROJECT = "sk-proj-" + MIXED * 4 + "T3BlbkFJ" + MIXED * 2
PROVIDER_KEYS = [
    (OPENAI_PROJECT, "OpenAI API key"),
    ("sk-proj-" + MIXED + "_-" + MIXED, "OpenAI API key"),  # no T3BlbkFJ marker: the prefix
    ("sk-svcacct-" + MIXED * 2, "OpenAI API key"),
    ("sk-admin-" + MIXED * 2, "OpenAI API key"),
    ("sk-" + MIXED[:20] + "T3BlbkFJ" + MIXED[:20], "OpenAI API key"),  # the legacy 51 chars
    ("sk-" + "3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e", "API key (sk-…)"),  # DeepSeek-style, 32 hex
    ("sk-" + MIXED + MIXED[:16], "API key (sk-…)"),  # legacy 48 without the marker
    ("sk-ant-admin01-" + MIXED * 3, "Anthropic API key"),
    ("ASIA" + "IOSFODNN7EXAMPLE", "AWS access key"),
    ('aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', "AWS secret access key"),
    ("gho_" + MIXED + "abcd", "GitHub token"),
    ("ghs_" + MIXED + "abcd", "GitHub token"),
    ("glpat-" + MIXED[:20], "GitLab token"),
    ("xoxp-1234567890-1234567890-1234567890-" + MIXED, "Slack token"),
    ("https://hooks.slack.com/services/T00000000/B00000000/" + MIXED[:24], "Slack webhook"),
    ("AIza" + "Sy" + MIXED + "-x_", "Google API key"),
    ("GOCSPX-" + MIXED[:28], "Google OAuth secret"),
    ("ya29." + MIXED + "_-" + MIXED, "Google OAuth token"),
    ("hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "Hugging Face token"),
    ("gsk_" + MIXED + MIXED[:20], "Groq API key"),
    ("xai-" + MIXED * 2 + MIXED[:16], "xAI API key"),
    ("pplx-" + MIXED + MIXED[:16], "Perplexity API key"),
    ("r8_" + MIXED + MIXED[:5], "Replicate API token"),
    ("sk_live_" + MIXED[:24], "Stripe key"),
    ("rk_test_" + MIXED, "Stripe key"),
    ("SK" + "0123456789abcdef" * 2, "Twilio API key"),
    ("SG." + MIXED[:22] + "." + MIXED + MIXED[:11], "SendGrid API key"),
    ("npm_" + MIXED + "abcd", "npm token"),
    ("pypi-AgEIcHlwaS5vcmc" + MIXED * 2, "PyPI token"),
    ("dop_v1_" + "0123456789abcdef" * 4, "DigitalOcean token"),
    ("123456789:AA" + MIXED + "x", "Telegram bot token"),
    ("AccountKey=" + MIXED * 2 + MIXED[:22] + "==", "Azure storage key"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "JSON web token"),
    ("postgres://app:hunter2x@db.internal:5432/prod", "password in a URL"),
    ("密钥" + OPENAI_PROJECT + "，别外传", "OpenAI API key"),  # right after Chinese text
]


@pytest.mark.parametrize(("text", "label"), PROVIDER_KEYS)
def test_provider_key_formats_are_secrets(text: str, label: str) -> None:
    assert rules.secret_label(text) == label
    assert rules.secret_label(f"before {text} after") == label
    with pytest.raises(errors.RiskHardBlocked) as caught:
        rules.refuse_secret_fields({"conversation_id": text}, what="memory_write")
    assert caught.value.code == "risk_hard_blocked" and caught.value.field == "conversation_id"
    assert label in caught.value.message and text not in caught.value.message


@pytest.mark.parametrize(
    "text",
    [
        "sk-learn-notes",  # a slug
        "sk-proj-notes-about-the-new-laptop-setup",  # a long slug with the OpenAI prefix
        "550e8400-e29b-41d4-a716-446655440000",  # a UUID
        "9fceb02d0ae598e95dc970b74767f19372d61af8",  # a git commit
        "task-123",
        "ep-2026-11-30-1a2b3c4d",  # an episode id
        "run-1796160947209-1a2b3c4d",  # a run id
        "conv-7",
        "openai/gpt-4o-mini",
        "https://user@example.com/repo.git",  # a user, no password
        "postgres://app:{password}@db/prod",  # documentation placeholders
        "http://${USER}:${PASS}@host/",
        "https://example.com:8443/a@b",
        "git@github.com:owner/repo.git",
        "MIIEowIBAAKCAQEAx" + MIXED * 4,  # base64 without a provider prefix
        "SK-1234",
        "hf_model_name",
        "AIza short",
        "my_sk_live_flag",
        "用户喜欢 sk 开头的命名",
    ],
)
def test_ordinary_ids_and_names_are_not_secrets(text: str) -> None:
    assert rules.secret_label(text) is None
    assert rules.find_secret({"slug": text, "items": [text]}) is None
    rules.refuse_secret_fields({"workdir": text}, what="x")  # no error


def test_find_secret_names_the_first_field_in_order() -> None:
    payload = {
        "slug": "ok-slug",
        "items": [{"op": "upsert"}, {"op": "delete", "reason": "x " + OPENAI_PROJECT}],
        "model": OPENAI_PROJECT,
        "tags": ("fine", "ghp_" + MIXED + "abcd"),
        OPENAI_PROJECT: "a key used as a key",
    }
    assert rules.find_secret(payload) == ("items[1].reason", "OpenAI API key")
    assert rules.find_secret({"tags": ["fine", "ghp_" + MIXED + "abcd"]}) == (
        "tags[1]",
        "GitHub token",
    )
    # A key that is a secret: the path names its mapping, never the key's text.
    assert rules.find_secret({"meta": {OPENAI_PROJECT: 1}}) == ("meta (a key)", "OpenAI API key")
    assert rules.find_secret({OPENAI_PROJECT: 1}) == ("value (a key)", "OpenAI API key")
    assert rules.find_secret(OPENAI_PROJECT) == ("value", "OpenAI API key")
    assert rules.find_secret({"n": 1, "b": True, "none": None}) is None


def test_find_secret_walks_deep_payloads_without_recursion() -> None:
    deep: object = "ghp_" + MIXED + "abcd"
    for _ in range(20_000):  # deeper than Python's recursion limit
        deep = {"x": [deep]}
    found = rules.find_secret(deep)
    assert found is not None and found[1] == "GitHub token"


def test_the_scan_stays_fast_on_a_full_body() -> None:
    import time

    bodies = ["sk-" * 2700, "-".join(["sk"] * 3000), MIXED * 256, "http://" * 1100, "a_" * 4096]
    started = time.perf_counter()
    for body in bodies:
        assert rules.secret_label(body) is None
    assert time.perf_counter() - started < 1.0  # was quadratic on long token runs


def test_a_huge_slug_is_refused_without_echoing_it() -> None:
    huge = "记忆" * 1_000_000 + "-x"
    with pytest.raises(errors.SlugInvalid) as caught:
        rules.normalize_slug(huge)
    assert len(caught.value.message) < 400
    suggestion = caught.value.suggested_next_call
    assert suggestion is not None and suggestion["slug"].startswith("ji-yi-ji-yi")
    assert rules.SLUG_PATTERN.match(suggestion["slug"])


def test_the_gated_secret_pre_check_says_what_a_look_for_every_anchor_says() -> None:
    """may_hold_secret looks for a gate character before its needles (issue 17): it must
    answer exactly as looking for every anchor would, on each anchor and on random text."""

    def plain(text: str) -> bool:
        anchors = rules._ANCHOR_NEEDLES  # noqa: SLF001 (the reference the gates must match)
        return any(a in text for a in anchors) or bool(re.search(r"(?i)aws_?secret", text))

    for anchor in rules._ANCHOR_NEEDLES:  # noqa: SLF001
        assert rules.may_hold_secret(f"plain words {anchor} more words")
    rng = random.Random(17)
    alphabet = "aAbBcCkKsSgGhHpPxXoOjJyY0123_-.:=/ wWeEtTrR"
    answers = []
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        answers.append(rules.may_hold_secret(text))
        assert answers[-1] == plain(text), text
    assert any(answers) and not all(answers)  # both answers were tried


def test_an_unknown_type_names_the_types_that_would_do() -> None:
    """A write offers the types a memory may have; a read's filter, which may ask for journal
    days, offers `daily` too."""
    with pytest.raises(errors.InvalidType) as write:
        rules.normalize_type("nosuch")
    assert "use one of feedback, project, reference, skill, user)" in write.value.message
    with pytest.raises(errors.InvalidType) as read:
        rules.normalize_type("nosuch", allow_daily=True)
    assert "use one of daily, feedback, project, reference, skill, user)" in read.value.message
    assert rules.normalize_type("daily", allow_daily=True) is MemoryType.DAILY
