"""Hand-written fakes for tests (no mocks of our own code)."""

from __future__ import annotations

from datetime import UTC, datetime

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from liveagent_memory.settings import Settings


class FakeClock:
    """A clock tests move by hand; returns epoch milliseconds like domain.clock.system_clock."""

    def __init__(self, start: datetime | None = None) -> None:
        moment = start or datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
        self.ms = int(moment.timestamp() * 1000)

    def __call__(self) -> int:
        return self.ms

    def advance(
        self, *, days: float = 0, hours: float = 0, seconds: float = 0, ms: int = 0
    ) -> None:
        self.ms += int(((days * 24 + hours) * 3600 + seconds) * 1000) + ms


class FakeKeyring(KeyringBackend):
    """The base of the tests' keyring backends: a usable priority, and a typed constructor."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring's __init__ is unannotated


class MemoryKeyring(FakeKeyring):
    """An in-memory keyring backend: tests never touch (or need) the OS keyring."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.secrets:
            raise PasswordDeleteError("not found")
        del self.secrets[(service, username)]


class CountingKeyring(MemoryKeyring):
    """The in-memory keyring, counting how often a key is read."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.reads += 1
        return super().get_password(service, username)


class MemorySettings:
    """Settings held in memory (a settings.SettingsSource): no settings.json is involved."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings if settings is not None else Settings()
        self.saved: list[Settings] = []

    def current(self) -> Settings:
        return self.settings

    def save(self, settings: Settings) -> Settings:
        self.settings = settings
        self.saved.append(settings)
        return settings
