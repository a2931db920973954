"""App settings (a JSON file in the store's home) and API keys (the OS keyring, nowhere else).

Settings are one frozen dataclass with defaults; the file holds no secrets. Keys go through
`SecretStore`, which refuses to work — with a message saying what to do — when the only keyring
backends available would fail or write the key in plain text. `KeptSecretStore` is the desktop
app's: it reads each key once and keeps it until it changes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qsl, urlsplit

from liveagent_memory.domain import config, web_config
from liveagent_memory.domain.errors import (
    CredentialInSettings,
    KeyringUnavailable,
    SettingsInvalid,
)
from liveagent_memory.llm.client import ModelConfig
from liveagent_memory.llm.keys import resolve_api_key
from liveagent_memory.store.files import atomic_write
from liveagent_memory.store.rules import secret_label, texts_in

if TYPE_CHECKING:
    import keyring.backend


def _keyring_module() -> ModuleType:
    """keyring, imported on first use: its backend discovery costs ~0.2 s of app start-up."""
    import keyring
    import keyring.errors

    return keyring


PURPOSES = ("default", "extraction", "organizer")  # which calls a model setting serves
ORGANIZE_SCHEDULES = ("none", "daily", "weekly")  # REFERENCE A10
ORGANIZE_SCOPES = ("all", "global", "projects", "current-project")
ORGANIZE_MODES = ("conservative", "standard", "aggressive")
MAX_PORT = 65535  # TCP's port field (16 bits), not a tunable


@dataclass(frozen=True)
class ModelChoice:
    """A litellm model name and an optional base URL (for OpenAI-compatible servers)."""

    model: str = ""
    api_base: str = ""


@dataclass(frozen=True)
class OrganizerSettings:
    schedule: str = "none"
    time_of_day: str = "03:00"
    weekday: int = 1  # 1 = Monday … 7 = Sunday (REFERENCE A10 default)
    scope: str = "all"
    mode: str = "conservative"
    # When the schedule (schedule, time_of_day, weekday) was last saved, epoch ms: only due
    # moments after it count as missed. None (a file from before this field): unknown, read
    # as "saved now", so an old file never brings a surprise run at start-up.
    saved_at: int | None = None
    # Issue 18: after each scheduled run, a consolidation learns from the agents' episodes
    # (its proposals wait for review like any organizer proposal). Off unless chosen.
    learn: bool = False


@dataclass(frozen=True)
class Settings:
    """Everything a person can choose; empty per-purpose models fall back to `default`."""

    default: ModelChoice = field(default_factory=ModelChoice)
    extraction: ModelChoice = field(default_factory=ModelChoice)
    organizer_model: ModelChoice = field(default_factory=ModelChoice)
    reviewer_mode: str = config.DEFAULT_REVIEWER_MODE
    extraction_enabled: bool = True
    organizer: OrganizerSettings = field(default_factory=OrganizerSettings)
    language: str = ""  # "" follows the system locale; "en" or "zh_CN" pins it
    # The embedding providers in fallback order, each {provider, model, api_base?,
    # key_purpose?}; retrieval/embeddings.py validates the entries when it builds the chain.
    embeddings: tuple[dict[str, str], ...] = ()
    # Folders the Projects page searches for other memory stores (SPEC 6 cross-project index).
    discovery_roots: tuple[str, ...] = ()
    # The port the app's web bridge listens on ("Web and agents" page; 0: any free port).
    bridge_port: int = web_config.BRIDGE_DEFAULT_PORT
    # The app syncs the store with git every this many minutes (store/git_sync.py); 0: off,
    # the default (syncing is the person's choice; the Projects page's Sync bar).
    sync_interval_minutes: int = 0

    def model_for(self, purpose: str) -> ModelChoice:
        """The model serving `purpose`: its own choice, else the default one."""
        own = {"extraction": self.extraction, "organizer": self.organizer_model}.get(purpose)
        if own is not None and own.model.strip():
            return own
        return self.default

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        """Validate a JSON object; unknown keys and wrong types are SettingsInvalid."""
        if not isinstance(data, dict):
            raise SettingsInvalid("The settings must be a JSON object.")
        base = cls()
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsInvalid(f"Unknown settings: {', '.join(unknown)}.", field=unknown[0])
        values: dict[str, Any] = {}
        for name in ("default", "extraction", "organizer_model"):
            if name in data:
                values[name] = _model_choice(data[name], name)
        if "organizer" in data:
            values["organizer"] = _organizer(data["organizer"])
        if "reviewer_mode" in data:
            values["reviewer_mode"] = _choice(
                data["reviewer_mode"], config.REVIEWER_MODES, "reviewer_mode"
            )
        if "extraction_enabled" in data:
            if not isinstance(data["extraction_enabled"], bool):
                raise SettingsInvalid(
                    "The extraction switch must be true or false.", field="extraction_enabled"
                )
            values["extraction_enabled"] = data["extraction_enabled"]
        if "language" in data:
            values["language"] = _choice(data["language"], ("", "en", "zh_CN"), "language")
        if "embeddings" in data:
            values["embeddings"] = _embeddings(data["embeddings"])
        if "discovery_roots" in data:
            values["discovery_roots"] = _discovery_roots(data["discovery_roots"])
        if "bridge_port" in data:
            values["bridge_port"] = _port(data["bridge_port"], "bridge_port")
        if "sync_interval_minutes" in data:
            values["sync_interval_minutes"] = _sync_interval(data["sync_interval_minutes"])
        return dataclasses.replace(base, **values)

    def merged(self, patch: dict[str, Any]) -> Settings:
        """Return these settings with a partial JSON object applied (nested objects merge).

        A key in the patch is refused first (CredentialInSettings), so the answer points to
        the keyring instead of calling `api_key` an unknown setting.
        """
        refuse_credentials(patch)
        current = self.to_dict()
        for key, value in patch.items():
            if isinstance(value, dict) and isinstance(current.get(key), dict):
                current[key] = {**current[key], **value}
            else:
                current[key] = value
        return Settings.from_dict(current)


# Settings messages are read by a person (the Model page's details, the CLI): they name a
# setting in words; its JSON path stays in the error's `field` for programs (tests/
# test_messages.py holds the rule).
_SETTING_WORDS = {
    "default": "the default model",
    "extraction": "the extraction model",
    "organizer_model": "the organizer's model",
    "reviewer_mode": "the reviewer mode",
    "extraction_enabled": "the extraction switch",
    "language": "the language",
    "embeddings": "the embedding providers",
    "discovery_roots": "the folders to search for projects",
    "bridge_port": "the web bridge's port",
    "sync_interval_minutes": "the git sync's interval",
    "organizer": "the organizer settings",
    "organizer.schedule": "the organizer's schedule",
    "organizer.time_of_day": "the organizer's time of day",
    "organizer.weekday": "the organizer's weekday",
    "organizer.scope": "what the organizer works on",
    "organizer.mode": "the organizer's mode",
    "organizer.saved_at": "the time the organizer's schedule was saved",
    "organizer.learn": "whether scheduled runs also learn from episodes",
}
_PART_WORDS = {
    "api_base": "base URL",
    "model": "model name",
    "provider": "provider",
    "key_purpose": "key purpose",
}
_ITEM_WORDS = {"embeddings": "embedding provider", "discovery_roots": "project search folder"}
_ITEM = re.compile(r"(\w+)\[(\d+)\]")


def setting_words(path: str) -> str:
    """A setting's JSON path (`default.api_base`, `embeddings[0]`) in words a person reads:
    "the default model's base URL", "embedding provider 1"."""
    if path in _SETTING_WORDS:
        return _SETTING_WORDS[path]
    item = _ITEM.fullmatch(path)
    if item is not None and item[1] in _ITEM_WORDS:
        return f"{_ITEM_WORDS[item[1]]} {int(item[2]) + 1}"
    head, _, part = path.rpartition(".")
    if head and part in _PART_WORDS:
        return f"{setting_words(head)}'s {_PART_WORDS[part]}"
    return f'the setting "{path}"'  # a name the person wrote (e.g. an unknown key)


def _sentence(words: str) -> str:
    return words[:1].upper() + words[1:]


def _embeddings(value: Any) -> tuple[dict[str, str], ...]:
    """A list of objects with text values (the provider fields are checked where used)."""
    if not isinstance(value, list | tuple):  # a list in JSON, a tuple from to_dict()
        raise SettingsInvalid(
            "The embedding providers must be a list, each with a provider and a model.",
            field="embeddings",
        )
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not all(
            isinstance(v, str) or v is None for v in item.values()
        ):
            raise SettingsInvalid(
                f"{_sentence(setting_words(f'embeddings[{i}]'))} must be an object of text values.",
                field=f"embeddings[{i}]",
            )
        out.append({str(k): v or "" for k, v in item.items()})
    return tuple(out)


def _discovery_roots(value: Any) -> tuple[str, ...]:
    """Folder paths as text, none empty, at most as many as one discovery may walk."""
    if not isinstance(value, list | tuple):  # a list in JSON, a tuple from to_dict()
        raise SettingsInvalid(
            "The folders to search for projects must be a list of folder paths.",
            field="discovery_roots",
        )
    if len(value) > config.PROJECTS_MAX_ROOTS:
        raise SettingsInvalid(
            f"At most {config.PROJECTS_MAX_ROOTS} folders can be searched for projects, "
            f"not {len(value)}.",
            field="discovery_roots",
        )
    out: list[str] = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise SettingsInvalid(
                f"{_sentence(setting_words(f'discovery_roots[{i}]'))} must be a folder path.",
                field=f"discovery_roots[{i}]",
            )
        if item.strip() not in out:
            out.append(item.strip())
    return tuple(out)


def _port(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PORT:
        raise SettingsInvalid(
            f"{_sentence(setting_words(name))} must be a whole number from 0 to {MAX_PORT}.",
            field=name,
        )
    return value


def _sync_interval(value: Any) -> int:
    low, high = config.SYNC_INTERVAL_MINUTES_MIN, config.SYNC_INTERVAL_MINUTES_MAX
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not (value == 0 or low <= value <= high)
    ):
        raise SettingsInvalid(
            f"{_sentence(setting_words('sync_interval_minutes'))} must be 0 (off) or a whole "
            f"number of minutes from {low} to {high}.",
            field="sync_interval_minutes",
        )
    return value


def _choice(value: Any, allowed: tuple[str, ...], name: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise SettingsInvalid(
            f"{_sentence(setting_words(name))} must be one of {', '.join(map(repr, allowed))}.",
            field=name,
        )
    return value


def _text(data: dict[str, Any], key: str, name: str, *, limit: int) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise SettingsInvalid(
            f"{_sentence(setting_words(f'{name}.{key}'))} must be text.", field=f"{name}.{key}"
        )
    if len(value.strip()) > limit:  # settings.json is a small file a person can read
        raise SettingsInvalid(
            f"{_sentence(setting_words(f'{name}.{key}'))} is {len(value.strip())} characters; "
            f"the limit is {limit}.",
            field=f"{name}.{key}",
        )
    return value.strip()


def _model_choice(data: Any, name: str) -> ModelChoice:
    if not isinstance(data, dict) or set(data) - {"model", "api_base"}:
        raise SettingsInvalid(
            f"{_sentence(setting_words(name))} must be an object with a model and a base URL.",
            field=name,
        )
    # Only the scheme here: this also reads old files, and one that holds a credential URL
    # still loads (refuse_credentials stops a new one from being saved).
    api_base = _http_url(
        _text(data, "api_base", name, limit=config.MAX_URL_CHARS), f"{name}.api_base"
    )
    return ModelChoice(
        model=_text(data, "model", name, limit=config.MAX_NAME_CHARS), api_base=api_base
    )


# --- What settings never hold (SPEC 3, 7: API keys live in the OS keyring only) ------------------
_KEYRING_HINT = (
    "settings.json never holds keys or passwords: store the key in the system keyring "
    "(the Model & keys page, or `liveagent-memory key set`)"
)
# Field and URL-parameter names that carry a credential. `key_purpose` (which keyring entry a
# provider uses) is a name, not a key, and does not match.
_CREDENTIAL_NAME = re.compile(
    r"(?:api[_-]?key|apikey|key|(?:client[_-]?)?secret|(?:access[_-]?|auth[_-]?|api[_-]?)?token"
    r"|password|passwd|authorization|credentials?)\Z",
    re.IGNORECASE,
)


def _url_has_credentials(text: str) -> bool:
    """Whether a URL carries user info (user:password@host) or a key-like query parameter."""
    try:
        parts = urlsplit(text.strip())
        has_user = parts.username is not None or parts.password is not None
    except ValueError:  # not a URL we can read (e.g. a broken IPv6 host): nothing to find
        return False
    names = (name for name, _ in parse_qsl(parts.query, keep_blank_values=True))
    return has_user or any(_CREDENTIAL_NAME.match(name) for name in names)


def _http_url(value: str, where: str) -> str:
    if value and not value.startswith(("http://", "https://")):
        raise SettingsInvalid(
            f"{_sentence(setting_words(where))} must start with http:// or https://.", field=where
        )
    return value


def check_api_base(value: str, where: str) -> str:
    """Return `value` if it is empty or an http(s) base URL without credentials."""
    if _http_url(value, where) and _url_has_credentials(value):
        raise CredentialInSettings(
            f"{_sentence(setting_words(where))} carries a credential (user:password@ or a key "
            "parameter); "
            f"{_KEYRING_HINT}, and give the URL without it",
            field=where,
        )
    return value


def refuse_credentials(data: Any) -> None:
    """Raise CredentialInSettings when settings (or a patch) would hold a key.

    Found by a field named like one (`api_key`, `token`, …), a URL with credentials, or any
    text the secret scan recognises (a key pasted into the model field). Never echoes it.
    """
    for where, text, is_key in texts_in(data):
        path = (f"{where}.{text}" if where else text) if is_key else where
        if is_key and _CREDENTIAL_NAME.match(text.strip()):
            problem = "is a credential field"
        elif not is_key and "://" in text and _url_has_credentials(text):
            problem = "carries a credential (user:password@ or a key parameter)"
        elif (label := secret_label(text)) is not None:
            path = f"{where or 'settings'} (a key)" if is_key else path  # never the key itself
            problem = f"holds what looks like a secret ({label})"
        else:
            continue
        raise CredentialInSettings(
            f"{_sentence(setting_words(path))} {problem}; {_KEYRING_HINT}", field=path
        )


def _organizer(data: Any) -> OrganizerSettings:
    if not isinstance(data, dict):
        raise SettingsInvalid("The organizer settings must be an object.", field="organizer")
    known = {f.name for f in dataclasses.fields(OrganizerSettings)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise SettingsInvalid(
            f"Unknown organizer settings: {', '.join(unknown)}.", field=f"organizer.{unknown[0]}"
        )
    base = OrganizerSettings()
    time_of_day = data.get("time_of_day", base.time_of_day)
    if not isinstance(time_of_day, str) or not valid_time_of_day(time_of_day):
        raise SettingsInvalid(
            "The organizer's time of day must be HH:MM, e.g. 03:00.", field="organizer.time_of_day"
        )
    weekday = data.get("weekday", base.weekday)
    if not isinstance(weekday, int) or isinstance(weekday, bool) or not 1 <= weekday <= 7:
        raise SettingsInvalid(
            "The organizer's weekday must be 1 (Monday) … 7 (Sunday).", field="organizer.weekday"
        )
    saved_at = data.get("saved_at")
    if saved_at is not None and (
        not isinstance(saved_at, int) or isinstance(saved_at, bool) or saved_at < 0
    ):
        raise SettingsInvalid(
            "The time the organizer's schedule was saved must be epoch milliseconds or null.",
            field="organizer.saved_at",
        )
    learn = data.get("learn", base.learn)
    if not isinstance(learn, bool):
        raise SettingsInvalid(
            "Whether scheduled runs also learn from episodes must be true or false.",
            field="organizer.learn",
        )
    return OrganizerSettings(
        learn=learn,
        schedule=_choice(
            data.get("schedule", base.schedule), ORGANIZE_SCHEDULES, "organizer.schedule"
        ),
        time_of_day=time_of_day,
        weekday=weekday,
        scope=_choice(data.get("scope", base.scope), ORGANIZE_SCOPES, "organizer.scope"),
        mode=_choice(data.get("mode", base.mode), ORGANIZE_MODES, "organizer.mode"),
        saved_at=saved_at,
    )


def stamp_schedule(before: Settings, after: Settings, *, now_ms: int) -> Settings:
    """`after`, its organizer schedule marked as saved at `now_ms` when it differs from
    `before`'s or carries no mark yet (the scheduler counts runs missed after the mark)."""
    old, new = before.organizer, after.organizer
    same = (old.schedule, old.time_of_day, old.weekday) == (
        new.schedule,
        new.time_of_day,
        new.weekday,
    )
    if same and new.saved_at is not None:
        return after
    return dataclasses.replace(after, organizer=dataclasses.replace(new, saved_at=now_ms))


