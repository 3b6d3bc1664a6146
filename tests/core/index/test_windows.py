"""Passage windows: which chunks get them, and how lines are packed."""

from __future__ import annotations

from pathlib import Path

from memdesk.core import engine
from memdesk.core.embed.embedder import Embedder
from memdesk.core.index import windows
from memdesk.core.index.store import Store
from memdesk.core.openclaw.text import hash_text


def test_dialog_turns_are_packed_into_windows_under_the_limit() -> None:
    turns = [f"- {'Caroline' if i % 2 else 'Melanie'}: turn {i} " + "word " * 25 for i in range(10)]
    text = "## 1:56 pm — Caroline and Melanie\n\n" + "\n".join(turns)
    out = windows.text_windows(text)
    assert len(out) >= 3
    assert all(len(w) <= windows.WINDOW_CHARS for w in out)
    # Every turn is in exactly one window, in order, and the heading in none.
    assert "\n".join(out).split("\n") == turns
    assert windows.window_hashes(text) == tuple(hash_text(w) for w in out)


def test_prose_and_short_chunks_get_no_windows() -> None:
    """A title and an abstract (SciFact, XQuAD) is one passage: the chunk vector covers it."""
    abstract = "# Structural homeostasis\n\n" + "As the nervous system develops, neurons vary. " * 40
    assert windows.text_windows(abstract) == ()
    assert windows.text_windows("- one\n- two") == ()  # under three lines
    assert windows.text_windows("- a\n- b\n- c") == ()  # would be a single window


def test_a_long_line_is_a_window_by_itself_never_split() -> None:
    long = "- " + "x" * 900
    out = windows.text_windows(f"- short one\n{long}\n- short two")
    assert out == ("- short one", long, "- short two")


def _dialog_workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    turns = [
        "- Caroline: I went to a support group yesterday and it was so powerful.",
        "- Melanie: Wow, that's cool! What happened that was so awesome?",
        "- Caroline: The stories were inspiring. I felt accepted and brave.",
        "- Melanie: I painted a lake sunrise last year, it's special to me.",
        "- Caroline: I'm keen on counseling or working in mental health.",
        "- Melanie: You'd be a great counselor! Your empathy will help people.",
        "- Caroline: Thanks! I'm also saving up to adopt a dog next spring.",
        "- Melanie: My kids would love a dog. We went camping in the mountains.",
    ]
    (root / "memory" / "2023-05-08.md").write_text(
        "# 2023-05-08\n\n## 1:56 pm — Caroline and Melanie\n\n" + "\n".join(turns) + "\n", encoding="utf-8"
    )
    (root / "MEMORY.md").write_text("# MEMORY\n\nCaroline and Melanie are friends.\n", encoding="utf-8")
    return root


def test_a_sync_embeds_every_window_into_the_cache_once(tmp_path: Path, minilm_embedder: Embedder) -> None:
    root = _dialog_workspace(tmp_path / "ws")
    db = tmp_path / "index.sqlite"
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    first = eng.sync()
    eng.close()
    store = Store(db)
    try:
        texts = [text for _rid, text in store.chunk_texts()]
        hashes = [h for text in texts for h in windows.window_hashes(text)]
        assert len(hashes) >= 2
        ident = minilm_embedder.identity
        cached = store.cached_embeddings(ident.provider, ident.model, ident.provider_key, hashes)
        assert set(cached) == set(hashes)
        assert not store.vectors_pending()
    finally:
        store.close()
    assert first.embedded == len(texts) + len(set(hashes))
    eng = engine.Engine(root, embedder=minilm_embedder, db_path=db)
    again = eng.sync()
    eng.close()
    assert again.embedded == 0
