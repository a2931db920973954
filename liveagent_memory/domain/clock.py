"""Time in one place: UTC milliseconds, RFC 3339 text and the journal's local date.

This module is the home of the length of a day in milliseconds (`MS_PER_DAY`, docs/
ARCHITECTURE.md "Where each rule lives"): every age and cut-off in days is counted with it.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument

# A clock returns epoch milliseconds; tests inject a fixed one instead of patching time.
Clock = Callable[[], int]

MS_PER_DAY = 86_400_000  # 24 h of 3,600 s of 1,000 ms; a UTC day (ages ignore DST shifts)


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
    return max(0.0, (now_ms - then_ms) / MS_PER_DAY)


# --- Times from outside data (episode traces): one parser to UTC ms, the dates of an instant ---

MAX_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z: the last time RFC 3339 can write
_NUMERIC_TEXT = re.compile(r"^[0-9]+(?:\.[0-9]+)?\Z")


def time_ms(value: Any, *, field: str) -> int:
    """Epoch ms of a time: RFC 3339 / ISO text (naive = UTC), epoch seconds or milliseconds.

    Numbers at or above EPISODE_EPOCH_MS_THRESHOLD are milliseconds, below it seconds; text
    made only of digits counts as a number. Anything else raises InvalidArgument naming `field`.
    """
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        ms = int(moment.timestamp() * 1000)
    elif isinstance(value, bool) or value is None:
        raise _time_error(field, value)
    elif isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise _time_error(field, value)
        ms = int(round(value if value >= config.EPISODE_EPOCH_MS_THRESHOLD else value * 1000))
    elif isinstance(value, str):
        text = value.strip()
        number = numeric_text(text)
        if number is not None:
            return time_ms(number, field=field)
        parsed = parse_rfc3339_ms(text)
        if parsed is None:
            raise _time_error(field, value)
        ms = parsed
    else:
        raise _time_error(field, value)
    if not 0 <= ms <= MAX_MS:
        raise InvalidArgument(
            f"{field} is out of range ({value!r}): times run from 1970 to 9999", field=field
        )
    return ms


def numeric_text(value: Any) -> int | float | None:
    """The number a text made only of digits (and one decimal point) stands for; else None.

    Outside data writes times as text as often as numbers: "30" and 30 must mean the same.
    """
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not _NUMERIC_TEXT.match(text):
        return None
    return float(text) if "." in text else int(text)


def _time_error(field: str, value: Any) -> InvalidArgument:
    return InvalidArgument(
        f"{field} must be an RFC 3339 time (e.g. 2026-11-30T12:00:00Z or with an offset) or "
        f"epoch seconds or milliseconds, not {value!r}",
        field=field,
    )


def utc_date(ms: int) -> str:
    """The UTC date of an instant, YYYY-MM-DD (an episode's folder)."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()


def local_date(ms: int, rollover_hour: int = config.DAILY_ROLLOVER_HOUR) -> str:
    """The journal's local date of an instant (rollover hour), YYYY-MM-DD."""
    return journal_date(ms, rollover_hour).isoformat()


def journal_day_bounds(
    day: date, rollover_hour: int = config.DAILY_ROLLOVER_HOUR
) -> tuple[int, int]:
    """[start, end) epoch ms of a journal day: local `day` at the rollover hour to the next.

    The inverse of journal_date, in the system time zone (DST days are 23 or 25 hours long).
    """
    hour = min(max(rollover_hour, 0), 23)
    following = day + timedelta(days=1)
    start = datetime(day.year, day.month, day.day, hour).astimezone()
    end = datetime(following.year, following.month, following.day, hour).astimezone()
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000)
