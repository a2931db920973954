"""The episode document: its fields checked and normalized, stored and read back, searched.

An episode reaches this module two ways. From a caller (`episode_record`): retrieval/episodes.py
`normalize_episode` calls `parse_episode`, so the store is only ever handed a normalized Episode
(and `check_normalized` verifies that it is). From a file under episodes/ (reconcile, read): the
store's own document, or one written by hand or by Loki Mode, goes through the same
`parse_episode`. Either way a trace that names no task type gets the detected one
(domain/task_types.py, the one detector).

Input follows REFERENCE B2 EpisodeTrace. Both action forms are read: ours/the dataclass's
`{tool, input, output, timestamp}` and the reference's serialized `{t, action, target,
result}`; the reference's `context: {phase, goal, files_involved}` and error `type` are read
too. Times may be RFC 3339 / ISO 8601 text (`Z` or an offset; naive means UTC) or epoch seconds
or milliseconds; all are stored as RFC 3339 UTC through domain/clock.py. Anything malformed
raises InvalidArgument naming the field (`action_log[2].timestamp`); a field over its limit is
refused, never cut.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import (
    MAX_MS,
    format_rfc3339,
    numeric_text,
    time_ms,
    utc_date,
)
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.schema import (
    DEFAULT_TASK_TYPE,
    Episode,
    EpisodeAction,
    EpisodeError,
    EpisodeOutcome,
    EpisodePhase,
    TaskType,
)
from liveagent_memory.domain.task_types import detect_task_type
from liveagent_memory.paths import canonical_workdir, workdir_hash

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*\Z")  # ids are file names: no dots, no /
HASH_PATTERN = re.compile(r"^[0-9a-f]{16}\Z")

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

# (goal, actions, phase) -> a TaskType value: how an episode without a task_type gets one.
TaskTypeOf = Callable[[str, Sequence[EpisodeAction], str], str]


def detect_episode_task_type(goal: str, actions: Sequence[EpisodeAction], phase: str) -> str:
    """The task type of an episode that names none: goal keywords, action names, phase."""
    tools = " ".join(dict.fromkeys(action.tool for action in actions))
    return detect_task_type(goal, action=tools, phase=phase.lower()).value


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


@dataclasses.dataclass(frozen=True)
class _RawAction:
    """An action checked, its time not yet placed: absolute ms, seconds after the start, none."""

    tool: str
    input: str
    output: str
    absolute_ms: int | None
    relative_s: float | None
    where: str


def _action(raw: Any, index: int) -> _RawAction:
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
    # Digit text is the number it spells, so "30" is 30 s after the start like 30 (not 1970).
    number = numeric_text(when)
    when = when if number is None else number
    field = f"{where}.timestamp"
    absolute: int | None = None
    relative: float | None = None
    if when is None or when == "":
        pass
    elif (
        isinstance(when, (int, float))
        and not isinstance(when, bool)
        and math.isfinite(when)
        and when < config.EPISODE_RELATIVE_SECONDS_MAX
    ):
        # REFERENCE B2: ActionEntry.timestamp is seconds since the episode started.
        if when < 0:
            raise InvalidArgument(
                f"{field} is seconds since the episode's start and must not be negative ({when!r})",
                field=field,
            )
        relative = float(when)
    else:
        absolute = time_ms(when, field=field)
    return _RawAction(tool, target, result, absolute, relative, where)


def _placed_ms(action: _RawAction, start_ms: int) -> int | None:
    """The action's time in epoch ms (a relative time counted from the start); None: none."""
    if action.relative_s is None:
        return action.absolute_ms
    ms = start_ms + int(round(action.relative_s * 1000))
    if ms > MAX_MS:
        field = f"{action.where}.timestamp"
        raise InvalidArgument(f"{field} is out of range ({action.relative_s!r})", field=field)
    return ms


