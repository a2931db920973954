"""An organizer run's texts in the person's language: the run's summary, a decision's reason and
a review item, built from the report's codes and figures (organizer/run_record.py module doc).

Issue 14: translate by code, never by English text. Each function says a known code in words
with `QCoreApplication.translate("RunWords", …)` and falls back to the stored English for a run
written before the codes existed, or for a code this version does not know. A model's own reason
is shown as the model wrote it, under a translated prefix: it is never pretended to be translated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication

from liveagent_memory.organizer.run_record import (
    NoteCode,
    OutcomeCode,
    ReasonCode,
    run_outcome,
)
from liveagent_memory.ui.strings import error_code_text, value_text


def _fill(template: str, *values: object) -> str:
    """`template` with %1, %2, … replaced (highest first, so %1 never eats %10)."""
    for number in range(len(values), 0, -1):
        template = template.replace(f"%{number}", str(values[number - 1]))
    return template


def listed(items: list[str]) -> str:
    """Items joined as a list in the current language ("a, b" / "a、b")."""
    separator = QCoreApplication.translate("RunWords", ", ", "between the items of a list")
    return separator.join(items)


def _then(first: str, second: str) -> str:
    """Two sentences one after the other (a space between them in English, none in Chinese)."""
    both = QCoreApplication.translate("RunWords", "%1 %2", "two sentences one after the other")
    return _fill(both, first, second)


def _figures(outcome: dict[str, Any]) -> str:
    return _fill(
        QCoreApplication.translate("RunWords", "Memories: %1, clusters: %2."),
        int(outcome["memories"]),
        int(outcome["clusters"]),
    )


def summary_text(run: dict[str, Any]) -> str:
    """A finished run's summary (its `final_summary` in English, as stored): from its outcome
    (`run_outcome`: the report's, or a skip's) when there is one, else the stored text (an
    older run; "" for none)."""
    stored = str(run.get("final_summary") or "")
    outcome = run_outcome(run)
    if outcome is None:
        return stored
    try:
        code = outcome.get("code")
        if code == OutcomeCode.NOTHING_TO_ORGANIZE:
            return QCoreApplication.translate("RunWords", "Nothing to organize.")
        if code == OutcomeCode.NOTHING_TO_CONSOLIDATE:
            return QCoreApplication.translate(
                "RunWords", "No new episodes since the last consolidation: nothing to learn."
            )
        if code == OutcomeCode.OFFLINE_PROPOSED:
            said = QCoreApplication.translate(
                "RunWords",
                "%1 merges and deletions proposed for review (offline duplicate check).",
            )
            return _then(_figures(outcome), _fill(said, int(outcome["proposed"])))
        if code == OutcomeCode.GATE_PASSED:
            said = QCoreApplication.translate(
                "RunWords", "%1 decisions passed the risk gate, %2 held back."
            )
            passed, held = int(outcome["proposed"]), int(outcome["heldBack"])
            return _then(_figures(outcome), _fill(said, passed, held))
        if code == OutcomeCode.CONSOLIDATED:
            said = QCoreApplication.translate(
                "RunWords", "%1 new episodes; %2 lessons proposed for review."
            )
            return _fill(said, int(outcome["episodes"]), int(outcome["proposed"]))
    except (KeyError, TypeError, ValueError):
        return stored  # figures missing or not numbers (a hand-edited report): the English
    return stored


def model_words(text: str) -> str:
    """A model's own words, shown as written under a translated prefix."""
    return _fill(QCoreApplication.translate("RunWords", "Model's reason: %1"), text)


def _pair(pair: dict[str, Any]) -> str:
    if pair.get("exact"):
        return _fill(QCoreApplication.translate("RunWords", "%1 (the same text)"), pair["slug"])
    if "margin" in pair:  # close in meaning (organizer/candidates.py), not alike in words
        said = (
            QCoreApplication.translate(
                "RunWords", "%1 (the same meaning in another language: margin %2, cosine %3)"
            )
            if pair.get("crossLingual")
            else QCoreApplication.translate(
                "RunWords", "%1 (the same meaning: margin %2, cosine %3)"
            )
        )
        return _fill(
            said, pair["slug"], f"{float(pair['margin']):.3f}", f"{float(pair['cosine']):.2f}"
        )
    return _fill(
        QCoreApplication.translate("RunWords", "%1 (similarity %2: Jaccard %3, containment %4)"),
        pair["slug"],
        f"{float(pair['similarity']):.2f}",
        f"{float(pair['jaccard']):.2f}",
        f"{float(pair['containment']):.2f}",
    )


