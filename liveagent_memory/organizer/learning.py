"""What consolidation learns from episodes: anti-patterns, skills and patterns (issue 18).

Plain Python over episodes and the memories that exist, no I/O: organizer/consolidate.py reads
them, asks the model for a pattern's words, and stores what this module proposes as a run's
review queue. Per project (an episode's workdir; unscoped episodes together, as global):

- an **anti-pattern** (a `feedback` memory) when one error (domain/signatures.py
  `error_signature`) recurs in CONSOLIDATE_MIN_EPISODES episodes or more, with the fixes found;
- a **skill** when one action sequence (`action_signature`) succeeds that often, rendered by
  store/skills.py (when to use from the goals, the steps, common errors and their fixes, exit
  criteria from the outcome);
- a **pattern** (a `project` memory) from a cluster of alike successful episodes, in the
  model's words (`pattern_clusters`, `pattern_proposal`).

A memory that already covers a lesson (its signature, its name or steps, or a description alike
by REFERENCE B9's bars) is updated with the new evidence instead. Every proposal cites its
episodes in its own text (id, date, a quote of the error or the actions, the goal), in the
episodes' language; its confidence grows by CONSOLIDATE_CONFIDENCE_STEP per episode cited.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.risk import RiskLevel
from liveagent_memory.domain.schema import CommonError, Episode, EpisodeError, EvidenceView
from liveagent_memory.domain.signatures import action_signature, error_signature, is_chinese, mask
from liveagent_memory.domain.similar import text_similarity
from liveagent_memory.domain.skills import EXAMPLE
from liveagent_memory.organizer.decisions import (
    EntryKey,
    OrganizerEntry,
    SafeDecision,
    kept_evidence,
)
from liveagent_memory.organizer.run_record import ReasonCode
from liveagent_memory.store.merge import union_content
from liveagent_memory.store.rules import suggest_slug
from liveagent_memory.store.skills import (
    OtherSection,
    Skill,
    merge_skills,
    parse_skill,
    render_skill,
)

ANTI_PATTERN, SKILL, PATTERN = "antiPattern", "skill", "pattern"
MEMORY_TYPE = {ANTI_PATTERN: "feedback", SKILL: "skill", PATTERN: "project"}
# The section headings a proposal writes, by language; both are read back.
EPISODES = {"en": "## Episodes", "zh": "## 经历"}
FIXES = {"en": "## Fixes that worked", "zh": "## 有效的解决办法"}
WHEN = {"en": "## When it applies", "zh": "## 适用情况"}
# The machine-read line naming what a memory learned: an error's or an action sequence's
# signature, so a later run updates the memory instead of proposing another.
_SIGNATURE_LINE = {"en": "Signature: `{}`", "zh": "签名：`{}`"}
_SIGNATURE = re.compile(r"^(?:Signature:|签名：)\s*`([^`\n]+)`\s*$", re.MULTILINE)
_CITED = re.compile(r"^- ([A-Za-z0-9][A-Za-z0-9_-]*)\s*[(（]", re.MULTILINE)
_SECTION_END = re.compile(r"^(?:#{1,6} |Signature:|签名：)", re.MULTILINE)
_STEP_JOIN = " → "


@dataclass
class Proposal:
    """One learned memory to write: new, or an existing one with new evidence."""

    kind: str  # ANTI_PATTERN | SKILL | PATTERN
    slug: str
    scope: str
    workdir_hash: str
    description: str
    body: str
    episodes: tuple[str, ...]  # the new episodes it cites
    cited: int  # every episode its text cites (old ones of an update too)
    language: str  # en | zh
    quote: str  # one quote from the episodes (the evidence's source quote)
    previous_body: str | None = None  # an update's text before
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def confidence(self) -> float:
        """REFERENCE B9: +.05 per confirming episode past the first repeat, capped."""
        extra = max(0, self.cited - config.CONSOLIDATE_MIN_EPISODES)
        value = config.CONSOLIDATE_BASE_CONFIDENCE + config.CONSOLIDATE_CONFIDENCE_STEP * extra
        return round(min(config.CONSOLIDATE_CONFIDENCE_CAP, value), 2)

    def decision(self) -> SafeDecision:
        """The review queue's entry: an upsert a person must accept (never auto-safe)."""
        update = self.previous_body is not None
        verb = "update" if update else "new"
        reason = (
            f"Learned from {len(self.episodes)} episodes ({verb} {_KIND_WORDS[self.kind]}): "
            f"{', '.join(self.episodes)}"
        )
        return SafeDecision(
            op="upsert",
            slug=self.slug,
            scope=self.scope,
            workdir_hash=self.workdir_hash,
            reason=reason,
            confidence=self.confidence,
            risk_level=RiskLevel.MEDIUM,
            requires_user_ack=True,
            source_slugs=(self.slug,),
            memory_type=MEMORY_TYPE[self.kind],
            description=self.description,
            body=self.body,
            previous_body=self.previous_body,
            reason_code=ReasonCode.LEARNED,
            reason_params={
                "kind": self.kind,
                "episodes": list(self.episodes),
                "count": len(self.episodes),
                "cited": self.cited,
                "update": update,
                "language": self.language,
                "quote": self.quote,
                **self.params,
            },
        )


