"""Match spans come from the keyword leg's own tokenizer; excerpts centre on them."""

from __future__ import annotations

from memdesk.core.search import highlight


def _marked(text: str, query: str, profile: str = "memdesk") -> list[str]:
    terms = highlight.KeywordTerms.for_query(query, profile)
    return [text[s:e] for s, e in highlight.match_spans(text, terms)]


def test_whole_stemmed_words_not_substrings() -> None:
    """Porter stemming matches word forms; a term inside another word never matches."""
    text = "We deployed before the holiday; deploys are frozen. Zhou Hang lives in Shanghai."
    assert _marked(text, "deploy") == ["deployed", "deploys"]
    assert _marked(text, "Zhou Hang") == ["Zhou", "Hang"]
    assert _marked(text, "day") == []


def test_stop_words_are_not_marked() -> None:
    """The keyword leg drops stop words when content words are left; so does the highlight."""
    assert _marked("what is the deploy day", "what is the deploy day") == ["deploy", "day"]


def test_cjk_bigrams_inside_longer_runs() -> None:
    """memdesk indexes CJK as characters and bigrams: ``鉴权`` matches inside ``API鉴权方案``."""
    text = "API鉴权方案：用 token 处理"
    assert _marked(text, "鉴权") == ["鉴权"]
    assert _marked(text, "鉴权方案") == ["鉴权方案"]  # overlapping bigrams merge into one span
    assert _marked(text, "API") == ["API"]  # glued to Han characters, still its own word


def test_openclaw_profile_matches_whole_unicode61_tokens() -> None:
    """OpenClaw's unicode61 index has no stemming and keeps Han runs whole."""
    text = "deploys deploy API鉴权方案"
    assert _marked(text, "deploy", "openclaw") == ["deploy"]
    assert _marked(text, "鉴权", "openclaw") == []


def test_excerpt_centres_on_the_densest_matches() -> None:
    """A match far into a chunk is shown from its line's start, with ellipsis flags."""
    text = "intro words here\n" + "filler " * 80 + "\nThe quokka rollout slipped.\n" + "tail " * 80
    terms = highlight.KeywordTerms.for_query("quokka rollout")
    shown = highlight.excerpt(text, highlight.match_spans(text, terms), width=100)
    assert shown.text.startswith("The quokka rollout")
    assert shown.clipped_start and shown.clipped_end
    assert [shown.text[s:e] for s, e in shown.spans] == ["quokka", "rollout"]
    assert shown.first_line == 2
    short = highlight.excerpt("short text", [], width=100)
    assert (short.text, short.clipped_start, short.clipped_end) == ("short text", False, False)


def test_matched_lines() -> None:
    text = "a\nquokka here\nb\nquokka again"
    spans = highlight.match_spans(text, highlight.KeywordTerms.for_query("quokka"))
    assert highlight.matched_lines(text, spans) == [1, 3]


def test_excerpt_never_starts_or_ends_inside_a_word() -> None:
    """Mixed Chinese and English has few spaces to cut at: the window still starts and
    ends at word boundaries (it showed "… lth 的技术团队" for "Lumen Health 的技术团队")."""
    import re
    from pathlib import Path

    word = re.compile(r"[A-Za-z0-9_]+")
    notes = sorted((Path(__file__).resolve().parents[3] / "examples" / "workspace").rglob("*.md"))
    assert notes
    checked = 0
    for note in notes:
        text = note.read_text(encoding="utf-8")
        for query in ("鉴权 token 怎么处理", "部署 数据库", "Lumen SSO 医院"):
            spans = highlight.match_spans(text, highlight.KeywordTerms.for_query(query))
            for width in (60, 120, 240):
                shown = highlight.excerpt(text, spans, width=width)
                first = word.match(shown.text)
                if shown.clipped_start and first:
                    checked += 1
                    assert re.search(rf"(?<![A-Za-z0-9_]){first.group()}", text), (note.name, shown.text[:30])
                last = re.search(r"[A-Za-z0-9_]+$", shown.text)
                if shown.clipped_end and last:
                    assert re.search(rf"{last.group()}(?![A-Za-z0-9_])", text), (note.name, shown.text[-30:])
    assert checked > 10


def test_a_match_near_the_end_opens_the_excerpt() -> None:
    """The results show an excerpt's first two lines: a match in the chunk's last lines
    is near the excerpt's start, not at the end of a window pulled back to full width."""
    head = "\n".join(f"- Item {i}: migration and release notes for week {i}." for i in range(8))
    text = f"{head}\n\n## 中文备注\n- API鉴权方案 的最后一步：API Key 停用。\n- 鉴权那一行更新掉。"
    spans = highlight.match_spans(text, highlight.KeywordTerms.for_query("鉴权"))
    shown = highlight.excerpt(text, spans, width=320)
    assert shown.spans and shown.spans[0][0] < 60, shown.text


def test_a_match_late_in_a_long_line_is_near_the_excerpts_start() -> None:
    """A match far into a long line opens the excerpt (the results show about two lines
    of it), rather than the line's start with the match past what is shown."""
    line = "- Rule: every change to a golden set explains why in the PR description and links the run. Zebracorn rule added."
    short = f"# Harbor\n\n{line}\n- another line\n"  # shorter than the excerpt
    text = short + "".join(f"- filler line {i} about dashboards and runs\n" for i in range(12))
    spans = highlight.match_spans(text, highlight.KeywordTerms.for_query("zebracorn"))
    shown = highlight.excerpt(text, spans, width=320)
    assert [shown.text[s:e] for s, e in shown.spans] == ["Zebracorn"]
    assert shown.spans[0][0] <= 320 // 4 and shown.clipped_start
    whole = highlight.excerpt(
        short, highlight.match_spans(short, highlight.KeywordTerms.for_query("zebracorn")), width=320
    )
    assert whole.spans[0][0] <= 320 // 4 and whole.clipped_start  # a short chunk too
    near = highlight.excerpt(
        text, highlight.match_spans(text, highlight.KeywordTerms.for_query("golden")), width=320
    )
    assert near.text.startswith("- Rule: every change")  # a match near its line's start keeps the line whole
