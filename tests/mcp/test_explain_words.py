"""memory_search(explain=true) lists as matched words those its keyword leg searched,
as the app's explanation pane does: not a query word left out for being in half the
notes or more (a speaker's name in a dialog)."""

from __future__ import annotations

from pathlib import Path

from memdesk.mcp.tools import MemoryTools


def test_matched_words_are_the_words_the_keyword_leg_searched(
    tmp_path: Path, memdesk_home: Path, minilm_path: Path
) -> None:
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    for day, topic in enumerate(["hiking trip", "pottery class", "violin lessons", "dog shelter"], 1):
        lines = "\n".join(f"- Caroline: today was about the {topic}, part {n}." for n in range(3))
        (ws / "memory" / f"2023-05-0{day}.md").write_text(f"# 2023-05-0{day}\n\n{lines}\n", encoding="utf-8")
    tools = MemoryTools(ws, model=str(minilm_path), sync_on_start=False)
    try:
        tools.engine().sync()
        data = tools.memory_search("Caroline pottery class", explain_hits=True)
    finally:
        tools.close()
    assert data["mode"] == "hybrid"
    scaled = [h for h in data["results"] if h["explain"]["keyword_left_out"]]
    assert scaled, data
    for hit in scaled:
        e = hit["explain"]
        assert e["keyword_left_out"] == ["caroline"]
        words = {m["text"].lower() for m in e["matched"]}
        assert words == {"pottery", "class"}, e["matched"]
        matched_line = next(line for line in hit["explain_lines"] if line.startswith("Words matched"))
        assert "Caroline" not in matched_line and "pottery" in matched_line, matched_line
