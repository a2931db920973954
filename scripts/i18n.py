"""Regenerate or check the Qt Linguist files of the app (i18n/ at the repository root).

    python scripts/i18n.py update            # lupdate the .ts sources, lrelease the .qm files
    python scripts/i18n.py check             # CI: .ts match the code, zh_CN complete, .qm fresh
    python scripts/i18n.py fill zh_CN F.json # put translations {"source": "译文"} into a .ts

Sources are scanned with `-locations none`, so moving a string does not change the .ts files:
only a new, changed or removed string does, and `check` names it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "liveagent_memory" / "ui"
I18N = ROOT / "i18n"
LANGUAGES = ("en", "zh_CN")
COMPLETE = ("zh_CN",)  # every string must be translated (English is the source language)


def _tool(name: str) -> str:
    """A PySide6 Linguist tool next to this interpreter, else on PATH."""
    local = Path(sys.executable).parent / f"pyside6-{name}"
    found = str(local) if local.exists() else shutil.which(f"pyside6-{name}")
    if found is None:
        sys.exit(f"pyside6-{name} not found: install PySide6-Essentials")
    return found


def lupdate(ts_dir: Path) -> None:
    for lang in LANGUAGES:
        subprocess.run(
            [
                _tool("lupdate"),
                "-silent",
                "-extensions",
                "py",
                "-locations",
                "none",
                "-no-obsolete",
                "-target-language",
                lang,
                str(SOURCES),
                "-ts",
                str(ts_dir / f"{lang}.ts"),
            ],
            check=True,
        )


def lrelease(ts_dir: Path, qm_dir: Path) -> None:
    for lang in LANGUAGES:
        subprocess.run(
            [
                _tool("lrelease"),
                "-silent",
                str(ts_dir / f"{lang}.ts"),
                "-qm",
                str(qm_dir / f"{lang}.qm"),
            ],
            check=True,
        )


def unfinished(ts: Path) -> list[str]:
    """Sources whose translation is missing or marked unfinished."""
    missing = []
    for message in ET.parse(ts).getroot().iter("message"):
        translation = message.find("translation")
        empty = translation is None or (
            not (translation.text or "").strip() and not list(translation)
        )
        if empty or (translation is not None and translation.get("type") == "unfinished"):
            missing.append(message.findtext("source") or "")
    return missing


def fill(lang: str, mapping_file: Path) -> int:
    """Write translations from a JSON object {source: text or [plural forms]} into a .ts file."""
    mapping: dict[str, str | list[str]] = json.loads(mapping_file.read_text(encoding="utf-8"))
    ts = I18N / f"{lang}.ts"
    tree = ET.parse(ts)
    done = 0
    for message in tree.getroot().iter("message"):
        source = message.findtext("source") or ""
        if source not in mapping:
            continue
        translation = message.find("translation")
        if translation is None:
            translation = ET.SubElement(message, "translation")
        value = mapping[source]
        translation.attrib.pop("type", None)
        for child in list(translation):
            translation.remove(child)
        if message.get("numerus") == "yes":
            translation.text = None
            for form in [value] if isinstance(value, str) else value:
                ET.SubElement(translation, "numerusform").text = form
        else:
            translation.text = value if isinstance(value, str) else value[0]
        done += 1
    tree.write(ts, encoding="utf-8", xml_declaration=True)
    return done


def update() -> None:
    lupdate(I18N)
    lrelease(I18N, I18N)


def check() -> int:
    """Non-zero when the .ts files are stale, zh_CN is incomplete or a .qm is out of date."""
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for lang in LANGUAGES:
            shutil.copy(I18N / f"{lang}.ts", work / f"{lang}.ts")
        lupdate(work)
        for lang in LANGUAGES:
            if (work / f"{lang}.ts").read_bytes() != (I18N / f"{lang}.ts").read_bytes():
                problems.append(f"{lang}.ts is stale: run `python scripts/i18n.py update`")
        for lang in COMPLETE:
            for source in unfinished(work / f"{lang}.ts"):
                problems.append(f"{lang}: untranslated: {source!r}")
        lrelease(I18N, work)
        for lang in LANGUAGES:
            if (work / f"{lang}.qm").read_bytes() != (I18N / f"{lang}.qm").read_bytes():
                problems.append(f"{lang}.qm is out of date: run `python scripts/i18n.py update`")
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update")
    sub.add_parser("check")
    fill_cmd = sub.add_parser("fill")
    fill_cmd.add_argument("lang", choices=LANGUAGES)
    fill_cmd.add_argument("mapping", type=Path)
    args = parser.parse_args()
    if args.command == "update":
        update()
        return 0
    if args.command == "fill":
        print(f"{fill(args.lang, args.mapping)} translations written; now run update")
        return 0
    return check()


if __name__ == "__main__":
    sys.exit(main())
