"""The words the History panel and the Changes view use for a version: its time,
where it came from, its size and why its content was not kept."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QCoreApplication

from memdesk.core import history as history_mod
from memdesk.qt import messages as qt_messages


def source_label(source: str) -> str:
    labels = {
        "memdesk": QCoreApplication.translate("History", "memdesk"),
        "disk": QCoreApplication.translate("History", "on disk (agent)"),
        "mcp": QCoreApplication.translate("History", "MCP"),
        "git": QCoreApplication.translate("History", "git commit"),
        "deleted": QCoreApplication.translate("History", "deleted"),
        "baseline": QCoreApplication.translate("History", "first seen"),
    }
    return labels.get(source, source)


def time_label(at: dt.datetime, *, short: bool = False) -> str:
    """Local time to the second; ``short`` drops the year when it is this year's
    (the History dock's narrow column; the row's tooltip has it whole)."""
    local = at.astimezone()
    if short and local.year == dt.datetime.now().astimezone().year:
        return local.strftime("%m-%d %H:%M:%S")
    return local.strftime("%Y-%m-%d %H:%M:%S")


def size_label(size: int) -> str:
    if size < 1024:
        return QCoreApplication.translate("History", "{0} B").format(size)
    if size < 1024 * 1024:
        return QCoreApplication.translate("History", "{0} KB").format(f"{size / 1024:.1f}")
    return QCoreApplication.translate("History", "{0} MB").format(f"{size / 1024 / 1024:.1f}")


def lines_label(version: history_mod.Version) -> str:
    """ "+3 −1": lines new in it and gone since the version before ("" when unknown)."""
    if version.added is None or version.removed is None:
        return ""
    return f"+{version.added} −{version.removed}"


def content_label(version: history_mod.Version) -> str:
    """ "" when the content is kept; else "no content: <reason>"."""
    if version.digest is not None:
        return ""
    reason = (
        qt_messages.text(version.reason)
        if version.reason is not None
        else QCoreApplication.translate("History", "not kept")
    )
    return QCoreApplication.translate("History", "no content: {0}").format(reason)


def version_label(version: history_mod.Version) -> str:
    """One line: "2026-12-07 03:12:40 · on disk (agent) · 1.2 KB"."""
    parts = [time_label(version.at), source_label(version.source), size_label(version.size)]
    if lines_label(version):
        parts.append(lines_label(version))
    if version.source == "git":
        parts[1] += f" {version.id.removeprefix('git:')[:8]}"
    content = content_label(version)
    if content:
        parts.append(content)
    return " · ".join(parts)
