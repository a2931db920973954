"""Settings file (JSON in the store's home) and API keys (OS keyring only), with real files."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import keyring
import keyring.backends.null
import keyring.errors
import pytest
from keyring.backend import KeyringBackend

from liveagent_memory.commands import call, dispatch
from liveagent_memory.domain import errors
from liveagent_memory.domain.config import PROJECTS_MAX_ROOTS
from liveagent_memory.llm.keys import resolve_api_key
from liveagent_memory.settings import (
    PURPOSES,
    KeptSecretStore,
    ModelChoice,
    OrganizerSettings,
    SecretStore,
    Settings,
    load_settings,
    model_config,
    save_settings,
    settings_path,
)
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import cli_call, run_cli
from tests.helpers.fakes import CountingKeyring, FakeClock, FakeKeyring, MemoryKeyring
from tests.helpers.gates import assert_every_memory_works

SERVICE = "liveagent-memory"
KEY = "sk-live-abcdefghijklmnopqrstuvwxyz0123"


def files_containing(folder: Path, needle: str) -> list[Path]:
    """Every file under `folder` whose bytes contain `needle`."""
    if not folder.exists():
        return []
    return [
        path
        for path in folder.rglob("*")
        if path.is_file() and needle.encode() in path.read_bytes()
    ]


class PlaintextFileKeyring(FakeKeyring):
    """Stands in for keyrings.alt's plain-text file backend: it would write keys to a file."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def get_password(self, service: str, username: str) -> str | None:
        if not self.path.exists():
            return None
        value: str | None = json.loads(self.path.read_text()).get(f"{service}/{username}")
        return value

    def set_password(self, service: str, username: str, password: str) -> None:
        data = json.loads(self.path.read_text()) if self.path.exists() else {}
        data[f"{service}/{username}"] = password
        self.path.write_text(json.dumps(data))

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.PasswordDeleteError("not found")


PlaintextFileKeyring.__module__ = "keyrings.alt.file"


class ChainedKeyring(FakeKeyring):
    """Like keyring's ChainerBackend: writes go to the first backend, reads try each."""

    def __init__(self, backends: list[KeyringBackend]) -> None:
        super().__init__()
        self.backends = backends

    def get_password(self, service: str, username: str) -> str | None:
        for backend in self.backends:
            value = backend.get_password(service, username)
            if value is not None:
                return value
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self.backends[0].set_password(service, username, password)

    def delete_password(self, service: str, username: str) -> None:
        self.backends[0].delete_password(service, username)