_KIND_WORDS = {ANTI_PATTERN: "anti-pattern", SKILL: "skill", PATTERN: "pattern"}
# The episodes not to propose again for a memory, (scope, workdir_hash, slug) -> episode ids:
# a person rejected them for it, or a proposal citing them still waits (consolidate.History).
Withheld = Mapping[EntryKey, frozenset[str]]


def learned_provenance(decision: SafeDecision, current: EvidenceView | None) -> dict[str, Any]:
    """The history reason and evidence a learned memory's write carries (batch item fields):
    which episodes it came from. An update keeps the memory's evidence (`current`); a new
    memory's evidence says where it came from and quotes one of its episodes."""
    params = decision.reason_params
    episodes = ", ".join(str(e) for e in params.get("episodes") or [])
    note = f"consolidation: {_KIND_WORDS.get(str(params.get('kind')), 'lesson')} from {episodes}"
    fields = kept_evidence(current) if current is not None else {}
    fields["reason"] = _clip(note, config.MAX_REASON_CHARS)
    if current is None:
        fields["reasoning"] = _clip(note, config.MAX_REASONING_CHARS)
        quote = str(params.get("quote") or "").strip()
        if quote:
            fields.update(confidence="medium", source_quote=quote)
    return fields


# --- reading episodes -------------------------------------------------------------------------
def by_place(episodes: Iterable[Episode]) -> dict[str, list[Episode]]:
    """Episodes per project (workdir hash; '' for the unscoped ones), oldest first."""
    places: dict[str, list[Episode]] = {}
    for episode in sorted(episodes, key=lambda e: (e.timestamp, e.id)):
        places.setdefault(episode.workdir_hash, []).append(episode)
    return places


def _scope(place: str) -> str:
    return "project" if place else "global"


def _in_place(entries: Iterable[OrganizerEntry], place: str, kind: str) -> list[OrganizerEntry]:
    scope = _scope(place)
    return [
        e
        for e in entries
        if e.scope == scope and e.workdir_hash == place and e.type == MEMORY_TYPE[kind]
    ]


def _language(texts: Sequence[str]) -> str:
    return "zh" if is_chinese(texts) else "en"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _day(episode: Episode) -> str:
    return episode.timestamp[:10]


def _line(episode: Episode, quote: str, language: str) -> str:
    """One cited episode: its id verbatim, its date, a quote and its goal."""
    quote = _clip(quote, config.CONSOLIDATE_QUOTE_CHARS)
    goal = _clip(episode.goal, config.CONSOLIDATE_QUOTE_CHARS)
    if language == "zh":
        return f"- {episode.id}（{_day(episode)}）：「{quote}」——目标：{goal}"
    return f'- {episode.id} ({_day(episode)}): "{quote}" — goal: {goal}'


def _error_text(error: EpisodeError) -> str:
    return f"{error.error_type}: {error.message}" if error.error_type else error.message


def _actions_text(episode: Episode) -> str:
    steps = episode.action_log[: config.CONSOLIDATE_MAX_STEPS]
    return _STEP_JOIN.join(f"{a.tool} {a.input}".strip() for a in steps)


