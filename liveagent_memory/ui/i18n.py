"""Languages of the app: the system locale by default, a manual switch, Qt Linguist files.

The `.ts` sources and compiled `.qm` files live in `i18n/` at the top of the repository, found
at run time by `ui/resources.data_dir` (installed wheel, editable install and bundle alike);
`scripts/i18n.py` regenerates and checks them. Switching installs a new QTranslator, which
makes Qt post `QEvent.LanguageChange` to every widget; pages re-label in `retranslate()`
(STYLE 10).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from liveagent_memory.ui.resources import data_dir

I18N_DIR = data_dir("i18n")
LANGUAGES = ("en", "zh_CN")  # the languages with .ts files; "" in settings follows the system
# Names shown in the language menu, each in its own language (so anyone can find theirs).
LANGUAGE_NAMES = {"en": "English", "zh_CN": "简体中文"}


def system_language() -> str:
    """The supported language closest to the system locale (Chinese → zh_CN, else English)."""
    name = QLocale.system().name()  # e.g. "zh_CN", "zh_TW", "en_US", "C"
    return "zh_CN" if name.startswith("zh") else "en"


def resolve_language(choice: str) -> str:
    """The language to use for a settings value ("" follows the system)."""
    return choice if choice in LANGUAGES else system_language()


class Translations:
    """Owns the installed translators; `switch()` replaces them (the open window re-labels)."""

    def __init__(self, app: QCoreApplication) -> None:
        self._app = app
        self._installed: list[QTranslator] = []
        self.language = "en"

    def switch(self, language: str) -> bool:
        """Install `language` ("" = system); return False when its `.qm` file is missing."""
        language = resolve_language(language)
        for translator in self._installed:
            self._app.removeTranslator(translator)
        self._installed = []
        ours = QTranslator(self._app)
        loaded = ours.load(str(I18N_DIR / f"{language}.qm"))
        if loaded:
            self._app.installTranslator(ours)
            self._installed.append(ours)
        # Qt's own strings (standard buttons, context menus) from the Qt install, when present.
        qt_base = QTranslator(self._app)
        qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        if language != "en" and qt_base.load(f"qtbase_{language}", qt_dir):
            self._app.installTranslator(qt_base)
            self._installed.append(qt_base)
        # Dates, day and month names follow the language too (the weekday list, calendars).
        QLocale.setDefault(QLocale("zh_CN" if language == "zh_CN" else "en_US"))
        # Removing and installing translators both post LanguageChange to every widget.
        self.language = language
        return loaded
