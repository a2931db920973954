"""Episode traces: validate and normalize one into an Episode, its importance, the timeline.

Plain Python, no store and no SQL. store/episodes.py calls `normalize_episode` when an episode
is recorded and when reconcile reads an episode file, and `build_timeline` over the newest
episodes (REFERENCE B6 layer 2, computed on demand so there is no timeline.json to go stale).

Input follows REFERENCE B2 EpisodeTrace. Both action forms are read: ours/the dataclass's
`{tool, input, output, timestamp}` and the reference's serialized `{t, action, target,
result}`; the reference's `context: {phase, goal, files_involved}` and error `type` are read
too, so a Loki Mode episode file can be recorded as it is. Times may be RFC 3339 / ISO 8601
text (`Z` or an offset; naive means UTC) or epoch seconds or milliseconds; all are stored as
RFC 3339 UTC through domain/clock.py. Anything malformed raises InvalidArgument naming the
field (`action_log[2].timestamp`); a field over its limit is refused, never cut.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import format_rfc3339, journal_date, parse_rfc3339_ms
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.schema import (
    ActiveContext,
    Episode,
    EpisodeAction,
    EpisodeError,
    EpisodeOutcome,
    EpisodePhase,
    Timeline,
    TimelineAction,
    TimelineBlocker,
    TimelineDecision,
)
from liveagent_memory.paths import canonical_workdir, workdir_hash
from liveagent_memory.retrieval.task_types import TaskType, detect_task_type, parse_task_type

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*\Z")  # ids are file names: no dots, no /
HASH_PATTERN = re.compile(r"^[0-9a-f]{16}\Z")
_NUMERIC_TEXT = re.compile(r"^[0-9]+(?:\.[0-9]+)?\Z")
MAX_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z: the last time RFC 3339 can write

# Every field an episode may carry: REFERENCE B2, ours, and Loki's serialized extras.
FIELDS = frozenset(
    {
        "id",
        "task_id",
        "timestamp",
        "duration_seconds",
        "agent",
        "phase",
        "goal",
        "summary",
        "task_type",
        "workdir",
        "workdir_hash",
        "outcome",
        "action_log",
        "errors_encountered",
        "key_decisions",
        "artifacts_produced",
        "git_commit",
        "tokens_used",
        "files_read",
        "files_modified",
        "importance",
        "last_accessed",
        "access_count",
        "recorded_at",
        "context",  # REFERENCE B2 serialized form: {phase, goal, files_involved}
        "_namespace",  # Loki's namespace stamp; this store scopes episodes by workdir instead
    }
)
ACTION_FIELDS = frozenset(
    {"tool", "action", "input", "target", "output", "result", "timestamp", "t"}
)
ERROR_FIELDS = frozenset({"error_type", "type", "message", "resolution"})
CONTEXT_FIELDS = frozenset({"phase", "goal", "files_involved"})
DECISION_FIELDS = frozenset({"decision", "rationale"})


# --------------------------------------------------------------------------------------------
# Times


def time_ms(value: Any, *, field: str) -> int:
    """Epoch ms of a time: RFC 3339 / ISO text (naive = UTC), epoch seconds or milliseconds.

    Numbers at or above EPISODE_EPOCH_MS_THRESHOLD are milliseconds, below it seconds; text
    made only of digits counts as a number.
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
        if _NUMERIC_TEXT.match(text):
            return time_ms(float(text) if "." in text else int(text), field=field)
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


def _time_error(field: str, value: Any) -> InvalidArgument:
    return InvalidArgument(
        f"{field} must be an RFC 3339 time (e.g. 2026-11-30T12:00:00Z or with an offset) or "
        f"epoch seconds or milliseconds, not {value!r}",
        field=field,
    )


def utc_date(ms: int) -> str:
    """The UTC date of an instant, YYYY-MM-DD: the episode's folder."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()


def local_date(ms: int, rollover_hour: int = config.DAILY_ROLLOVER_HOUR) -> str:
    """The journal's local date of an instant (04:00 rollover), YYYY-MM-DD."""
    return journal_date(ms, rollover_hour).isoformat()