def cited(body: str) -> set[str]:
    """The episode ids a learned memory's text cites: the `- <id> (date)` lines of its
    episodes section (a fix's line ends with its episode in brackets too: not counted)."""
    return set(_CITED.findall(_section(body, EPISODES)))


def _section(body: str, headings: Mapping[str, str]) -> str:
    """The text of the section under one of `headings` (either language); "" without one."""
    for heading in headings.values():
        match = re.search(rf"^{re.escape(heading)}[ \t]*$", body, re.MULTILINE)
        if match is not None:
            following = _SECTION_END.search(body, match.end())
            return body[match.end() : following.start() if following else len(body)]
    return ""


def _signature_of(body: str) -> str | None:
    found = _SIGNATURE.search(body)
    return found.group(1).strip() if found else None


def _fresh(
    target: OrganizerEntry | None, slug: str, place: str, found: Sequence[Episode], no: Withheld
) -> list[Episode]:
    """The episodes still to cite: not already in the memory, not withheld from it."""
    old = cited(target.body) if target else set()
    refused = no.get((_scope(place), place, slug), frozenset())
    return [e for e in found if e.id not in old and e.id not in refused]


def _enough(target: OrganizerEntry | None, fresh: Sequence[Episode]) -> bool:
    """A new memory needs a repeat; an existing one takes any confirming episode."""
    return len(fresh) >= (1 if target else config.CONSOLIDATE_MIN_EPISODES)


def _slug(prefix: str, title: str, key: str) -> str:
    """A stable slug: the prefix, the title's words, and a short hash of what it learned."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:6]
    words = suggest_slug(title)[:40].strip("-")
    return f"{prefix}-{words}-{digest}" if words != config.FALLBACK_SLUG else f"{prefix}-{digest}"


def _add_lines(body: str, headings: Mapping[str, str], lines: Sequence[str], language: str) -> str:
    """`body` with `lines` at the end of its section under one of `headings` (either
    language), or in a new section in `language` before the signature line."""
    if not lines:
        return body
    text = body.rstrip()
    for heading in headings.values():
        match = re.search(rf"^{re.escape(heading)}[ \t]*$", text, re.MULTILINE)
        if match is None:
            continue
        following = _SECTION_END.search(text, match.end())
        end = following.start() if following else len(text)
        head, tail = text[:end].rstrip(), text[end:].strip()
        added = head + "\n" + "\n".join(lines)
        return f"{added}\n\n{tail}" if tail else added
    block = f"{headings[language]}\n\n" + "\n".join(lines)
    found = _SIGNATURE.search(text)
    if found is None:
        return f"{text}\n\n{block}"
    return f"{text[: found.start()].rstrip()}\n\n{block}\n\n{text[found.start() :]}"


# --- anti-patterns ------------------------------------------------------------------------------
def _errors(episodes: Sequence[Episode]) -> dict[str, list[tuple[Episode, EpisodeError]]]:
    """Each error signature with the episodes that met it (an episode counted once)."""
    found: dict[str, list[tuple[Episode, EpisodeError]]] = {}
    for episode in episodes:
        for error in episode.errors_encountered:
            signature = error_signature(error.error_type, error.message)
            if not signature:
                continue  # an error with neither type nor message says nothing to learn
            seen = found.setdefault(signature, [])
            if all(e.id != episode.id for e, _error in seen):
                seen.append((episode, error))
    return found


def _anti_pattern_target(
    existing: Sequence[OrganizerEntry], signature: str, description: str
) -> OrganizerEntry | None:
    """The feedback memory that already covers this error: its signature, else the most
    alike description at or above CONSOLIDATE_ANTI_PATTERN_MERGE_SIMILARITY."""
    for entry in existing:
        if _signature_of(entry.body) == signature:
            return entry
    return _most_alike(existing, description, config.CONSOLIDATE_ANTI_PATTERN_MERGE_SIMILARITY)


def _most_alike(
    existing: Sequence[OrganizerEntry], description: str, bar: float
) -> OrganizerEntry | None:
    scored = [(text_similarity(entry.description, description), entry) for entry in existing]
    best = max(scored, key=lambda pair: pair[0], default=None)
    return best[1] if best is not None and best[0] >= bar else None


def _anti_pattern_description(error: EpisodeError, count: int, language: str) -> str:
    said = _clip(_error_text(error), 70)
    if language == "zh":
        return _clip(f"避免再犯：{said}（已出现 {count} 次）", config.MAX_DESCRIPTION_CHARS)
    return _clip(f"Avoid: {said} (met {count} times)", config.MAX_DESCRIPTION_CHARS)


def anti_patterns(
    place: str, episodes: Sequence[Episode], existing: Sequence[OrganizerEntry], no: Withheld
) -> list[Proposal]:
    """The anti-patterns of one project's episodes (module doc)."""
    mine = _in_place(existing, place, ANTI_PATTERN)
    out: list[Proposal] = []
    for signature, met in _errors(episodes).items():
        found = [episode for episode, _error in met]
        first = met[0][1]
        language = _language([e.goal for e in found] + [_error_text(err) for _e, err in met])
        probe = _anti_pattern_description(first, len(found), language)
        target = _anti_pattern_target(mine, signature, probe)
        slug = target.slug if target else _slug("avoid", first.error_type or "error", signature)
        fresh = _fresh(target, slug, place, found, no)
        if not _enough(target, fresh):
            continue
        errors = {episode.id: error for episode, error in met}
        lines = [_line(e, _error_text(errors[e.id]), language) for e in fresh]
        fixes = [
            f"- {_clip(errors[e.id].resolution, config.CONSOLIDATE_QUOTE_CHARS)} ({e.id})"
            for e in fresh
            if errors[e.id].resolution.strip()
        ]
        total = len(fresh) + (len(cited(target.body)) if target else 0)
        if target is None:
            body = _new_anti_pattern(first, signature, fixes, lines, language, len(fresh))
        else:
            body = _add_lines(target.body, FIXES, fixes, language)
            body = _add_lines(body, EPISODES, lines, language)
        out.append(
            Proposal(
                kind=ANTI_PATTERN,
                slug=slug,
                scope=_scope(place),
                workdir_hash=place,
                description=_anti_pattern_description(first, total, language),
                body=body,
                episodes=tuple(e.id for e in fresh),
                cited=total,
                language=language,
                quote=_clip(_error_text(errors[fresh[0].id]), config.CONSOLIDATE_QUOTE_CHARS),
                previous_body=target.body if target else None,
                params={"errorType": first.error_type, "signature": signature},
            )
        )
    return out