class BrokenKeyring(FakeKeyring):
    """A secure-looking keyring that is locked: every operation fails."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError(f"could not store {password}")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.KeyringLocked("locked")


# --- Settings: defaults, round trip -----------------------------------------------------------


def test_defaults() -> None:
    settings = Settings()
    assert settings.default == ModelChoice(model="", api_base="")
    assert settings.extraction == ModelChoice()
    assert settings.organizer_model == ModelChoice()
    assert settings.reviewer_mode == "standard"
    assert settings.extraction_enabled is True
    assert settings.language == ""
    assert settings.organizer == OrganizerSettings(
        schedule="none", time_of_day="03:00", weekday=1, scope="all", mode="conservative"
    )
    assert Settings.from_dict({}) == settings


def test_missing_file_gives_defaults_and_creates_nothing(home: Path) -> None:
    assert load_settings(home) == Settings()
    assert not settings_path(home).exists()


def test_save_and_load_round_trip_private_and_without_keys(
    store: MemoryStore, memory_keyring: MemoryKeyring
) -> None:
    SecretStore().set("default", KEY)
    settings = Settings.from_dict(
        {
            "default": {"model": "openai/gpt-4o-mini", "api_base": "https://api.example.com/v1"},
            "extraction": {"model": "anthropic/claude-3-haiku"},
            "reviewer_mode": "strict",
            "extraction_enabled": False,
            "organizer": {"schedule": "weekly", "time_of_day": "23:59", "weekday": 7},
            "language": "zh_CN",
        }
    )

    path = save_settings(store.root, settings)

    assert path == settings_path(store.root) == store.root / "settings.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_settings(store.root) == settings
    text = path.read_text(encoding="utf-8")
    assert json.loads(text)["default"]["model"] == "openai/gpt-4o-mini"
    assert KEY not in text
    assert "api_key" not in text
    assert files_containing(store.root, KEY) == []
    assert memory_keyring.secrets == {(SERVICE, "default"): KEY}


def test_to_dict_round_trips() -> None:
    settings = Settings(
        default=ModelChoice("openai/x", "http://localhost:8000/v1"),
        organizer=OrganizerSettings(schedule="daily", time_of_day="00:00"),
    )
    assert Settings.from_dict(settings.to_dict()) == settings


def test_model_and_api_base_are_trimmed() -> None:
    settings = Settings.from_dict(
        {"default": {"model": "  openai/x  ", "api_base": " http://h:1/v1 "}}
    )
    assert settings.default == ModelChoice("openai/x", "http://h:1/v1")


# --- Settings: validation ---------------------------------------------------------------------


@pytest.mark.parametrize("data", [[], "text", None, 3, [["default", {}]]])
def test_from_dict_needs_an_object(data: Any) -> None:
    with pytest.raises(errors.SettingsInvalid, match="JSON object"):
        Settings.from_dict(data)


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"api_key": KEY}, "api_key", "Unknown settings: api_key."),
        ({"modle": "x", "zeta": 1}, "modle", "Unknown settings: modle, zeta."),
        ({"default": "openai/x"}, "default", "The default model must be an object"),
        ({"default": None}, "default", "The default model must be an object"),
        ({"default": {"model": 5}}, "default.model", "The default model's model name must be"),
        ({"extraction": {"model": "m", "api_key": KEY}}, "extraction", "must be"),
        (
            {"organizer_model": {"api_base": ["x"]}},
            "organizer_model.api_base",
            "The organizer's model's base URL must be text",
        ),
        (
            {"default": {"api_base": "ftp://host"}},
            "default.api_base",
            "The default model's base URL must start with http:// or https://.",
        ),
        (
            {"default": {"api_base": "localhost:8000"}},
            "default.api_base",
            "must start with http://",
        ),
        ({"reviewer_mode": "paranoid"}, "reviewer_mode", "The reviewer mode must be one of"),
        ({"reviewer_mode": 1}, "reviewer_mode", "The reviewer mode must be one of"),
        ({"language": "fr"}, "language", "The language must be one of"),
        ({"organizer": []}, "organizer", "The organizer settings must be an object"),
        ({"organizer": {"when": "now"}}, "organizer.when", "Unknown organizer settings: when."),
        ({"organizer": {"schedule": "hourly"}}, "organizer.schedule", "must be one of"),
        ({"organizer": {"scope": "everything"}}, "organizer.scope", "must be one of"),
        ({"organizer": {"mode": "wild"}}, "organizer.mode", "must be one of"),
    ],
)
def test_from_dict_rejects_bad_values(data: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(errors.SettingsInvalid) as info:
        Settings.from_dict(data)
    assert info.value.code == "settings_invalid"
    assert info.value.field == field
    assert message in info.value.message
    assert KEY not in info.value.message


@pytest.mark.parametrize("value", ["yes", 1, None, "true"])
def test_extraction_enabled_must_be_a_boolean(value: Any) -> None:
    with pytest.raises(errors.SettingsInvalid, match="The extraction switch must be true or false"):
        Settings.from_dict({"extraction_enabled": value})


@pytest.mark.parametrize(
    "value", ["24:00", "3:00", "03:60", "0300", "ab:cd", "03:00:00", "", 300, None, "-1:00"]
)
def test_organizer_time_must_be_hh_mm(value: Any) -> None:
    with pytest.raises(errors.SettingsInvalid, match="HH:MM") as info:
        Settings.from_dict({"organizer": {"time_of_day": value}})
    assert info.value.field == "organizer.time_of_day"


@pytest.mark.parametrize("value", ["00:00", "23:59", "12:30"])
def test_organizer_time_accepts_valid_times(value: str) -> None:
    assert Settings.from_dict({"organizer": {"time_of_day": value}}).organizer.time_of_day == value


@pytest.mark.parametrize("value", [0, 8, -1, True, "1", 1.0, None])
def test_organizer_weekday_must_be_1_to_7(value: Any) -> None:
    with pytest.raises(errors.SettingsInvalid) as info:
        Settings.from_dict({"organizer": {"weekday": value}})
    assert info.value.field == "organizer.weekday"


@pytest.mark.parametrize("value", [-1, True, "1700000000000", 1.5])
def test_organizer_saved_at_must_be_epoch_ms_or_null(value: Any) -> None:
    with pytest.raises(errors.SettingsInvalid) as info:
        Settings.from_dict({"organizer": {"saved_at": value}})
    assert info.value.field == "organizer.saved_at"
    assert Settings.from_dict({"organizer": {"saved_at": None}}).organizer.saved_at is None
    assert Settings.from_dict({"organizer": {"saved_at": 5}}).organizer.saved_at == 5


def test_saving_a_schedule_marks_when_it_was_saved(home: Path, clock: FakeClock) -> None:
    """The scheduler counts only runs missed after this mark (issue 14)."""
    # A file from before the mark: it loads, without one.
    home.mkdir(parents=True)
    settings_path(home).write_text('{"organizer": {"schedule": "daily"}}', "utf-8")
    assert load_settings(home).organizer.saved_at is None

    weekly = {"schedule": "weekly", "time_of_day": "07:30", "weekday": 3}
    cli_call(home, clock, "settings_save_memory", {"settings": {"organizer": weekly}})
    assert load_settings(home).organizer.saved_at == clock.ms

    saved_ms = clock.ms
    clock.advance(days=1)
    other = {"organizer": {"mode": "standard"}, "language": "en"}
    code, _ = cli_call(home, clock, "settings_save_memory", {"settings": other})
    assert code == 0
    kept = load_settings(home).organizer
    assert (kept.mode, kept.saved_at) == ("standard", saved_ms)  # the schedule did not change

    cli_call(home, clock, "settings_save_memory", {"settings": {"organizer": {"weekday": 4}}})
    assert load_settings(home).organizer == OrganizerSettings(
        schedule="weekly",
        time_of_day="07:30",
        weekday=4,
        mode="standard",
        saved_at=clock.ms,
    )


def test_a_settings_file_that_is_not_utf8_is_a_typed_error_everywhere(
    store: MemoryStore,
) -> None:
    path = settings_path(store.root)
    path.write_bytes(b"\xff\xfe{}")
    code, out, err = run_cli("--home", str(store.root), "settings", "--json")

    assert (code, json.loads(out)["error"]) == (1, "settings_invalid")
    assert "is not UTF-8 text (byte 0)" in out and "Traceback" not in err
    assert path.read_bytes() == b"\xff\xfe{}"
    assert dispatch(store, "memory_list", {})["entries"] == []  # the memory still opens


def test_broken_json_file_is_reported_and_left_untouched(store: MemoryStore) -> None:
    path = settings_path(store.root)
    broken = b'{\n  "default": {"model": "openai/x",\n}\n'
    path.write_bytes(broken)

    with pytest.raises(errors.SettingsInvalid) as info:
        load_settings(store.root)
    message = info.value.message
    assert str(path) in message
    assert "not valid JSON" in message
    assert "line 3" in message
    assert "fix or delete it" in message

    # Saving over it refuses too: a person's file is never silently replaced.
    with pytest.raises(errors.SettingsInvalid):
        dispatch(store, "settings_save_memory", {"settings": {"reviewer_mode": "strict"}})
    assert path.read_bytes() == broken


def test_file_with_wrong_values_is_settings_invalid(home: Path) -> None:
    home.mkdir(parents=True)
    settings_path(home).write_text('{"reviewer_mode": "nope"}', encoding="utf-8")
    with pytest.raises(errors.SettingsInvalid, match="The reviewer mode must be one of") as info:
        load_settings(home)
    assert info.value.field == "reviewer_mode"


def test_unreadable_settings_path_is_settings_invalid(home: Path) -> None:
    settings_path(home).mkdir(parents=True)  # a folder where the file should be
    with pytest.raises(errors.SettingsInvalid, match="cannot read"):
        load_settings(home)


# --- Settings: merge and model_for ------------------------------------------------------------


def test_merged_merges_nested_objects() -> None:
    base = Settings.from_dict(
        {
            "default": {"model": "openai/a", "api_base": "http://local:1/v1"},
            "organizer": {"schedule": "daily", "time_of_day": "04:30", "weekday": 3},
        }
    )

    merged = base.merged({"default": {"model": "openai/b"}, "organizer": {"weekday": 5}})

    assert merged.default == ModelChoice("openai/b", "http://local:1/v1")
    assert merged.organizer == OrganizerSettings(schedule="daily", time_of_day="04:30", weekday=5)
    assert base.default.model == "openai/a"  # the original is unchanged


def test_merged_replaces_scalars_and_validates() -> None:
    base = Settings()
    assert base.merged({"extraction_enabled": False}).extraction_enabled is False
    assert base.merged({}) == base
    with pytest.raises(errors.SettingsInvalid):
        base.merged({"organizer": {"weekday": 9}})
    with pytest.raises(errors.SettingsInvalid):
        base.merged({"organizer": "weekly"})
    with pytest.raises(errors.CredentialInSettings, match="system keyring"):
        base.merged({"api_key": KEY})  # a key is pointed to the keyring, not "unknown"


def test_model_for_falls_back_to_default() -> None:
    default = ModelChoice("openai/default", "http://d:1/v1")
    settings = Settings(default=default)
    for purpose in PURPOSES:
        assert settings.model_for(purpose) == default
    assert settings.model_for("unknown-purpose") == default

    own = Settings(
        default=default,
        extraction=ModelChoice("openai/extract"),
        organizer_model=ModelChoice("openai/organize", "http://o:1/v1"),
    )
    assert own.model_for("extraction") == ModelChoice("openai/extract")
    assert own.model_for("organizer") == ModelChoice("openai/organize", "http://o:1/v1")
    assert own.model_for("default") == default
    # A blank model does not count as a choice.
    assert Settings(default=default, extraction=ModelChoice("   ")).model_for("extraction") == (
        default
    )


def test_model_config_composes_settings_key_and_overrides() -> None:
    secrets = SecretStore()
    secrets.set("extraction", KEY)
    settings = Settings(
        default=ModelChoice("openai/default", "http://d:1/v1"),
        extraction=ModelChoice("openai/extract"),
    )

    cfg = model_config(settings, secrets, "extraction")
    assert (cfg.model, cfg.api_base, cfg.api_key) == ("openai/extract", None, KEY)

    cfg = model_config(settings, secrets, "default", model=" openai/cli ", api_base="http://c/v1")
    assert (cfg.model, cfg.api_base, cfg.api_key) == ("openai/cli", "http://c/v1", None)
    assert KEY not in repr(model_config(settings, secrets, "extraction"))


def test_a_purpose_on_the_default_model_uses_the_default_key() -> None:
    secrets = SecretStore()
    secrets.set("default", "sk-default-0000")
    secrets.set("organizer", "sk-organizer-1111")  # left over from an organizer model
    settings = Settings(default=ModelChoice("openai/default"))  # no organizer model now

    cfg = model_config(settings, secrets, "organizer")

    assert (cfg.model, cfg.api_key) == ("openai/default", "sk-default-0000")
    own = Settings(default=ModelChoice("openai/default"), organizer_model=ModelChoice("x/org"))
    assert model_config(own, secrets, "organizer").api_key == "sk-organizer-1111"


# --- SecretStore ------------------------------------------------------------------------------


def test_secret_store_set_get_has_clear(memory_keyring: MemoryKeyring) -> None:
    secrets = SecretStore()
    assert secrets.status().available is True
    assert secrets.get("default") is None
    assert secrets.has("default") is False

    secrets.set("default", f"  {KEY}\n")

    assert memory_keyring.secrets == {(SERVICE, "default"): KEY}
    assert secrets.get("default") == KEY
    assert secrets.has("default") is True
    assert secrets.clear("default") is True
    assert secrets.clear("default") is False
    assert secrets.get("default") is None
    assert memory_keyring.secrets == {}


def test_secret_store_falls_back_to_default_per_purpose(memory_keyring: MemoryKeyring) -> None:
    secrets = SecretStore()
    secrets.set("default", "sk-default-key")
    assert secrets.get("extraction") == "sk-default-key"
    assert secrets.get("organizer") == "sk-default-key"

    secrets.set("extraction", "sk-extraction-key")
    assert secrets.get("extraction") == "sk-extraction-key"
    assert secrets.get("organizer") == "sk-default-key"
    assert memory_keyring.secrets[(SERVICE, "extraction")] == "sk-extraction-key"

    secrets.clear("default")
    assert secrets.get("organizer") is None
    assert secrets.has("organizer") is False
    assert resolve_api_key(secrets, "extraction") == "sk-extraction-key"


def test_secret_store_uses_an_explicit_backend(memory_keyring: MemoryKeyring) -> None:
    own = MemoryKeyring()
    SecretStore(own).set("organizer", KEY)
    assert own.secrets == {(SERVICE, "organizer"): KEY}
    assert memory_keyring.secrets == {}


def test_a_kept_secret_store_reads_each_key_once_until_it_changes() -> None:
    backend = CountingKeyring()
    backend.set_password(SERVICE, "default", KEY)
    kept = KeptSecretStore(backend)

    assert [kept.get("default") for _ in range(3)] == [KEY] * 3
    assert kept.get("organizer") == KEY  # its own read: no organizer key, then the default
    assert backend.reads == 3

    kept.set("organizer", "sk-organizer-key")  # a change here forgets what was kept
    assert kept.get("organizer") == "sk-organizer-key" and backend.reads == 4
    assert kept.clear("organizer") is True
    assert kept.get("organizer") == KEY and backend.reads == 6
    assert kept.get("default") == KEY and backend.reads == 7

    backend.set_password(SERVICE, "default", "sk-changed-elsewhere")  # another program
    assert kept.get("default") == KEY and backend.reads == 7  # still the kept one ...
    kept.forget()  # ... until the app is told (F5)
    assert kept.get("default") == "sk-changed-elsewhere"
    assert resolve_api_key(kept, "default") == "sk-changed-elsewhere"


def test_a_kept_secret_store_keeps_no_failure(memory_keyring: MemoryKeyring) -> None:
    keyring.set_keyring(keyring.backends.fail.Keyring())  # restored by memory_keyring
    kept = KeptSecretStore()
    for _ in range(2):
        with pytest.raises(errors.KeyringUnavailable) as caught:
            kept.get("default")
        assert caught.value.code == "keyring_unavailable"
    keyring.set_keyring(memory_keyring)
    memory_keyring.set_password(SERVICE, "default", KEY)
    assert kept.get("default") == KEY  # the keyring works again: read, not a kept failure


@pytest.mark.parametrize("purpose", ["", "chat", "DEFAULT", "default "])
def test_unknown_purpose_is_refused(purpose: str, memory_keyring: MemoryKeyring) -> None:
    secrets = SecretStore()
    for action in (
        lambda: secrets.set(purpose, KEY),
        lambda: secrets.get(purpose),
        lambda: secrets.clear(purpose),
    ):
        with pytest.raises(errors.SettingsInvalid, match="unknown purpose") as info:
            action()
        assert info.value.field == "purpose"
    assert memory_keyring.secrets == {}


@pytest.mark.parametrize("secret", ["", "   ", "\n\t"])
def test_empty_key_is_refused(secret: str, memory_keyring: MemoryKeyring) -> None:
    with pytest.raises(errors.SettingsInvalid, match="empty") as info:
        SecretStore().set("default", secret)
    assert info.value.field == "api_key"
    assert memory_keyring.secrets == {}


@pytest.mark.usefixtures("no_keyring")
def test_no_keyring_refuses_with_a_clear_message_and_writes_nothing(
    store: MemoryStore, tmp_path: Path
) -> None:
    secrets = SecretStore()
    status = secrets.status()
    assert status.available is False
    assert status.backend.startswith("keyring.backends.fail")
    assert "No secure keyring" in status.message
    assert "environment variable" in status.message

    with pytest.raises(errors.KeyringUnavailable) as info:
        secrets.set("default", KEY)
    assert info.value.code == "keyring_unavailable"
    assert "never written to a file" in info.value.message
    assert KEY not in info.value.message
    with pytest.raises(errors.KeyringUnavailable):
        secrets.get("default")
    with pytest.raises(errors.KeyringUnavailable):
        secrets.clear("default")
    assert secrets.has("default") is False
    assert resolve_api_key(secrets, "extraction") is None
    assert model_config(Settings(), secrets, "default", model="openai/x").api_key is None
    assert files_containing(tmp_path, KEY) == []
    assert files_containing(store.root, KEY) == []


@pytest.mark.parametrize(
    "make_backend",
    [
        lambda tmp: keyring.backends.null.Keyring(),
        lambda tmp: PlaintextFileKeyring(tmp / "keyring_pass.cfg"),
        lambda tmp: ChainedKeyring(
            [PlaintextFileKeyring(tmp / "keyring_pass.cfg"), MemoryKeyring()]
        ),
        lambda tmp: ChainedKeyring([]),
    ],
    ids=["null", "plaintext-file", "chainer-plaintext-first", "empty-chainer"],
)
def test_insecure_backends_are_refused(
    make_backend: Callable[[Path], KeyringBackend], tmp_path: Path
) -> None:
    backend = make_backend(tmp_path)
    for secrets in (SecretStore(backend), SecretStore()):
        keyring.set_keyring(backend)  # both explicit and as the process-wide keyring
        assert secrets.status().available is False
        with pytest.raises(errors.KeyringUnavailable):
            secrets.set("default", KEY)
        assert resolve_api_key(secrets, "default") is None
    assert not (tmp_path / "keyring_pass.cfg").exists()
    assert files_containing(tmp_path, KEY) == []


def test_chainer_with_a_secure_first_backend_is_used(tmp_path: Path) -> None:
    secure = MemoryKeyring()
    chained = ChainedKeyring([secure, PlaintextFileKeyring(tmp_path / "keyring_pass.cfg")])
    secrets = SecretStore(chained)
    assert secrets.status().available is True
    secrets.set("default", KEY)
    assert secure.secrets == {(SERVICE, "default"): KEY}
    assert files_containing(tmp_path, KEY) == []


def test_keyring_errors_become_keyring_unavailable_without_the_key() -> None:
    secrets = SecretStore(BrokenKeyring())
    assert secrets.status().available is True  # it looks usable until it is used
    with pytest.raises(errors.KeyringUnavailable) as info:
        secrets.set("default", KEY)
    assert KEY not in info.value.message
    assert "PasswordSetError" in info.value.message
    with pytest.raises(errors.KeyringUnavailable, match="KeyringLocked"):
        secrets.get("default")
    with pytest.raises(errors.KeyringUnavailable):
        secrets.clear("default")
    assert secrets.has("default") is False
    assert resolve_api_key(secrets, "default") is None


# --- settings commands ------------------------------------------------------------------------


def test_settings_get_reports_settings_and_keyring_but_never_a_key(
    store: MemoryStore,
) -> None:
    empty = dispatch(store, "settings_get")
    assert empty["settings"] == Settings().to_dict()
    assert empty["keyring"]["available"] is True
    assert empty["keys"] == {"default": False, "extraction": False, "organizer": False}

    SecretStore().set("default", KEY)
    SecretStore().set("organizer", "sk-organizer-secret-123")
    result = dispatch(store, "settings_get", {})

    assert result["keys"]["default"] is True
    assert result["keys"]["organizer"] is True
    text = json.dumps(result)
    assert KEY not in text
    assert "sk-organizer-secret-123" not in text


@pytest.mark.usefixtures("no_keyring")
def test_settings_get_without_a_keyring(store: MemoryStore) -> None:
    result = dispatch(store, "settings_get")
    assert result["keyring"]["available"] is False
    assert "No secure keyring" in result["keyring"]["message"]
    assert set(result["keys"].values()) == {False}


def test_settings_save_memory_merges_and_persists(store: MemoryStore) -> None:
    SecretStore().set("default", KEY)
    dispatch(
        store,
        "settings_save_memory",
        {"settings": {"default": {"model": "openai/a", "api_base": "http://local:1/v1"}}},
    )

    result = dispatch(
        store,
        "settings_save_memory",
        {"settings": {"default": {"model": "openai/b"}, "organizer": {"schedule": "daily"}}},
    )

    assert result["settings"]["default"] == {"model": "openai/b", "api_base": "http://local:1/v1"}
    assert result["settings"]["organizer"]["schedule"] == "daily"
    assert result["settings"]["organizer"]["time_of_day"] == "03:00"
    assert KEY not in json.dumps(result)
    saved = load_settings(store.root)
    assert saved.default == ModelChoice("openai/b", "http://local:1/v1")
    assert dispatch(store, "settings_get")["settings"] == saved.to_dict()
    assert files_containing(store.root, KEY) == []


@pytest.mark.parametrize(
    "patch",
    [
        {"reviewer_mode": "paranoid"},
        {"organizer": {"time_of_day": "7pm"}},
        {"default": {"api_base": "file:///etc/passwd"}},
        {"extraction_enabled": "no"},
    ],
)
def test_settings_save_memory_rejects_bad_settings(
    store: MemoryStore, patch: dict[str, Any]
) -> None:
    dispatch(store, "settings_save_memory", {"settings": {"reviewer_mode": "lenient"}})
    before = settings_path(store.root).read_bytes()

    with pytest.raises(errors.SettingsInvalid) as info:
        dispatch(store, "settings_save_memory", {"settings": patch})
    assert info.value.code == "settings_invalid"
    assert KEY not in info.value.message

    ok, response = call(store, "settings_save_memory", {"settings": patch})
    assert ok is False
    assert response["error"] == "settings_invalid"
    assert KEY not in json.dumps(response)
    assert settings_path(store.root).read_bytes() == before
    assert files_containing(store.root, KEY) == []


def test_settings_save_memory_payload_shape_is_checked(store: MemoryStore) -> None:
    for payload in ({}, {"settings": "strict"}, {"settings": {}, "extra": 1}):
        with pytest.raises(errors.InvalidArgument):
            dispatch(store, "settings_save_memory", payload)
    assert not settings_path(store.root).exists()


def test_embedding_providers_are_part_of_the_settings(tmp_path: Path) -> None:
    chain = [{"provider": "openai", "model": "text-embedding-3-small", "api_base": None}]
    settings = Settings.from_dict({"embeddings": chain})
    assert settings.embeddings == (
        {"provider": "openai", "model": "text-embedding-3-small", "api_base": ""},
    )
    save_settings(tmp_path, settings)
    assert load_settings(tmp_path).embeddings == settings.embeddings
    for bad in ("openai", [["openai"]], [{"provider": 3}]):
        with pytest.raises(errors.SettingsInvalid):
            Settings.from_dict({"embeddings": bad})


def test_discovery_roots_round_trip_through_the_file(tmp_path: Path) -> None:
    assert Settings().discovery_roots == ()
    settings = Settings.from_dict({"discovery_roots": ["/src/code", " ~/projects ", "/src/code"]})
    assert settings.discovery_roots == ("/src/code", "~/projects")  # trimmed, once each

    save_settings(tmp_path, settings)

    saved = json.loads(settings_path(tmp_path).read_text(encoding="utf-8"))
    assert saved["discovery_roots"] == ["/src/code", "~/projects"]
    assert load_settings(tmp_path) == settings
    assert Settings.from_dict(settings.to_dict()) == settings


def test_discovery_roots_saved_through_the_command_keep_the_other_settings(
    store: MemoryStore,
) -> None:
    dispatch(store, "settings_save_memory", {"settings": {"language": "zh_CN"}})

    view = dispatch(store, "settings_save_memory", {"settings": {"discovery_roots": ["/a", "/b"]}})

    assert list(view["settings"]["discovery_roots"]) == ["/a", "/b"]
    assert load_settings(store.root).language == "zh_CN"
    assert load_settings(store.root).discovery_roots == ("/a", "/b")


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("/src/code", "discovery_roots"),
        ([""], "discovery_roots[0]"),
        (["/a", 3], "discovery_roots[1]"),
        ([f"/x{i}" for i in range(PROJECTS_MAX_ROOTS + 1)], "discovery_roots"),
    ],
)
def test_discovery_roots_must_be_a_short_list_of_paths(value: Any, field: str) -> None:
    with pytest.raises(errors.SettingsInvalid) as caught:
        Settings.from_dict({"discovery_roots": value})
    assert caught.value.field == field


# --- keys and credentials never reach settings.json (issue 12) --------------------------------
TOKEN = "s3cr3t-T0ken-9f8e7d"
OPENAI_KEY = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7" * 3


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"api_key": KEY}, "api_key"),
        ({"default": {"model": "openai/x", "api_key": KEY}}, "default.api_key"),
        (
            {
                "embeddings": [
                    {"provider": "openai", "model": "text-embedding-3-small", "api_key": KEY}
                ]
            },
            "embeddings[0].api_key",
        ),
        (
            {"embeddings": [{"provider": "openai", "model": "m", "token": KEY}]},
            "embeddings[0].token",
        ),
        (
            {"default": {"model": "openai/x", "api_base": f"http://user:{TOKEN}@gpu-box:8000/v1"}},
            "default.api_base",
        ),
        (
            {"extraction": {"api_base": f"https://{TOKEN}@llm.example.com/v1"}},
            "extraction.api_base",
        ),
        (
            {
                "embeddings": [
                    {"provider": "openai", "model": "m", "api_base": f"https://h/v1?key={TOKEN}"}
                ]
            },
            "embeddings[0].api_base",
        ),
        ({"organizer_model": {"model": OPENAI_KEY}}, "organizer_model.model"),  # the wrong box
    ],
)
def test_settings_save_memory_refuses_keys_and_points_to_the_keyring(
    store: MemoryStore, home: Path, clock: FakeClock, patch: dict[str, Any], field: str
) -> None:
    dispatch(
        store,
        "memory_write",
        {
            "slug": "tea-pref",
            "scope": "global",
            "type": "user",
            "description": "Tea",
            "body": "The user drinks green tea.",
        },
    )
    dispatch(store, "settings_save_memory", {"settings": {"reviewer_mode": "lenient"}})
    before = settings_path(home).read_bytes()
    secret = {"api_key": KEY, "token": KEY, "model": OPENAI_KEY}.get(
        field.rsplit(".", 1)[-1], TOKEN
    )

    code, out = cli_call(home, clock, "settings_save_memory", {"settings": patch})

    assert code == 1 and out["error"] == "credential_in_settings" and out["field"] == field
    assert "system keyring" in out["message"]
    assert secret not in json.dumps(out)  # the key is never echoed
    assert settings_path(home).read_bytes() == before
    assert files_containing(home, secret) == []
    with pytest.raises(errors.SettingsInvalid):  # still a settings error for older callers
        dispatch(store, "settings_save_memory", {"settings": patch})
    # Nothing else broke: settings read and save, and every memory still works.
    assert dispatch(store, "settings_get")["settings"]["reviewer_mode"] == "lenient"
    clean = {"default": {"model": "openai/x", "api_base": "http://gpu-box:8000/v1"}}
    assert dispatch(store, "settings_save_memory", {"settings": clean})["settings"]["default"]
    assert_every_memory_works(home, clock, {"tea-pref": "green"})


@pytest.mark.parametrize(
    "patch",
    [
        {"default": {"model": "openai/gpt-4o-mini", "api_base": "http://localhost:11434/v1"}},
        {"default": {"api_base": "https://x.openai.azure.com/v1?api-version=2024-06-01"}},
        {"embeddings": [{"provider": "openai", "model": "m", "key_purpose": "extraction"}]},
        {"discovery_roots": ["/home/me/src/sk-learn-notes"]},
    ],
)
def test_ordinary_settings_are_not_mistaken_for_keys(
    store: MemoryStore, patch: dict[str, Any]
) -> None:
    saved = dispatch(store, "settings_save_memory", {"settings": patch})["settings"]
    assert saved == load_settings(store.root).to_dict()


def test_a_provider_chain_with_a_credential_url_is_refused_when_used(store: MemoryStore) -> None:
    providers = [{"provider": "openai", "model": "m", "api_base": f"http://u:{TOKEN}@h:1/v1"}]
    ok, error = call(store, "embeddings_status", {"providers": providers})
    assert not ok and error["error"] == "credential_in_settings"
    assert error["field"] == "providers[0].api_base" and TOKEN not in json.dumps(error)


def test_the_bridge_port_is_saved_and_a_bad_one_is_refused_by_name(store: MemoryStore) -> None:
    assert Settings().bridge_port == 8765
    saved = dispatch(store, "settings_save_memory", {"settings": {"bridge_port": 9100}})
    assert saved["settings"]["bridge_port"] == 9100
    for bad in (-1, 65536, "9100", True, 1.5):
        with pytest.raises(errors.SettingsInvalid) as refused:
            dispatch(store, "settings_save_memory", {"settings": {"bridge_port": bad}})
        assert (refused.value.code, refused.value.field) == ("settings_invalid", "bridge_port")
        assert "web bridge's port" in refused.value.message
    assert load_settings(store.root).bridge_port == 9100  # the refusals changed nothing


def test_the_sync_timer_is_off_by_default_and_a_bad_interval_is_refused(
    store: MemoryStore,
) -> None:
    assert Settings().sync_interval_minutes == 0
    saved = dispatch(store, "settings_save_memory", {"settings": {"sync_interval_minutes": 30}})
    assert saved["settings"]["sync_interval_minutes"] == 30
    for bad in (-1, 1441, "30", True, 2.5):
        with pytest.raises(errors.SettingsInvalid) as refused:
            dispatch(store, "settings_save_memory", {"settings": {"sync_interval_minutes": bad}})
        assert refused.value.field == "sync_interval_minutes"
        assert "git sync's interval" in refused.value.message
    assert load_settings(store.root).sync_interval_minutes == 30