def _types_differ(params: dict[str, Any]) -> str:
    """What a duplicates reason adds when the memories' types differ ("" when they do not)."""
    types = params.get("types")
    if not isinstance(types, dict) or not types:
        return ""
    kinds = [
        _fill(QCoreApplication.translate("RunWords", "%1 is %2"), slug, value_text(str(kind)))
        for slug, kind in [(params["target"], params["targetType"]), *types.items()]
    ]
    return _fill(QCoreApplication.translate("RunWords", "The types differ: %1."), listed(kinds))


def _duplicates(params: dict[str, Any], *, exact: bool) -> str:
    if exact:
        said = QCoreApplication.translate(
            "RunWords",
            "Exact duplicates of %1 (the same text once case, width, spaces and punctuation "
            "are set aside): %2.",
        )
        slugs = [str(slug) for slug in params["slugs"]]
    else:
        said = QCoreApplication.translate(
            "RunWords", "Near duplicates of %1 (nothing material differs): %2."
        )
        slugs = [_pair(pair) for pair in params["pairs"]]
    said = _fill(said, params["target"], listed(slugs))
    differ = _types_differ(params)
    return _then(said, differ) if differ else said


def _learned_kind(params: dict[str, Any]) -> str:
    """What consolidation learned (issue 18): an anti-pattern, a skill or a pattern."""
    kinds = {
        "antiPattern": QCoreApplication.translate("RunWords", "anti-pattern"),
        "skill": QCoreApplication.translate("RunWords", "skill"),
        "pattern": QCoreApplication.translate("RunWords", "pattern"),
    }
    return kinds[str(params["kind"])]


def learned_action(params: dict[str, Any]) -> str:
    """A learned proposal's action in the review queue: "New skill", "Update anti-pattern"."""
    if params.get("update"):
        said = QCoreApplication.translate("RunWords", "Update %1", "a learned memory's kind")
    else:
        said = QCoreApplication.translate("RunWords", "New %1", "a learned memory's kind")
    return _fill(said, _learned_kind(params))


def _learned(params: dict[str, Any]) -> str:
    """Why consolidation proposes it: how many episodes, which (their ids as stored)."""
    episodes = [str(episode) for episode in params["episodes"]]
    if params.get("update"):
        said = QCoreApplication.translate(
            "RunWords", "The %1 already exists; %2 more episodes confirm it: %3."
        )
    else:
        said = QCoreApplication.translate("RunWords", "Learned from %2 episodes (%1): %3.")
    return _fill(said, _learned_kind(params), len(episodes), listed(episodes))


_REASONS: dict[str, Callable[[dict[str, Any]], str]] = {
    ReasonCode.LEARNED: _learned,
    ReasonCode.EXACT_DUPLICATES: lambda params: _duplicates(params, exact=True),
    ReasonCode.NEAR_DUPLICATES: lambda params: _duplicates(params, exact=False),
    ReasonCode.MERGED_INTO: lambda params: _fill(
        QCoreApplication.translate("RunWords", "Merged into %1."), params["target"]
    ),
    ReasonCode.ORGANIZER_UPDATE: lambda _params: QCoreApplication.translate(
        "RunWords", "Merge proposed by the organizer (no reason given)."
    ),
    ReasonCode.ORGANIZER_DELETE: lambda _params: QCoreApplication.translate(
        "RunWords", "Deletion proposed by the organizer (no reason given)."
    ),
}


def reason_text(decision: dict[str, Any]) -> str:
    """Why a review-queue decision was proposed, in the current language."""
    stored = str(decision.get("reason") or "")
    code = decision.get("reasonCode")
    if code == ReasonCode.MODEL:
        return model_words(stored) if stored else ""
    words = _REASONS.get(str(code)) if code else None
    if words is None:
        return stored  # an older run, or a code this version does not know
    try:
        return words(dict(decision.get("reasonParams") or {}))
    except (KeyError, TypeError, ValueError):
        return stored  # figures missing or not of their kind: the English is right


