"""The Chinese translation: complete, in step with the code, chosen by the locale."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale

from memdesk.qt import translations

REPO = Path(__file__).resolve().parents[2]
TS = REPO / "resources" / "translations" / "memdesk_zh_CN.ts"


def messages(ts: Path) -> dict[tuple[str, str], ET.Element]:
    found = {}
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            translation = message.find("translation")
            assert translation is not None
            if translation.get("type") not in ("obsolete", "vanished"):
                found[(name, message.findtext("source", ""))] = translation
    return found


# A str.format field: {0}, {path}, {size:.1f}.
FIELD = re.compile(r"\{[^{}]*\}")


def test_every_string_is_translated_with_its_placeholders() -> None:
    """No message is unfinished or empty, and each keeps the source's fields ({0}, {path}, {size:.1f})."""
    problems = []
    for (context, source), translation in messages(TS).items():
        text = "".join(translation.itertext()).strip()
        if translation.get("type") == "unfinished" or not text:
            problems.append(f"{context}: {source!r} is untranslated")
        elif sorted(FIELD.findall(source)) != sorted(FIELD.findall(text)):
            problems.append(f"{context}: {source!r} -> {text!r} changes the placeholders")
    assert problems == []


def test_each_message_is_one_string_once() -> None:
    """One source and one translation per message, and no string twice in its context:
    lrelease keeps only the first of a pair, and a message with two sources (a merge
    that joined two halves) silently loses one of them."""
    problems = []
    seen: set[tuple[str, str]] = set()
    for context in ET.parse(TS).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            sources = [s.text or "" for s in message.findall("source")]
            if len(sources) != 1 or len(message.findall("translation")) != 1:
                problems.append(f"{name}: a message with sources {sources}")
                continue
            if (name, sources[0]) in seen:
                problems.append(f"{name}: {sources[0]!r} twice")
            seen.add((name, sources[0]))
    assert problems == []


def test_ts_covers_every_string_in_the_code(tmp_path: Path) -> None:
    """lupdate over the sources finds no string the .ts lacks: new UI text needs a translation."""
    fresh = tmp_path / "fresh.ts"
    sources = sorted(str(p) for p in (REPO / "memdesk").rglob("*.py"))
    subprocess.run(
        [translations._tool("lupdate"), "-silent", "-locations", "none", *sources, "-ts", str(fresh)],
        check=True,
        cwd=REPO,
    )
    missing = sorted(set(messages(fresh)) - set(messages(TS)))
    assert missing == [], f"strings not in {TS.name}: {missing[:10]}"


def test_ts_keeps_no_message_the_code_no_longer_has(tmp_path: Path) -> None:
    """Every message of the .ts is still in the code: lupdate over a copy marks none
    vanished or obsolete. A removed string's translation is dead weight a translator
    would keep reviewing (README: lupdate with -no-obsolete drops them)."""
    copy = tmp_path / TS.name
    copy.write_bytes(TS.read_bytes())
    sources = sorted(str(p) for p in (REPO / "memdesk").rglob("*.py"))
    subprocess.run(
        [translations._tool("lupdate"), "-silent", "-locations", "none", *sources, "-ts", str(copy)],
        check=True,
        cwd=REPO,
    )
    gone = []
    for context in ET.parse(copy).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            translation = message.find("translation")
            if translation is not None and translation.get("type") in ("obsolete", "vanished"):
                gone.append(f"{name}: {message.findtext('source', '')[:60]!r}")
    assert gone == [], f"{len(gone)} messages no longer in the code, e.g. {gone[:5]}"


@pytest.mark.parametrize(
    ("preference", "locale", "expected"),
    [
        ("system", "zh_CN", "zh_CN"),
        ("system", "zh_SG", "zh_CN"),
        ("system", "en_US", None),
        ("system", "de_DE", None),
        ("en", "zh_CN", None),
        ("zh_CN", "en_US", "zh_CN"),
    ],
)
def test_language_follows_locale_unless_preferred(preference: str, locale: str, expected: str | None) -> None:
    assert translations.language_for(preference, QLocale(locale)) == expected


def test_lang_zh_cn_starts_the_app_in_chinese(
    example_workspace: Path, memdesk_home: Path, tmp_path: Path
) -> None:
    """With LANG=zh_CN.UTF-8 the app loads the compiled Chinese translation at start."""
    translations.compile_all()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
    env.update(
        LANG="zh_CN.UTF-8", LANGUAGE="zh_CN", MEMDESK_HOME=str(memdesk_home), QT_QPA_PLATFORM="offscreen"
    )
    shot = tmp_path / "zh.png"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "memdesk",
            "-v",
            "gui",
            "--workspace",
            str(example_workspace),
            "--model",
            "none",
            "--query",
            "鉴权",
            "--screenshot",
            str(shot),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "language zh_CN" in run.stderr
    assert shot.is_file()
