"""Time in one place: UTC milliseconds, RFC 3339 text and the journal's local date."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from liveagent_memory.domain import config

# A clock returns epoch milliseconds; tests inject a fixed one instead of patching time.
Clock = Callable[[], int]


def system_clock() -> int:
    """Return the current time as UTC epoch milliseconds."""
    return time.time_ns() // 1_000_000


def format_rfc3339(ms: int) -> str:
    """Format epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, SPEC 1.3)."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def parse_rfc3339_ms(text: str) -> int | None:
    """Parse RFC 3339 / ISO 8601 text (with `Z` or an offset; naive means UTC) to epoch ms.

    Returns None for anything that is not a timestamp, so a hand-written file with an odd
    date is indexed with its file time instead of being rejected.
    """
    value = text.strip()
    if not value:
        return None
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def local_datetime(ms: int) -> datetime:
    """Return the local wall-clock time (system time zone) for epoch milliseconds."""
    return datetime.fromtimestamp(ms / 1000).astimezone()


def journal_date(ms: int, rollover_hour: int = config.DAILY_ROLLOVER_HOUR) -> date:
    """Return the journal's "today" at `ms`: the local date, or yesterday before the rollover."""
    moment = local_datetime(ms)
    day = moment.date()
    if moment.hour < min(max(rollover_hour, 0), 23):
        day -= timedelta(days=1)
    return day


_LOCAL_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_local_date(text: str) -> date | None:
    """Parse `YYYY-MM-DD`; None when it is not a valid calendar date."""
    if not _LOCAL_DATE.match(text.strip()):
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        return None


def local_midnight_epoch_seconds(day: date) -> int:
    """Return epoch seconds of local midnight on `day` (the daily row's age anchor)."""
    return int(datetime(day.year, day.month, day.day).astimezone().timestamp())


def age_days(now_ms: int, then_ms: int) -> float:
    """Return the non-negative age in days between two epoch-ms instants."""
    return max(0.0, (now_ms - then_ms) / 86_400_000)