def _new_anti_pattern(
    error: EpisodeError,
    signature: str,
    fixes: Sequence[str],
    lines: Sequence[str],
    language: str,
    count: int,
) -> str:
    said = _clip(_error_text(error), config.CONSOLIDATE_QUOTE_CHARS)
    if language == "zh":
        head = f"不要重蹈覆辙：「{said}」在 {count} 次经历中反复出现。"
        none = "- （尚未记录解决办法）"
    else:
        head = f'Don\'t repeat this: "{said}" recurred in {count} episodes.'
        none = "- (no fix recorded yet)"
    parts = [
        head,
        f"{FIXES[language]}\n\n" + "\n".join(fixes or [none]),
        f"{EPISODES[language]}\n\n" + "\n".join(lines),
        _SIGNATURE_LINE[language].format(signature),
    ]
    return "\n\n".join(parts)


# --- skills -------------------------------------------------------------------------------------
def _sequences(episodes: Sequence[Episode]) -> dict[tuple[str, ...], list[Episode]]:
    """Successful episodes by their action signature (none for an episode without actions)."""
    found: dict[tuple[str, ...], list[Episode]] = {}
    for episode in episodes:
        if episode.outcome != "success" or not episode.action_log:
            continue
        steps = episode.action_log[: config.CONSOLIDATE_MAX_STEPS]
        found.setdefault(action_signature((a.tool, a.input) for a in steps), []).append(episode)
    return found


def _skill_target(
    existing: Sequence[OrganizerEntry], slug: str, signature: str, steps: Sequence[str]
) -> OrganizerEntry | None:
    """The skill that already covers this sequence: its name, its signature or its steps."""
    wanted = [mask(step) for step in steps]
    for entry in existing:
        if entry.slug == slug or _signature_of(entry.body) == signature:
            return entry
        if [mask(step) for step in parse_skill(entry.body).steps] == wanted:
            return entry
    return None


