"""Core messages shown in the UI's language."""

from __future__ import annotations

import re
import subprocess

import pytest
from PySide6.QtCore import QCoreApplication, QTranslator

from memdesk.core import errors
from memdesk.core.index import workspace
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.qt import messages, translations

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese(qapp):  # type: ignore[no-untyped-def]
    translations.compile_all()
    assert translations.install(qapp, "zh_CN") == "zh_CN"
    yield
    for translator in qapp.findChildren(QTranslator):
        QCoreApplication.removeTranslator(translator)
        translator.deleteLater()


def test_english_without_a_translation(qapp) -> None:  # type: ignore[no-untyped-def]
    made = msg(QT_TRANSLATE_NOOP("core", "{path}: no such memory file in {root}"), path="a.md", root="/w")
    assert messages.text(made) == "a.md: no such memory file in /w"
    assert messages.text(errors.PathNotAllowed(made)) == str(made)
    assert messages.text(ValueError("plain")) == "plain"


def test_a_core_error_in_chinese(chinese) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(errors.NoteReadError) as caught:
        workspace.decode_note(b"\xff\xfeh\x00i\x00", name="memory/x.md")
    assert messages.text(caught.value) == "memory/x.md：UTF-16 文本；已跳过——请另存为 UTF-8"


def test_a_missing_workspace_in_chinese(chinese, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Opening a workspace folder that is gone (a recent one since deleted) says so in
    the window's language, naming the folder; the CLI keeps the English line."""
    from memdesk.core import engine

    gone = tmp_path / "gone"
    with pytest.raises(errors.WorkspaceError) as caught:
        engine.Engine(gone, embedder=None, db_path=tmp_path / "i.sqlite")
    assert str(caught.value) == f"{gone}: workspace folder does not exist"
    assert messages.text(caught.value) == f"{gone}：工作区文件夹不存在"
    assert not gone.exists() and not (tmp_path / "i.sqlite").exists()


def test_nested_messages_and_format_specs_in_chinese(chinese) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(errors.NoteReadError) as caught:
        workspace.decode_note(b"x" * (workspace.MAX_NOTE_BYTES + 1), name="big.md")
    assert messages.text(caught.value) == "big.md：10.0 MB，超过单条笔记 10 MB 的上限；已跳过"


def test_a_skip_reason_in_chinese(chinese, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "MEMORY.md").symlink_to(tmp_path / "elsewhere.md")
    (reason,) = [s.reason for s in workspace.scan_memory_files(tmp_path).skipped]
    assert messages.text(reason) == "符号链接（不跟随符号链接）"


def test_an_unknown_template_stays_english(chinese) -> None:  # type: ignore[no-untyped-def]
    assert messages.text(msg("not catalogued {n}", n=3)) == "not catalogued 3"


def test_a_translation_that_does_not_fit_falls_back_to_english(qapp, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ts = tmp_path / "bad.ts"
    ts.write_text(
        '<?xml version="1.0" encoding="utf-8"?><!DOCTYPE TS><TS version="2.1" language="zh_CN">'
        "<context><name>core</name><message><source>{path} is gone</source>"
        "<translation>{where} 不见了</translation></message></context></TS>",
        encoding="utf-8",
    )
    qm = tmp_path / "bad.qm"
    subprocess.run([translations._tool("lrelease"), "-silent", str(ts), "-qm", str(qm)], check=True)
    bad = QTranslator()
    assert bad.load(str(qm))
    QCoreApplication.installTranslator(bad)
    try:
        assert QCoreApplication.translate("core", "{path} is gone") == "{where} 不见了"
        assert messages.text(msg("{path} is gone", path="x.md")) == "x.md is gone"
    finally:
        QCoreApplication.removeTranslator(bad)


def test_a_bad_model_file_in_chinese(chinese, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Why search is keyword-only, as the status bar shows it for a file that is not a GGUF."""
    from memdesk.core.embed import gguf_header

    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(errors.EmbedderUnavailable) as caught:
        gguf_header.inspect_gguf(bad)
    assert str(caught.value) == f"Embedding model {bad}: not a GGUF file (bad magic)"
    assert messages.text(caught.value) == f"嵌入模型 {bad}：不是 GGUF 文件（文件头标识不符）"


def test_why_search_is_keyword_only_in_chinese(chinese, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.embed import loader

    embedder, reason = loader.load_embedder(None)
    assert embedder is None and reason == "no embedding model selected (FTS-only by choice)"
    assert messages.text(reason) == "未选择嵌入模型（主动选择仅全文检索）"
    _, reason = loader.load_embedder(tmp_path / "missing.gguf")
    assert messages.text(reason) == f"嵌入模型 {tmp_path / 'missing.gguf'}：找不到文件"