def journal_day_bounds(
    day: date, rollover_hour: int = config.DAILY_ROLLOVER_HOUR
) -> tuple[int, int]:
    """[start, end) epoch ms of a journal day: local `day` at the rollover hour to the next.

    The inverse of domain.clock.journal_date, in the system time zone (DST days are 23 or 25
    hours long).
    """
    hour = min(max(rollover_hour, 0), 23)
    following = day + timedelta(days=1)
    start = datetime(day.year, day.month, day.day, hour).astimezone()
    end = datetime(following.year, following.month, following.day, hour).astimezone()
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000)


def new_episode_id(start_ms: int) -> str:
    """REFERENCE B2: `ep-YYYY-MM-DD-{uuid8}`, dated by the episode's start (UTC)."""
    suffix = uuid.uuid4().hex[: config.EPISODE_ID_RANDOM_CHARS]
    return f"{config.EPISODE_ID_PREFIX}-{utc_date(start_ms)}-{suffix}"


# --------------------------------------------------------------------------------------------
# Fields


def _text(value: Any, *, field: str, limit: int, structured: bool = False) -> str:
    """A text field, stripped; None is ''. `structured` turns objects and numbers into JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        text = value.strip()
    elif structured and isinstance(value, (dict, list, int, float, bool)):
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    else:
        raise InvalidArgument(f"{field} must be text, not {type(value).__name__}", field=field)
    if len(text) > limit:
        raise InvalidArgument(
            f"{field} is {len(text)} characters; the limit is {limit} (shorten it: nothing is "
            "cut silently)",
            field=field,
        )
    return text


def _number(value: Any, *, field: str, default: float, integer: bool = False) -> float:
    """A non-negative number; integral floats pass for integers (JSON writes 3.0 sometimes)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidArgument(f"{field} must be a number, not {value!r}", field=field)
    if value < 0:
        raise InvalidArgument(f"{field} must not be negative ({value!r})", field=field)
    if integer:
        if value != int(value):
            raise InvalidArgument(f"{field} must be a whole number, not {value!r}", field=field)
        return int(value)
    return int(value) if float(value).is_integer() else float(value)


def _list(value: Any, *, field: str, limit: int) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidArgument(f"{field} must be a list, not {type(value).__name__}", field=field)
    if len(value) > limit:
        raise InvalidArgument(f"{field} has {len(value)} items; the limit is {limit}", field=field)
    return value


def _paths(value: Any, *, field: str) -> list[str]:
    items = _list(value, field=field, limit=config.EPISODE_MAX_FILES)
    out: dict[str, None] = {}
    for i, item in enumerate(items):
        text = _text(item, field=f"{field}[{i}]", limit=config.EPISODE_PATH_MAX_CHARS)
        if text:
            out.setdefault(text, None)
    return list(out)