def skills(
    place: str, episodes: Sequence[Episode], existing: Sequence[OrganizerEntry], no: Withheld
) -> list[Proposal]:
    """The skills of one project's episodes (module doc)."""
    mine = _in_place(existing, place, SKILL)
    out: list[Proposal] = []
    for sequence, found in _sequences(episodes).items():
        first, newest = found[0], found[-1]  # (oldest first: by_place)
        language = _language([e.goal for e in found] + [e.summary for e in found])
        signature = _STEP_JOIN.join(sequence)
        # The steps as last done: the repeats counted may reach back before the window.
        steps = [
            _clip(f"{a.tool} {a.input}".strip(), config.CONSOLIDATE_QUOTE_CHARS)
            for a in newest.action_log[: config.CONSOLIDATE_MAX_STEPS]
        ]
        slug = _slug("skill", first.goal, signature)
        target = _skill_target(mine, slug, signature, steps)
        slug = target.slug if target else slug
        fresh = _fresh(target, slug, place, found, no)
        if not _enough(target, fresh):
            continue
        lines = [_line(e, _actions_text(e), language) for e in fresh]
        skill = _skill(fresh, steps, lines, signature, language)
        if target is not None:
            current = parse_skill(target.body)
            skill.others = [_with_old_episodes(skill.others[0], current)]
            when = _more_goals(current.when_to_use, fresh, language)
            skill = merge_skills(current, skill)
            skill.when_to_use = when
        total = len(fresh) + (len(cited(target.body)) if target else 0)
        out.append(
            Proposal(
                kind=SKILL,
                slug=slug,
                scope=_scope(place),
                workdir_hash=place,
                description=_skill_description(fresh, total, language),
                body=render_skill(skill),
                episodes=tuple(e.id for e in fresh),
                cited=total,
                language=language,
                quote=_clip(_actions_text(fresh[0]), config.CONSOLIDATE_QUOTE_CHARS),
                previous_body=target.body if target else None,
                params={"steps": steps, "signature": signature},
            )
        )
    return out


def _skill(
    found: Sequence[Episode], steps: list[str], lines: list[str], signature: str, language: str
) -> Skill:
    goals = list(dict.fromkeys(_clip(e.goal, 120) for e in found if e.goal.strip()))
    errors = [
        CommonError(error=_clip(_error_text(err), 120), fix=_clip(err.resolution, 160))
        for e in found
        for err in e.errors_encountered
    ]
    summaries = list(dict.fromkeys(_clip(e.summary, 160) for e in found if e.summary.strip()))
    if language == "zh":
        when = "任务类似这些时：" + "；".join(goals)
        done = summaries[:3] or ["任务成功完成"]
    else:
        when = "When the task is like: " + "; ".join(goals)
        done = summaries[:3] or ["The task ends in success"]
    episodes = "\n".join([*lines, "", _SIGNATURE_LINE[language].format(signature)])
    return Skill(
        when_to_use=when,
        steps=steps,
        common_errors=list({e.error: e for e in errors}.values()),
        exit_criteria=done,
        others=[OtherSection(after=EXAMPLE, heading=EPISODES[language], text=episodes)],
    )


def _more_goals(when: str, found: Sequence[Episode], language: str) -> str:
    """A skill's "when to use" with the goals of `found` it does not name yet, added as they
    read (a sentence merge would split "release 2.0" at its dot)."""
    goals = [_clip(e.goal, 120) for e in found if e.goal.strip()]
    new = [goal for goal in dict.fromkeys(goals) if goal not in when]
    if not new:
        return when
    joiner = "；" if language == "zh" else "; "
    return f"{when.rstrip()}{joiner}{joiner.join(new)}" if when.strip() else joiner.join(new)


def _with_old_episodes(section: OtherSection, current: Skill) -> OtherSection:
    """The episodes section of an update: the skill's cited episodes, then the new ones, then
    its signature line."""
    old = next((o for o in current.others if o.heading.strip() in EPISODES.values()), None)
    if old is None:
        return section
    before = old.text.splitlines()
    cited_lines = [line for line in before if line.startswith("- ")]
    new = [
        line
        for line in section.text.splitlines()
        if line.startswith("- ") and line not in cited_lines
    ]
    rest = [line for line in before if line.strip() and not line.startswith("- ")]
    text = "\n".join([*cited_lines, *new, *([""] + rest if rest else [])])
    return OtherSection(after=old.after, heading=old.heading, text=text)