def valid_time_of_day(text: str) -> bool:
    """Whether `text` is a 24-hour HH:MM time (the organizer's schedule time)."""
    parts = text.split(":")
    if len(parts) != 2 or not all(p.isdigit() and len(p) == 2 for p in parts):
        return False
    return int(parts[0]) < 24 and int(parts[1]) < 60


def settings_path(home: Path) -> Path:
    return home / config.SETTINGS_FILENAME


def load_settings(home: Path) -> Settings:
    """Read the settings file; a missing file gives the defaults, a broken one an error."""
    path = settings_path(home)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise SettingsInvalid(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise SettingsInvalid(
            f"{path} is not UTF-8 text (byte {exc.start}); fix or delete it to use defaults"
        ) from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SettingsInvalid(
            f"{path} is not valid JSON (line {exc.lineno}); fix or delete it to use defaults"
        ) from None
    return Settings.from_dict(data)


def save_settings(home: Path, settings: Settings) -> Path:
    """Write the settings file atomically (0600, like every file of the store)."""
    path = settings_path(home)
    text = json.dumps(settings.to_dict(), indent=2, ensure_ascii=False) + "\n"
    atomic_write(path, text.encode("utf-8"))
    return path


class SettingsSource(Protocol):
    """The settings a composition root hands down: the current ones, and saving new ones."""

    def current(self) -> Settings:
        """The settings now in force (SettingsInvalid when they cannot be read)."""
        ...

    def save(self, settings: Settings) -> Settings:
        """Keep `settings` and return them as read back."""
        ...


# A file's identity and version for SettingsFile: inode, modification time (ns) and size.
_FileStamp = tuple[int, int, int]


class SettingsFile:
    """The settings.json of one home, as a SettingsSource.

    `current()` reads the file when first asked and again whenever it changed on disk (another
    program, a person's editor) or after `save()`: a change counts from the next call on, as
    when every call read the file, without parsing it each time. A broken file is not kept, so
    each call raises its SettingsInvalid.
    """

    def __init__(self, home: Path) -> None:
        self.home = home
        self._read: tuple[_FileStamp | None, Settings] | None = None

    def current(self) -> Settings:
        try:
            found = settings_path(self.home).stat()
        except FileNotFoundError:
            stamp: _FileStamp | None = None
        except OSError:
            return load_settings(self.home)  # unreadable: load_settings says why
        else:
            stamp = (found.st_ino, found.st_mtime_ns, found.st_size)
        read = self._read
        if read is None or read[0] != stamp:
            # The stamp is taken before reading: a change during the read is seen next time.
            read = (stamp, load_settings(self.home))
            self._read = read
        return read[1]

    def save(self, settings: Settings) -> Settings:
        save_settings(self.home, settings)
        self._read = None  # re-read what was written, whatever its time stamp
        return self.current()


# --- API keys ---------------------------------------------------------------------------------
_NO_KEYRING_HELP = (
    "No secure keyring is available on this system, so API keys cannot be stored or read "
    "here (they are never written to a file). Start a Secret Service (e.g. gnome-keyring "
    "or KWallet) and unlock it, or put the key in the provider's environment variable instead "
    "(for example OPENAI_API_KEY)."
)
# Backends that would fail, drop the key, or store it in plain text. keyrings.alt's file
# backends are refused on purpose: SPEC 7 keeps keys out of files.
_INSECURE_BACKENDS = (
    "keyring.backends.fail",
    "keyring.backends.null",
    "keyrings.alt.file",
)


@dataclass(frozen=True)
class KeyringStatus:
    available: bool
    backend: str
    message: str


class SecretStore:
    """API keys per purpose in the OS keyring (service `liveagent-memory`)."""

    def __init__(self, backend: keyring.backend.KeyringBackend | None = None) -> None:
        self._backend = backend

    def _keyring(self) -> keyring.backend.KeyringBackend:
        backend = self._backend or _keyring_module().get_keyring()
        if not self._is_secure(backend):
            raise KeyringUnavailable(_NO_KEYRING_HELP)
        return backend

    @staticmethod
    def _is_secure(backend: keyring.backend.KeyringBackend) -> bool:
        name = f"{type(backend).__module__}.{type(backend).__name__}"
        if name.startswith(_INSECURE_BACKENDS):
            return False
        children = getattr(backend, "backends", None)
        if children is not None:
            # The chainer writes to its first (highest-priority) backend: that one must be
            # secure, or a plain-text backend ranked above the OS keyring would get the key.
            children = list(children)
            return bool(children) and SecretStore._is_secure(children[0])
        return True

    def status(self) -> KeyringStatus:
        backend = self._backend or _keyring_module().get_keyring()
        name = f"{type(backend).__module__}.{type(backend).__name__}"
        if self._is_secure(backend):
            return KeyringStatus(True, name, "API keys are stored in the system keyring.")
        return KeyringStatus(False, name, _NO_KEYRING_HELP)

    def set(self, purpose: str, secret: str) -> None:
        _check_purpose(purpose)
        if not secret.strip():
            raise SettingsInvalid("The API key is empty.", field="api_key")
        try:
            self._keyring().set_password(config.KEYRING_SERVICE, purpose, secret.strip())
        except _keyring_module().errors.KeyringError as exc:
            raise KeyringUnavailable(f"{_NO_KEYRING_HELP} ({type(exc).__name__})") from None

    def get(self, purpose: str) -> str | None:
        """The key stored for `purpose` (falling back to `default`); None when none is stored."""
        _check_purpose(purpose)
        backend = self._keyring()
        try:
            for name in dict.fromkeys((purpose, "default")):
                value = backend.get_password(config.KEYRING_SERVICE, name)
                if value:
                    return value
        except _keyring_module().errors.KeyringError as exc:
            raise KeyringUnavailable(f"{_NO_KEYRING_HELP} ({type(exc).__name__})") from None
        return None

    def has(self, purpose: str) -> bool:
        try:
            return self.get(purpose) is not None
        except KeyringUnavailable:
            return False

    def clear(self, purpose: str) -> bool:
        """Delete the key of `purpose`; return whether one existed."""
        _check_purpose(purpose)
        backend = self._keyring()
        try:
            backend.delete_password(config.KEYRING_SERVICE, purpose)
        except _keyring_module().errors.PasswordDeleteError:
            return False
        except _keyring_module().errors.KeyringError as exc:
            raise KeyringUnavailable(f"{_NO_KEYRING_HELP} ({type(exc).__name__})") from None
        return True

    def forget(self) -> None:
        """Read every key again at its next use (nothing is kept here: each use reads it)."""

    def front_end_token(self, name: str) -> str | None:
        """A front end's own secret kept under `name` (the web bridge's bearer token, never a
        model key); None when none is kept. KeyringUnavailable without a secure keyring."""
        try:
            return self._keyring().get_password(config.KEYRING_SERVICE, name) or None
        except _keyring_module().errors.KeyringError as exc:
            raise KeyringUnavailable(f"{_NO_KEYRING_HELP} ({type(exc).__name__})") from None

    def keep_front_end_token(self, name: str, token: str) -> None:
        """Keep a front end's secret under `name` in the keyring (KeyringUnavailable without
        a secure one: it is never written anywhere else)."""
        try:
            self._keyring().set_password(config.KEYRING_SERVICE, name, token)
        except _keyring_module().errors.KeyringError as exc:
            raise KeyringUnavailable(f"{_NO_KEYRING_HELP} ({type(exc).__name__})") from None


class KeptSecretStore(SecretStore):
    """A SecretStore that reads each purpose's key once and keeps it until it changes.

    A change made here (`set`, `clear`) forgets every kept key (a purpose may fall back to the
    default key); one made by another program is seen after `forget()` (the app's F5). The
    desktop app's keys: a search keystroke or an organizer run reads the keyring (a D-Bus call,
    possibly slow) only for a key not read yet. A keyring that fails is not kept: its error
    comes again at the next use.
    """

    def __init__(self, backend: keyring.backend.KeyringBackend | None = None) -> None:
        super().__init__(backend)
        self._kept: dict[str, str | None] = {}
        self._generation = 0  # bumped by forget(): a read that began before it is not kept
        self._lock = threading.Lock()  # read on the store worker, forgotten on the UI thread

    def get(self, purpose: str) -> str | None:
        with self._lock:
            if purpose in self._kept:
                return self._kept[purpose]
            generation = self._generation
        value = super().get(purpose)
        with self._lock:
            if generation == self._generation:
                self._kept[purpose] = value
        return value

    def set(self, purpose: str, secret: str) -> None:
        try:
            super().set(purpose, secret)
        finally:
            self.forget()

    def clear(self, purpose: str) -> bool:
        try:
            return super().clear(purpose)
        finally:
            self.forget()

    def forget(self) -> None:
        with self._lock:
            self._kept.clear()
            self._generation += 1


def _check_purpose(purpose: str) -> None:
    if purpose not in PURPOSES:
        raise SettingsInvalid(
            f"unknown purpose {purpose!r}; use one of {', '.join(PURPOSES)}", field="purpose"
        )


def environment_has_key() -> bool:
    """Whether any common provider key variable is set (for status messages only)."""
    return any(name.endswith("_API_KEY") and os.environ.get(name) for name in os.environ)


def model_config(
    settings: Settings,
    secrets: SecretStore,
    purpose: str,
    *,
    model: str | None = None,
    api_base: str | None = None,
) -> ModelConfig:
    """Compose the call settings for a purpose; explicit arguments win over saved settings."""
    choice = settings.model_for(purpose)
    # The key goes with the model: a purpose that falls back to the default model uses the
    # default key, not a key stored for a model of its own that is not configured. A model
    # given explicitly for this purpose (`organize --model`) is its own: its key first.
    own_model = bool(model and model.strip()) or choice is not settings.default
    key_purpose = purpose if own_model else "default"
    return ModelConfig(
        model=(model or choice.model).strip(),
        api_base=(api_base or choice.api_base).strip() or None,
        api_key=resolve_api_key(secrets, key_purpose),
    )