def _check_keys(raw: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    for key in raw:
        if key not in allowed:
            name = f"{where}.{key}" if where else str(key)
            raise InvalidArgument(
                f"unknown field {name!r} (known: {', '.join(sorted(allowed))})", field=name
            )


def _one_of(raw: Mapping[str, Any], names: tuple[str, str], where: str) -> Any:
    """The value under either of two names (ours, the reference's); both must then agree."""
    first, second = (raw.get(name) for name in names)
    if first is not None and second is not None and first != second:
        raise InvalidArgument(
            f"{where} gives both {names[0]!r} and {names[1]!r} with different values",
            field=f"{where}.{names[0]}",
        )
    return first if first is not None else second


def _action(raw: Any, index: int, start_ms: int) -> EpisodeAction:
    where = f"action_log[{index}]"
    if not isinstance(raw, Mapping):
        raise InvalidArgument(
            f"{where} must be an object like {{tool, input, output, timestamp}}", field=where
        )
    _check_keys(raw, ACTION_FIELDS, where)
    tool = _text(
        _one_of(raw, ("tool", "action"), where),
        field=f"{where}.tool",
        limit=config.EPISODE_NAME_MAX_CHARS,
    )
    if not tool:
        raise InvalidArgument(
            f"{where}.tool is required (the tool or action)", field=f"{where}.tool"
        )
    target = _text(
        _one_of(raw, ("input", "target"), where),
        field=f"{where}.input",
        limit=config.EPISODE_TEXT_MAX_CHARS,
        structured=True,
    )
    result = _text(
        _one_of(raw, ("output", "result"), where),
        field=f"{where}.output",
        limit=config.EPISODE_TEXT_MAX_CHARS,
        structured=True,
    )
    when = _one_of(raw, ("timestamp", "t"), where)
    return EpisodeAction(
        tool=tool, input=target, output=result, timestamp=_action_time(when, where, start_ms)
    )


def _action_time(value: Any, where: str, start_ms: int) -> str | None:
    field = f"{where}.timestamp"
    if value is None or value == "":
        return None
    if (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value < config.EPISODE_RELATIVE_SECONDS_MAX
    ):
        # REFERENCE B2: ActionEntry.timestamp is seconds since the episode started.
        if value < 0:
            raise InvalidArgument(
                f"{field} is seconds since the episode's start and must not be negative "
                f"({value!r})",
                field=field,
            )
        ms = start_ms + int(round(value * 1000))
        if ms > MAX_MS:
            raise InvalidArgument(f"{field} is out of range ({value!r})", field=field)
        return format_rfc3339(ms)
    return format_rfc3339(time_ms(value, field=field))


def _error(raw: Any, index: int) -> EpisodeError:
    where = f"errors_encountered[{index}]"
    if isinstance(raw, str):
        raw = {"message": raw}
    if not isinstance(raw, Mapping):
        raise InvalidArgument(
            f"{where} must be an object like {{error_type, message, resolution}}", field=where
        )
    _check_keys(raw, ERROR_FIELDS, where)
    error_type = _text(
        _one_of(raw, ("error_type", "type"), where),
        field=f"{where}.error_type",
        limit=config.EPISODE_NAME_MAX_CHARS,
    )
    message = _text(
        raw.get("message"), field=f"{where}.message", limit=config.EPISODE_TEXT_MAX_CHARS
    )
    if not message:
        raise InvalidArgument(f"{where}.message is required", field=f"{where}.message")
    resolution = _text(
        raw.get("resolution"), field=f"{where}.resolution", limit=config.EPISODE_TEXT_MAX_CHARS
    )
    return EpisodeError(error_type=error_type or "error", message=message, resolution=resolution)


def _decision(raw: Any, index: int) -> str:
    where = f"key_decisions[{index}]"
    if isinstance(raw, Mapping):
        # The reference timeline's {decision, rationale} entries read as one line.
        _check_keys(raw, DECISION_FIELDS, where)
        decision = _text(
            raw.get("decision"), field=f"{where}.decision", limit=config.EPISODE_TEXT_MAX_CHARS
        )
        rationale = _text(
            raw.get("rationale"), field=f"{where}.rationale", limit=config.EPISODE_TEXT_MAX_CHARS
        )
        text = f"{decision} — {rationale}" if decision and rationale else decision or rationale
        return _text(text, field=where, limit=config.EPISODE_TEXT_MAX_CHARS)
    return _text(raw, field=where, limit=config.EPISODE_TEXT_MAX_CHARS)


def _choice(
    value: Any, *, field: str, choices: type[EpisodePhase] | type[EpisodeOutcome], default: str
) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if isinstance(value, str):
        wanted = value.strip().upper() if choices is EpisodePhase else value.strip().lower()
        if wanted in {member.value for member in choices}:
            return wanted
    allowed = ", ".join(member.value for member in choices)
    raise InvalidArgument(f"{field} must be one of {allowed}, not {value!r}", field=field)


def _task_type(value: Any, goal: str, actions: list[EpisodeAction], phase: str) -> str:
    if value is not None and not isinstance(value, str):
        raise InvalidArgument(f"task_type must be text, not {value!r}", field="task_type")
    try:
        given = parse_task_type(value)
    except ValueError:
        allowed = ", ".join(t.value for t in TaskType)
        raise InvalidArgument(
            f"task_type must be one of {allowed}, not {value!r}", field="task_type"
        ) from None
    if given is not None:
        return given.value
    # The one detector (REFERENCE B3): goal keywords, action names, phase.
    tools = " ".join(dict.fromkeys(action.tool for action in actions))
    return detect_task_type(goal, action=tools, phase=phase.lower()).value


def _workdir(raw: Mapping[str, Any], default_workdir: str | None) -> tuple[str | None, str]:
    given_hash = raw.get("workdir_hash")
    workdir = _text(raw.get("workdir"), field="workdir", limit=config.EPISODE_PATH_MAX_CHARS)
    if given_hash not in (None, ""):
        if not isinstance(given_hash, str) or not HASH_PATTERN.match(given_hash.strip().lower()):
            raise InvalidArgument(
                f"workdir_hash must be 16 hex characters, not {given_hash!r}", field="workdir_hash"
            )
        # A stored hash wins over re-hashing the path: a moved or deleted folder keeps its key.
        return workdir or None, given_hash.strip().lower()
    if not workdir and raw.get("workdir") is None and default_workdir and default_workdir.strip():
        workdir = default_workdir.strip()
    if not workdir:
        return None, ""
    return canonical_workdir(workdir), workdir_hash(workdir)


def calculate_importance(outcome: str, error_count: int, access_count: int) -> float:
    """REFERENCE B4 calculate_importance for an episode, without the retrieval-time task boost.

    0.5; success +0.1, failure -0.1; a success with errors +0.05 per error (at most 3: they
    were overcome); +0.05 x log1p(access_count); clamped to [0, 1], 3 decimals.
    """
    value = config.EPISODE_IMPORTANCE_BASE
    if outcome == EpisodeOutcome.SUCCESS:
        value = min(1.0, value + config.EPISODE_IMPORTANCE_OUTCOME)
        if error_count:
            cap = config.EPISODE_IMPORTANCE_RESOLVED_ERRORS_CAP
            value = min(
                1.0, value + config.EPISODE_IMPORTANCE_PER_RESOLVED_ERROR * min(error_count, cap)
            )
    elif outcome == EpisodeOutcome.FAILURE:
        value = max(0.0, value - config.EPISODE_IMPORTANCE_OUTCOME)
    if access_count > 0:
        value = min(1.0, value + config.EPISODE_IMPORTANCE_ACCESS_FACTOR * math.log1p(access_count))
    return round(min(1.0, max(0.0, value)), 3)


# --------------------------------------------------------------------------------------------
# The episode


def normalize_episode(
    raw: Any,
    *,
    now_ms: int,
    default_workdir: str | None = None,
    default_id: str | None = None,
    require_timestamp: bool = False,
) -> Episode:
    """Validate an episode trace and return it normalized (see the module docstring).

    Args:
        now_ms: the start when the trace gives none, and `recorded_at` when it has none.
        default_workdir: the project when the trace names none (the caller's --workdir).
        default_id: the id when the trace has none (a file's name); else one is generated.
        require_timestamp: a stored file must say when it happened (reconcile).
    """
    if not isinstance(raw, Mapping):
        raise InvalidArgument(
            f"an episode must be a JSON object, not {type(raw).__name__}", field="episode"
        )
    _check_keys(raw, FIELDS, "")
    context = raw.get("context")
    if context is None:
        context = {}
    if not isinstance(context, Mapping):
        raise InvalidArgument(
            "context must be an object {phase, goal, files_involved}", field="context"
        )
    _check_keys(context, CONTEXT_FIELDS, "context")

    if raw.get("timestamp") in (None, ""):
        if require_timestamp:
            raise InvalidArgument("timestamp is required in a stored episode", field="timestamp")
        start_ms = now_ms
    else:
        start_ms = time_ms(raw["timestamp"], field="timestamp")

    episode_id = _episode_id(raw.get("id"), default_id, start_ms)
    goal = _text(
        raw["goal"] if raw.get("goal") is not None else context.get("goal"),
        field="goal",
        limit=config.EPISODE_GOAL_MAX_CHARS,
    )
    if not goal:
        raise InvalidArgument("goal is required: what the episode tried to do", field="goal")
    phase = _choice(
        raw["phase"] if raw.get("phase") is not None else context.get("phase"),
        field="phase",
        choices=EpisodePhase,
        default=config.EPISODE_DEFAULT_PHASE,
    )
    outcome = _choice(
        raw.get("outcome"),
        field="outcome",
        choices=EpisodeOutcome,
        default=config.EPISODE_DEFAULT_OUTCOME,
    )
    actions = [
        _action(item, i, start_ms)
        for i, item in enumerate(
            _list(raw.get("action_log"), field="action_log", limit=config.EPISODE_MAX_ACTIONS)
        )
    ]
    errors = [
        _error(item, i)
        for i, item in enumerate(
            _list(
                raw.get("errors_encountered"),
                field="errors_encountered",
                limit=config.EPISODE_MAX_ERRORS,
            )
        )
    ]
    decisions = [
        text
        for text in (
            _decision(item, i)
            for i, item in enumerate(
                _list(
                    raw.get("key_decisions"),
                    field="key_decisions",
                    limit=config.EPISODE_MAX_DECISIONS,
                )
            )
        )
        if text
    ]
    files_read = _paths(
        raw["files_read"] if raw.get("files_read") is not None else context.get("files_involved"),
        field="files_read",
    )
    workdir, project = _workdir(raw, default_workdir)
    access_count = int(
        _number(raw.get("access_count"), field="access_count", default=0, integer=True)
    )
    importance_raw = raw.get("importance")
    if importance_raw is None:
        importance = calculate_importance(outcome, len(errors), access_count)
    else:
        importance = float(_number(importance_raw, field="importance", default=0.0))
        if importance > 1:
            raise InvalidArgument(
                f"importance must be between 0 and 1, not {importance_raw!r}", field="importance"
            )
    git_commit = _text(
        raw.get("git_commit"), field="git_commit", limit=config.EPISODE_NAME_MAX_CHARS
    )
    last_accessed = raw.get("last_accessed")
    recorded_at = raw.get("recorded_at")
    return Episode(
        id=episode_id,
        task_id=_text(raw.get("task_id"), field="task_id", limit=config.EPISODE_NAME_MAX_CHARS),
        timestamp=format_rfc3339(start_ms),
        duration_seconds=_number(raw.get("duration_seconds"), field="duration_seconds", default=0),
        agent=_text(raw.get("agent"), field="agent", limit=config.EPISODE_NAME_MAX_CHARS),
        phase=phase,
        goal=goal,
        summary=_text(raw.get("summary"), field="summary", limit=config.EPISODE_SUMMARY_MAX_CHARS),
        task_type=_task_type(raw.get("task_type"), goal, actions, phase),
        workdir=workdir,
        workdir_hash=project,
        outcome=outcome,
        action_log=actions,
        errors_encountered=errors,
        key_decisions=decisions,
        artifacts_produced=_paths(raw.get("artifacts_produced"), field="artifacts_produced"),
        git_commit=git_commit or None,
        tokens_used=int(
            _number(raw.get("tokens_used"), field="tokens_used", default=0, integer=True)
        ),
        files_read=files_read,
        files_modified=_paths(raw.get("files_modified"), field="files_modified"),
        importance=importance,
        last_accessed=(
            format_rfc3339(time_ms(last_accessed, field="last_accessed"))
            if last_accessed not in (None, "")
            else None
        ),
        access_count=access_count,
        recorded_at=format_rfc3339(
            time_ms(recorded_at, field="recorded_at") if recorded_at not in (None, "") else now_ms
        ),
    )


def _episode_id(value: Any, default_id: str | None, start_ms: int) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        if default_id is not None:
            value = default_id
        else:
            return new_episode_id(start_ms)
    if not isinstance(value, str):
        raise InvalidArgument(f"id must be text, not {value!r}", field="id")
    text = value.strip()
    if len(text) > config.EPISODE_ID_MAX_CHARS or not ID_PATTERN.match(text):
        raise InvalidArgument(
            f"id must be letters, digits, '-' and '_' (at most {config.EPISODE_ID_MAX_CHARS}), "
            f"not {value!r}; leave it out to get ep-YYYY-MM-DD-xxxxxxxx",
            field="id",
        )
    return text


def episode_document(episode: Episode) -> dict[str, Any]:
    """The episode as stored in its JSON file (and read back by normalize_episode).

    Equal to `episode.to_dict()`, built by hand: dataclasses.asdict deep-copies every value
    and was half the cost of indexing an episode.
    """
    document = dict(vars(episode))
    document["action_log"] = [dict(vars(action)) for action in episode.action_log]
    document["errors_encountered"] = [dict(vars(error)) for error in episode.errors_encountered]
    for name in ("key_decisions", "artifacts_produced", "files_read", "files_modified"):
        document[name] = list(document[name])
    return document


def episode_from_document(data: Mapping[str, Any]) -> Episode:
    """Rebuild an Episode from episode_document() output that was already validated.

    For the index's copy; files from disk go through normalize_episode.
    """
    fields = dict(data)
    fields["action_log"] = [EpisodeAction(**item) for item in data["action_log"]]
    fields["errors_encountered"] = [EpisodeError(**item) for item in data["errors_encountered"]]
    return Episode(**fields)


def search_texts(episode: Episode) -> dict[str, str]:
    """What keyword search reads of an episode, by field group."""
    actions = [f"{a.tool} {a.input} {a.output}" for a in episode.action_log]
    files = [*episode.files_read, *episode.files_modified, *episode.artifacts_produced]
    return {
        "goal": episode.goal,
        "summary": episode.summary,
        "actions": "\n".join([*actions, *files, episode.task_type, episode.agent]),
        "errors": "\n".join(
            f"{e.error_type} {e.message} {e.resolution}" for e in episode.errors_encountered
        ),
        "decisions": "\n".join(episode.key_decisions),
    }


# --------------------------------------------------------------------------------------------
# Timeline (REFERENCE B6 layer 2)


def _short(text: str) -> str:
    """Timeline entries are a glance (the reference cuts goals to 100 characters there); the
    whole text stays in the episode."""
    limit = config.TIMELINE_TEXT_MAX_CHARS
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def open_episodes(episodes: Sequence[Episode]) -> list[Episode]:
    """Episodes, newest first, whose task has not ended in success since.

    An episode is open when its outcome is not success and no newer episode of the same
    task_id succeeded; of several open attempts at one task only the newest counts.
    """
    closed: set[str] = set()
    seen: set[str] = set()
    out: list[Episode] = []
    for episode in episodes:
        key = episode.task_id
        if episode.outcome == EpisodeOutcome.SUCCESS:
            if key:
                closed.add(key)
            continue
        if key and (key in closed or key in seen):
            continue
        if key:
            seen.add(key)
        out.append(episode)
    return out


def build_timeline(
    episodes: Sequence[Episode],
    *,
    actions_limit: int = config.TIMELINE_MAX_RECENT_ACTIONS,
    decisions_limit: int = config.TIMELINE_MAX_KEY_DECISIONS,
) -> Timeline:
    """The timeline of `episodes` (newest start first).

    recent_actions: every action, newest first (an action without a time takes its episode's
    start). key_decisions: newest episode first, later decisions of one episode first.
    active_context: the focus is the newest open episode (see open_episodes), else the newest
    episode; blocked_by are the open episodes' unresolved errors; next_up the other open goals.
    """
    actions_limit = min(max(actions_limit, 0), config.TIMELINE_MAX_RECENT_ACTIONS)
    decisions_limit = min(max(decisions_limit, 0), config.TIMELINE_MAX_KEY_DECISIONS)
    ranked: list[tuple[str, int, int, TimelineAction]] = []
    for position, episode in enumerate(episodes):
        for index, action in enumerate(episode.action_log):
            when = action.timestamp or episode.timestamp
            entry = TimelineAction(
                episode_id=episode.id,
                time=when,
                action=_short(action.tool),
                target=_short(action.input),
                result=_short(action.output),
            )
            # RFC 3339 UTC with fixed width sorts as text; ties: newer episode, later step.
            ranked.append((when, -position, index, entry))
    ranked.sort(key=lambda item: item[:3], reverse=True)
    decisions = [
        TimelineDecision(episode_id=episode.id, time=episode.timestamp, decision=_short(text))
        for episode in episodes
        for text in reversed(episode.key_decisions)
    ]
    pending = open_episodes(episodes)
    focus = pending[0] if pending else (episodes[0] if episodes else None)
    blockers = [
        TimelineBlocker(
            episode_id=episode.id,
            time=episode.timestamp,
            error_type=error.error_type,
            message=_short(error.message),
        )
        for episode in pending
        for error in reversed(episode.errors_encountered)
        if not error.resolution
    ]
    return Timeline(
        recent_actions=[item[3] for item in ranked[:actions_limit]],
        key_decisions=decisions[:decisions_limit],
        active_context=ActiveContext(
            current_focus=focus.goal if focus is not None else "",
            focus_episode_id=focus.id if focus is not None else None,
            blocked_by=blockers[: config.TIMELINE_MAX_BLOCKERS],
            next_up=[episode.goal for episode in pending[1:]][: config.TIMELINE_MAX_NEXT_UP],
        ),
        episodes_scanned=len(episodes),
    )