def _skill_description(found: Sequence[Episode], total: int, language: str) -> str:
    goal = _clip(found[0].goal, 70)
    if language == "zh":
        return _clip(f"做法：{goal}（成功 {total} 次）", config.MAX_DESCRIPTION_CHARS)
    return _clip(f"How to: {goal} (worked {total} times)", config.MAX_DESCRIPTION_CHARS)


# --- patterns (the model's words) ---------------------------------------------------------------
def _episode_text(episode: Episode) -> str:
    steps = " ".join(a.tool for a in episode.action_log[: config.CONSOLIDATE_MAX_STEPS])
    return f"{episode.goal} {steps}"


def pattern_clusters(episodes: Sequence[Episode]) -> list[list[Episode]]:
    """Successful episodes of one project whose goals and actions are alike (REFERENCE B9's
    cluster similarity, to the cluster's first member), biggest first; only repeats."""
    clusters: list[list[Episode]] = []
    for episode in episodes:
        if episode.outcome != "success":
            continue
        text = _episode_text(episode)
        home = next(
            (
                c
                for c in clusters
                if text_similarity(_episode_text(c[0]), text)
                >= config.CONSOLIDATE_CLUSTER_SIMILARITY
            ),
            None,
        )
        if home is None:
            clusters.append([episode])
        else:
            home.append(episode)
    repeats = [c for c in clusters if len(c) >= config.CONSOLIDATE_MIN_EPISODES]
    return sorted(repeats, key=len, reverse=True)


def pattern_proposal(
    place: str,
    found: Sequence[Episode],
    words: Mapping[str, str],
    existing: Sequence[OrganizerEntry],
    no: Withheld,
) -> Proposal | None:
    """A pattern from a cluster and the model's `words` (description, pattern, conditions):
    new, or an update of the project memory it reads like (CONSOLIDATE_PATTERN_MERGE_...)."""
    language = _language([e.goal for e in found] + [e.summary for e in found])
    description = _clip(words["description"], config.MAX_DESCRIPTION_CHARS)
    mine = _in_place(existing, place, PATTERN)
    target = _most_alike(mine, description, config.CONSOLIDATE_PATTERN_MERGE_SIMILARITY)
    slug = target.slug if target else _slug("pattern", description, description)
    fresh = _fresh(target, slug, place, found, no)
    if not _enough(target, fresh):
        return None
    lines = [_line(e, e.summary or _actions_text(e), language) for e in fresh]
    text = words["pattern"].strip()
    if words.get("conditions", "").strip():
        text += f"\n\n{WHEN[language]}\n\n{words['conditions'].strip()}"
    if target is None:
        body = f"{text}\n\n{EPISODES[language]}\n\n" + "\n".join(lines)
    else:
        body = _add_lines(union_content(target.body, words["pattern"]), EPISODES, lines, language)
    return Proposal(
        kind=PATTERN,
        slug=slug,
        scope=_scope(place),
        workdir_hash=place,
        description=target.description if target else description,
        body=body,
        episodes=tuple(e.id for e in fresh),
        cited=len(fresh) + (len(cited(target.body)) if target else 0),
        language=language,
        quote=_clip(fresh[0].summary or fresh[0].goal, config.CONSOLIDATE_QUOTE_CHARS),
        previous_body=target.body if target else None,
        params={"description": description},
    )


def episodes_for_prompt(found: Sequence[Episode]) -> str:
    """A cluster's episodes as the pattern call reads them."""
    parts = []
    for e in found:
        decisions = "; ".join(e.key_decisions)
        parts.append(
            f"<episode id={e.id} date={_day(e)}>\ngoal: {e.goal}\nsummary: {e.summary}\n"
            f"actions: {_clip(_actions_text(e), 600)}\ndecisions: {_clip(decisions, 400)}\n"
            "</episode>"
        )
    return "\n".join(parts)
