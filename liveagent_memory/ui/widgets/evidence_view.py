"""The detail pane of a memory: title, facts, evidence and source, then the body as Markdown."""

from __future__ import annotations

import html
import json
from datetime import datetime
from typing import Any

from PySide6.QtWidgets import QWidget

from liveagent_memory.ui.strings import value_text
from liveagent_memory.ui.widgets.safe_text import SafeTextBrowser, markdown_html

SELECTION_PREVIEW = 20  # names listed for a multi-selection; the rest are counted
DATE_FORMAT = "%Y-%m-%d %H:%M"


def local_time(ms: int | None) -> str:
    """Epoch milliseconds as local date and time (— when unknown)."""
    if not ms:
        return "—"
    return datetime.fromtimestamp(ms / 1000).strftime(DATE_FORMAT)


def _text(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


class EvidenceView(SafeTextBrowser):
    """Shows one memory as `memory_read` returns it, a multi-selection, or a message.

    A SafeTextBrowser: links are not followed and no resource a memory names is loaded.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory_detail")
        self._shown: tuple[str, Any] = ("message", "")

    # --- what to show -----------------------------------------------------------------------
    def show_message(self, text: str) -> None:
        """An empty state: one sentence in italics."""
        self._shown = ("message", text)
        self.setHtml(f"<p><i>{html.escape(text)}</i></p>")

    def show_selection(self, rows: list[dict[str, Any]], count: int) -> None:
        """Several memories selected: how many, and the first names."""
        self._shown = ("selection", (rows, count))
        title = self.tr("%n memories selected", "", count)
        names = "".join(
            f"<li>{html.escape(row.get('description') or row['slug'])}</li>"
            for row in rows[:SELECTION_PREVIEW]
        )
        more = count - min(len(rows), SELECTION_PREVIEW)
        and_more = self.tr("…and %n more", "", more)
        rest = f"<p>{html.escape(and_more)}</p>" if more > 0 else ""
        hint = self.tr("Accept or delete them all with the buttons below.")
        self.setHtml(
            f"<h3>{html.escape(title)}</h3><ul>{names}</ul>{rest}<p><i>{html.escape(hint)}</i></p>"
        )

    def show_memory(self, data: dict[str, Any]) -> None:
        """One memory: `data` is a memory_read result."""
        self._shown = ("memory", data)
        entry = data["entry"]
        title = html.escape(entry.get("description") or entry["slug"])
        rows = "".join(
            f"<tr><td><b>{html.escape(label)}</b></td><td>{html.escape(value)}</td></tr>"
            for label, value in self.facts(data)
        )
        body = markdown_html(data.get("content") or "", self.font())
        self.setHtml(f"<h3>{title}</h3><table cellpadding='2'>{rows}</table><hr/>{body}")

    def retranslate(self) -> None:
        """Render what is shown again in the current language."""
        kind, value = self._shown
        if kind == "memory":
            self.show_memory(value)
        elif kind == "selection":
            self.show_selection(*value)

    # --- the facts table --------------------------------------------------------------------
    def facts(self, data: dict[str, Any]) -> list[tuple[str, str]]:
        """(label, value) rows for a memory: identity, review, evidence, source, dates, extras."""
        entry = data["entry"]
        evidence: dict[str, Any] = data.get("evidence") or {}
        source: dict[str, Any] = data.get("source") or {}
        where = entry.get("workdir") or entry.get("workdir_hash") or ""
        scope = f"{value_text(entry['scope'])} {where}"
        facts = [
            (self.tr("Slug"), entry["slug"]),
            (self.tr("Scope"), scope.strip()),
            (self.tr("Type"), value_text(entry["type"])),
            (
                self.tr("Review"),
                self.tr("unreviewed") if entry["unreviewed"] else self.tr("reviewed"),
            ),
        ]
        if entry.get("risk_flag"):
            facts.append(
                (
                    self.tr("Risk"),
                    self.tr("%1: it reads like an instruction to the agent").replace(
                        "%1", value_text(entry["risk_flag"])
                    ),
                )
            )
        confidence = value_text(evidence.get("confidence") or "unknown")
        if evidence.get("auto_downgraded"):
            confidence = self.tr("%1 (lowered: the quote is too short)").replace("%1", confidence)
        facts += [
            (self.tr("Confidence"), confidence),
            (self.tr("Quote"), evidence.get("source_quote") or "—"),
            (self.tr("Reasoning"), evidence.get("reasoning") or "—"),
        ]
        for label, value in (
            (self.tr("Aliases"), ", ".join(evidence.get("aliases") or [])),
            (self.tr("Supersedes"), evidence.get("supersedes") or ""),
            (self.tr("Conflicts with"), ", ".join(evidence.get("conflicts_with") or [])),
        ):
            if value:
                facts.append((label, value))
        facts.append((self.tr("Written by"), self.who(source)))
        for label, key in (
            (self.tr("Model"), "model"),
            (self.tr("Conversation"), "conversationId"),
        ):
            if source.get(key):
                facts.append((label, _text(source[key])))
        facts += [
            (self.tr("Created"), local_time(entry.get("created_at"))),
            (self.tr("Updated"), local_time(entry.get("updated_at"))),
        ]
        links = data.get("links") or []
        if links:
            facts.append((self.tr("Links"), ", ".join(_text(link) for link in links)))
        for key, value in sorted((data.get("extra") or {}).items()):
            facts.append((str(key), _text(value)))
        return facts

    def who(self, source: dict[str, Any]) -> str:
        """Who last wrote the memory, from its `source:` block."""
        if source.get("lifecycle") == "memory-organize":
            return self.tr("the organizer")
        labels = {
            "user": self.tr("a person"),
            "extractor": self.tr("extraction after a conversation"),
            "tool": self.tr("an agent's memory tool"),
        }
        trigger = str(source.get("trigger") or "")
        return labels.get(trigger, trigger or self.tr("unknown"))
