"""The UI's languages: Qt Linguist sources in ``resources/translations``, chosen by locale.

The sources are ``memdesk_<lang>.ts`` files (XML, reviewable in a diff), kept in step
with the code by PySide6's ``lupdate``. ``python -m memdesk.qt.translations --compile``
runs PySide6's ``lrelease`` to make the ``.qm`` files the app loads; setup and the package
build run it, and the ``.qm`` files are never committed.

The language follows the system locale (``LANG``/``LC_*``) unless the preferences name
one; English needs no file.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from memdesk.core import paths

log = logging.getLogger(__name__)

SYSTEM = "system"
# The languages the preferences offer, each named in itself.
LANGUAGES = {SYSTEM: "", "en": "English", "zh_CN": "简体中文"}


def QT_TRANSLATE_NOOP(context: str, source: str) -> str:
    """Mark ``source`` for ``lupdate`` (which finds the calls by this name) and return it
    untranslated; ``translate(context, source)`` translates it where it is shown.
    PySide's own is typed as returning ``object``, which every use then had to cast."""
    return source


# Qt's own strings that Qt's Chinese catalogue (qtbase_zh_CN.qm, as PySide6 6.11 ships it)
# lacks, by Qt's context: Qt 6 gave the file dialog's labels mnemonics ("&Look in:") and
# moved the file types to QAbstractFileIconProvider, while the catalogue still translates
# Qt 5's texts, so a Chinese file dialog said "Look in:", "Files of type:" and "Folder".
# memdesk's own catalogue translates them in Qt's contexts; Qt asks it when qtbase's has
# no answer. Qt's widgets retranslate these themselves (ui/retranslate.py leaves them).
# tests/ui/test_chinese_ui.py reads every text of a real file dialog, so a gap a new Qt
# opens shows there.
QT_GAPS = {
    "QFileDialog": (
        QT_TRANSLATE_NOOP("QFileDialog", "&Look in:"),
        QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:"),
    ),
    "QAbstractFileIconProvider": (
        QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Folder"),
        QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "File"),
        QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "%1 File"),
        QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Shortcut"),
        QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Drive"),
        QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Unknown"),
    ),
}


def translations_dir() -> Path:
    return paths.resource_dir() / "translations"


def sources() -> list[Path]:
    return sorted(translations_dir().glob("memdesk_*.ts"))


def _tool(name: str) -> str:
    # PySide6 installs pyside6-<tool> wrappers beside python; the binary itself sits in
    # the PySide6 package (used when the wrappers are not on the PATH).
    wrapper = shutil.which(f"pyside6-{name}") or str(Path(sys.executable).with_name(f"pyside6-{name}"))
    if Path(wrapper).is_file():
        return wrapper
    import PySide6

    return str(Path(PySide6.__file__).with_name(name))


def compile_all() -> list[Path]:
    """Compile every ``.ts`` source to a ``.qm`` beside it; returns the ``.qm`` paths."""
    outputs = []
    for ts in sources():
        qm = ts.with_suffix(".qm")
        subprocess.run([_tool("lrelease"), "-silent", str(ts), "-qm", str(qm)], check=True)
        outputs.append(qm)
    return outputs


def language_for(preference: str, locale: QLocale | None = None) -> str | None:
    """The translation to load for ``preference`` (``"system"`` or a code); None: English."""
    if preference != SYSTEM:
        return preference if preference in LANGUAGES and preference != "en" else None
    locale = QLocale.system() if locale is None else locale
    if locale.language() == QLocale.Language.Chinese:
        # Simplified Chinese is what we have; it serves zh_SG too.
        return "zh_CN"
    return None


def current_language(app: QCoreApplication | None = None) -> str | None:
    """The language of memdesk's translator installed on ``app`` (None: English)."""
    app = app or QCoreApplication.instance()
    for translator in app.findChildren(QTranslator) if app is not None else ():
        name = Path(translator.filePath()).stem
        if name.startswith("memdesk_") and not translator.isEmpty():
            return name.removeprefix("memdesk_")
    return None


def install(app: QCoreApplication, preference: str = SYSTEM) -> str | None:
    """Load the UI translation for ``preference`` (plus Qt's own, for its dialogs).

    Returns the language loaded, or None for English (also when the ``.qm`` file is
    missing: then the UI is English and the log says why).
    """
    language = language_for(preference)
    if language is None:
        return None
    qm = translations_dir() / f"memdesk_{language}.qm"
    own = QTranslator(app)
    if not own.load(str(qm)):
        log.warning(
            "no compiled translation %s (run: python -m memdesk.qt.translations "
            "--compile); the interface stays in English",
            qm,
        )
        return None
    app.installTranslator(own)
    # Qt's own catalogue (file dialogs, standard buttons, the edit context menu), installed
    # after memdesk's so that Qt asks it first and falls back to memdesk's for QT_GAPS.
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    qt_own = QTranslator(app)
    if qt_own.load(f"qtbase_{language}", qt_dir):
        app.installTranslator(qt_own)
    else:
        log.warning("no qtbase_%s.qm in %s: Qt's own dialogs and menus stay in English", language, qt_dir)
    return language


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memdesk.qt.translations")
    parser.add_argument(
        "--compile",
        action="store_true",
        required=True,
        help="compile resources/translations/*.ts into .qm files",
    )
    parser.parse_args(argv)
    for qm in compile_all():
        print(qm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
