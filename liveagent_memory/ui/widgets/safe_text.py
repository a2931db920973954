"""A read-only browser for text a person or an agent wrote: Markdown, but nothing it names runs.

Memories and journal days are the user's text. Raw HTML in them is shown as text, links are
not followed and no resource they name (an image path, a URL) is loaded: opening a file from
the text would read the disk on the UI thread, and a link would replace what the pane shows.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QFont, QTextCharFormat, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import QTextBrowser, QWidget

# Markdown as GitHub writes it, but raw HTML in the text is shown as text, never interpreted.
MARKDOWN_FEATURES = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)


def markdown_html(text: str, font: QFont | None = None) -> str:
    """`text` rendered as Markdown (raw HTML kept as text, images as their Markdown text),
    as HTML to place in a page.

    A detached document renders it, so the browser showing the page renders it only once;
    `font` is that browser's, so the text matches the rest of the page.
    """
    document = QTextDocument()
    if font is not None:
        document.setDefaultFont(font)
    document.setMarkdown(text, MARKDOWN_FEATURES)
    _images_as_text(document)
    return document.toHtml()


def _images_as_text(document: QTextDocument) -> None:
    """Replace each image by its Markdown text (`![alt](name)`).

    Why: declining the image in loadResource is not enough. When a view returns nothing,
    QTextDocument reads a local file itself, and the image handler then tries the name as a
    file path: either reads the disk on the UI thread.
    """
    images: list[tuple[int, str]] = []
    for number in range(document.blockCount()):
        fragments = document.findBlockByNumber(number).begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.isValid() and fragment.charFormat().isImageFormat():
                image = fragment.charFormat().toImageFormat()
                alt = image.property(QTextFormat.Property.ImageAltText) or ""
                # One object character per image; a run of the same image is one fragment.
                images += [
                    (fragment.position() + i, f"![{alt}]({image.name()})")
                    for i in range(fragment.length())
                ]
            fragments += 1
    for position, markdown in reversed(images):
        cursor = QTextCursor(document)
        cursor.setPosition(position)
        cursor.setPosition(position + 1, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(markdown, QTextCharFormat())


class SafeTextBrowser(QTextBrowser):
    """A QTextBrowser that follows no link and loads no resource."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        return None