def _error(raw: Any, index: int) -> EpisodeError:
    where = f"errors_encountered[{index}]"
    if isinstance(raw, str):
        raw = {"message": raw}
    if not isinstance(raw, Mapping):
        raise InvalidArgument(
            f"{where}: an error must be an object with an error type, a message and a resolution",
            field=where,
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


def _task_type(
    value: Any,
    goal: str,
    actions: list[EpisodeAction],
    phase: str,
    task_type_of: TaskTypeOf | None,
) -> str:
    if value is not None and not isinstance(value, str):
        raise InvalidArgument(f"The task type must be text, not {value!r}", field="task_type")
    if value is not None and value.strip():
        wanted = value.strip().lower()
        if wanted not in {t.value for t in TaskType}:
            allowed = ", ".join(t.value for t in TaskType)
            raise InvalidArgument(
                f"The task type must be one of {allowed}, not {value!r}", field="task_type"
            )
        return wanted
    if task_type_of is None:
        return DEFAULT_TASK_TYPE.value
    return task_type_of(goal, actions, phase)


def _workdir(raw: Mapping[str, Any], default_workdir: str | None) -> tuple[str | None, str]:
    given_hash = raw.get("workdir_hash")
    workdir = _text(raw.get("workdir"), field="workdir", limit=config.EPISODE_PATH_MAX_CHARS)
    if given_hash not in (None, ""):
        if not isinstance(given_hash, str) or not HASH_PATTERN.match(given_hash.strip().lower()):
            raise InvalidArgument(
                f"The project id must be 16 hex characters, not {given_hash!r}",
                field="workdir_hash",
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


def access_raised(importance: float, old_count: int, new_count: int) -> float:
    """REFERENCE B4's access term moved from `old_count` to `new_count` reads: the stored
    importance plus 0.05 x (log1p(new) - log1p(old)), at most 1 (what calculate_importance
    would add for the new reads, on a value that may have decayed or been given)."""
    gain = config.EPISODE_IMPORTANCE_ACCESS_FACTOR * (math.log1p(new_count) - math.log1p(old_count))
    return min(1.0, importance + max(gain, 0.0))


def decayed(importance: float, days: float) -> float:
    """REFERENCE B4 apply_decay: importance x exp(-0.1 x days / 30), never below the floor."""
    if days <= 0:
        return importance
    exponent = -config.CONTEXT_DECAY_RATE * days / config.EPISODE_DECAY_PERIOD_DAYS
    return max(importance * math.exp(exponent), config.CONTEXT_DECAY_FLOOR)


# --------------------------------------------------------------------------------------------
# The episode


def parse_episode(
    raw: Any,
    *,
    now_ms: int,
    default_workdir: str | None = None,
    default_id: str | None = None,
    require_timestamp: bool = False,
    task_type_of: TaskTypeOf | None = None,
) -> Episode:
    """Check an episode trace and return it normalized (see the module docstring).

    Args:
        now_ms: the start when neither the trace nor its actions give a time, and
            `recorded_at` when it has none.
        default_workdir: the project when the trace names none (the caller's --workdir).
        default_id: the id when the trace has none (a file's name); else one is generated.
        require_timestamp: a stored file must say when it happened (reconcile).
        task_type_of: what type a trace without a task_type is (detect_episode_task_type,
            on domain/task_types.py's detector);
            without it, REFERENCE B3's default.
    """
    context = _checked_context(raw)
    start_ms, actions, times = _start_and_actions(
        raw, now_ms=now_ms, require_timestamp=require_timestamp
    )
    episode_id = _episode_id(raw.get("id"), default_id, start_ms)
    goal, phase, outcome = _goal_phase_outcome(raw, context)
    errors, decisions = _errors_and_decisions(raw)
    files_read = _paths(
        raw["files_read"] if raw.get("files_read") is not None else context.get("files_involved"),
        field="files_read",
    )
    workdir, project = _workdir(raw, default_workdir)
    access_count = int(
        _number(raw.get("access_count"), field="access_count", default=0, integer=True)
    )
    importance = _importance(raw.get("importance"), outcome, len(errors), access_count)
    git_commit = _text(
        raw.get("git_commit"), field="git_commit", limit=config.EPISODE_NAME_MAX_CHARS
    )
    return Episode(
        id=episode_id,
        task_id=_text(raw.get("task_id"), field="task_id", limit=config.EPISODE_NAME_MAX_CHARS),
        timestamp=format_rfc3339(start_ms),
        duration_seconds=_duration(
            raw.get("duration_seconds"), [ms for ms in times if ms is not None]
        ),
        agent=_text(raw.get("agent"), field="agent", limit=config.EPISODE_NAME_MAX_CHARS),
        phase=phase,
        goal=goal,
        summary=_text(raw.get("summary"), field="summary", limit=config.EPISODE_SUMMARY_MAX_CHARS),
        task_type=_task_type(raw.get("task_type"), goal, actions, phase, task_type_of),
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
        **_access_times(raw, now_ms=now_ms),
        access_count=access_count,
    )


def _checked_context(raw: Any) -> Mapping[str, Any]:
    """The trace's `context` object ({} when absent), after checking the trace's own keys."""
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
            "The context must be an object with a phase, a goal and the files involved",
            field="context",
        )
    _check_keys(context, CONTEXT_FIELDS, "context")
    return context


def _goal_phase_outcome(raw: Mapping[str, Any], context: Mapping[str, Any]) -> tuple[str, str, str]:
    """The goal (required), phase and outcome; goal and phase may come from `context`."""
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
    return goal, phase, outcome


def _start_and_actions(
    raw: Mapping[str, Any], *, now_ms: int, require_timestamp: bool
) -> tuple[int, list[EpisodeAction], list[int | None]]:
    """(the start, the action log with absolute times, each action's time or None)."""
    given_start = raw.get("timestamp") not in (None, "")
    if not given_start and require_timestamp:
        raise InvalidArgument("timestamp is required in a stored episode", field="timestamp")
    start_ms = time_ms(raw["timestamp"], field="timestamp") if given_start else None
    raw_actions = [
        _action(item, i)
        for i, item in enumerate(
            _list(raw.get("action_log"), field="action_log", limit=config.EPISODE_MAX_ACTIONS)
        )
    ]
    if start_ms is None:
        # No start given: the episode began with its first timed action, else now.
        absolute = [a.absolute_ms for a in raw_actions if a.absolute_ms is not None]
        start_ms = min(absolute) if absolute else now_ms
    times = [_placed_ms(action, start_ms) for action in raw_actions]
    actions = [
        EpisodeAction(
            tool=action.tool,
            input=action.input,
            output=action.output,
            timestamp=format_rfc3339(ms) if ms is not None else None,
        )
        for action, ms in zip(raw_actions, times, strict=True)
    ]
    return start_ms, actions, times


def _errors_and_decisions(raw: Mapping[str, Any]) -> tuple[list[EpisodeError], list[str]]:
    """The errors encountered and the (non-empty) key decisions, each checked."""
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
    return errors, decisions


def _importance(value: Any, outcome: str, error_count: int, access_count: int) -> float:
    """The importance given (0..1), else the one calculate_importance gives."""
    if value is None:
        return calculate_importance(outcome, error_count, access_count)
    importance = float(_number(value, field="importance", default=0.0))
    if importance > 1:
        raise InvalidArgument(
            f"importance must be between 0 and 1, not {value!r}", field="importance"
        )
    return importance


class _AccessTimes(TypedDict):
    last_accessed: str | None
    recorded_at: str


def _access_times(raw: Mapping[str, Any], *, now_ms: int) -> _AccessTimes:
    """last_accessed (None when never) and recorded_at (now when not given), as RFC 3339.

    Unpacked into Episode(...) after its other fields, so a bad time is reported after them.
    """
    last_accessed = raw.get("last_accessed")
    recorded_at = raw.get("recorded_at")
    return {
        "last_accessed": (
            format_rfc3339(time_ms(last_accessed, field="last_accessed"))
            if last_accessed not in (None, "")
            else None
        ),
        "recorded_at": format_rfc3339(
            time_ms(recorded_at, field="recorded_at") if recorded_at not in (None, "") else now_ms
        ),
    }


def _duration(value: Any, action_times: list[int]) -> float:
    """duration_seconds as given; when not given, from the first to the last action time."""
    if value is not None or not action_times:
        return _number(value, field="duration_seconds", default=0)
    seconds = (max(action_times) - min(action_times)) / 1000
    return int(seconds) if seconds.is_integer() else seconds


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


# --------------------------------------------------------------------------------------------
# Stored form


def episode_document(episode: Episode) -> dict[str, Any]:
    """The episode as stored in its JSON file (and read back by parse_episode).

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

    For the index's copy; files from disk go through parse_episode.
    """
    fields = dict(data)
    fields["action_log"] = [EpisodeAction(**item) for item in data["action_log"]]
    fields["errors_encountered"] = [EpisodeError(**item) for item in data["errors_encountered"]]
    return Episode(**fields)


def check_normalized(episode: Episode) -> None:
    """Refuse an Episode that is not in normalized form (InvalidArgument naming the field).

    The store writes what it is handed: an Episode built by hand with a path in its id, a
    local time, a task type that does not exist or a project key that does not match its
    folder would be stored as a file that reads back differently, or not at all. A normalized
    episode reads back from its document unchanged.
    """
    again = parse_episode(
        episode_document(episode), now_ms=0, require_timestamp=True, task_type_of=None
    )
    if again == episode:
        return
    for item in dataclasses.fields(Episode):
        if getattr(again, item.name) != getattr(episode, item.name):
            raise InvalidArgument(
                f"episode {item.name} is not in normalized form ({getattr(episode, item.name)!r}"
                f"; normalized: {getattr(again, item.name)!r}): record episodes with the episode "
                "record command, which normalizes them",
                field=item.name,
            )


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