def _note(item: dict[str, Any]) -> str | None:
    """A gate note (`NoteCode`) in words; None when it is not one or its figures are off."""
    params = item.get("params")
    if not isinstance(params, dict):
        return None
    code = item.get("code")
    cluster = params.get("cluster", "")
    if code == NoteCode.MERGE_HELD_BACK:
        said = QCoreApplication.translate(
            "RunWords", "%1: the merge into %2 is held back: deleting %3 needs your review."
        )
        return _fill(said, cluster, params["target"], listed([str(s) for s in params["slugs"]]))
    if code == NoteCode.MERGE_TOO_LONG:
        said = QCoreApplication.translate(
            "RunWords",
            "%1: the merge into %2 is held back: the merged text would be longer than %3 "
            "bytes and needs a shorter rewrite by hand.",
        )
        return _fill(said, cluster, params["target"], int(params["bytes"]))
    if code == NoteCode.CONTRADICTION:
        return _contradiction(params)
    if code == NoteCode.EPISODE_SKIPPED:
        said = QCoreApplication.translate(
            "RunWords", "Episode %1 could not be read and was skipped (%2)."
        )
        return _fill(said, params["episode"], params["path"])
    if code == NoteCode.LEARNED_TOO_LONG:
        said = QCoreApplication.translate(
            "RunWords",
            "%1: what was learned would be %2 bytes, over the limit of %3; shorten the memory "
            "to let it grow.",
        )
        return _fill(said, params["slug"], int(params["bytes"]), int(params["limit"]))
    if code == NoteCode.EPISODES_TRUNCATED:
        said = QCoreApplication.translate("RunWords", "Only the newest %1 episodes were read.")
        return _fill(said, int(params["limit"]))
    if code == NoteCode.MERGE_KEPT_APART:
        return _kept_apart(params)
    if code == NoteCode.REVIEW_REQUESTED:
        subject = str(params.get("subject") or "")
        if not subject:
            subject = QCoreApplication.translate("RunWords", "(no memory named)")
        if params.get("action") == "rewrite_hint":
            said = QCoreApplication.translate("RunWords", "%1: the model suggests rewriting %2.")
        else:
            said = QCoreApplication.translate("RunWords", "%1: the model asks for a review of %2.")
        said = _fill(said, cluster, subject)
        why = str(params.get("why") or "")
        return _then(said, model_words(why)) if why else said
    return None


def _difference_kind(kind: str) -> str:
    words = {
        "entity": QCoreApplication.translate("RunWords", "name"),
        "environment": QCoreApplication.translate("RunWords", "environment"),
        "number": QCoreApplication.translate("RunWords", "number"),
        "negation": QCoreApplication.translate("RunWords", "negation"),
        "subject": QCoreApplication.translate("RunWords", "subject"),
        "exception": QCoreApplication.translate("RunWords", "exception"),
    }
    return words[kind]


def _differences(params: dict[str, Any]) -> str:
    """What differs between two memories (organizer/differences.py): what only each says."""
    parts = []
    for difference in params["differences"]:
        sides = [
            listed([str(item) for item in difference[side]]) or "-" for side in ("first", "second")
        ]
        parts.append(_fill("%1 %2 / %3", _difference_kind(str(difference["kind"])), *sides))
    return listed(parts)


def _contradiction(params: dict[str, Any]) -> str:
    """Two memories that disagree (organizer/differences.py), with what only each says."""
    said = QCoreApplication.translate("RunWords", "%1 and %2 disagree (%3); which one is current?")
    return _fill(said, params["first"], params["second"], _differences(params))


def _kept_apart(params: dict[str, Any]) -> str:
    """A model's merge the gate held back: the duplicate check kept two of its memories apart."""
    if params["verdict"] == "contradiction":
        said = QCoreApplication.translate(
            "RunWords",
            "%1: the merge into %2 is held back: %3 and %4 disagree (%5); which one is current?",
        )
    else:
        said = QCoreApplication.translate(
            "RunWords",
            "%1: the merge into %2 is held back: %3 and %4 are different facts (%5).",
        )
    pair = (params["first"], params["second"])
    return _fill(said, params["cluster"], params["target"], *pair, _differences(params))


def review_item_text(item: dict[str, Any]) -> str:
    """A report's review item in the current language: a gate note from its code and figures,
    an error by its code's sentence (naming the memory), else its stored English."""
    try:
        note = _note(item)
    except (KeyError, TypeError, ValueError):
        note = None
    if note is not None:
        return note
    sentence = error_code_text(str(item.get("code") or ""))
    if sentence is None:
        return str(item.get("message") or "")
    slug = item.get("slug")
    if not slug:
        return sentence
    return _fill(QCoreApplication.translate("RunWords", "%1: %2"), slug, sentence)
