"""Parity runner: check ``memdesk.core.openclaw`` against recorded OpenClaw vectors.

Usage: ``python -m memdesk.parity FILE...``

Each file is a JSON list of ``{id, module, function, input, expected,
tolerance?, relativeTolerance?, version, ...}``. Every vector's ``function`` (the
OpenClaw function name) is looked up in :data:`ADAPTERS`, which maps OpenClaw's
JSON-shaped input onto the Python API and the result back to JSON shapes. Inputs
given as a JS generator (``fooGenerator``) come with ``pythonExpr``; that
expression is evaluated (with a minimal builtins table) and becomes ``foo``.
Vectors whose ``version`` is not the ANCHOR run with ``legacy=True``.

Comparison is generic: dicts compare on the expected keys (the vector files
sometimes record only a subset of a result's fields), lists element-wise,
numbers with the vector's absolute ``tolerance`` or ``relativeTolerance``
(exact when neither is given), set-valued functions as sets. Prints each
failure with its id and a short diff, then exactly ``N passed, M failed``.
Exit status is 0 iff nothing failed.
"""

from __future__ import annotations

import builtins
import json
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.base import sqlite
from memdesk.core.openclaw import ANCHOR_VERSION
from memdesk.core.openclaw.chunking import (
    MemoryChunk,
    chunk_markdown,
    filter_non_empty_chunks,
    split_text_to_utf8_byte_limit,
)
from memdesk.core.openclaw.config import resolve_memory_search_config
from memdesk.core.openclaw.decay import (
    apply_decay_to_score,
    apply_temporal_decay,
    calculate_decay_multiplier,
)
from memdesk.core.openclaw.embedding import cosine_similarity, sanitize_and_normalize_embedding
from memdesk.core.openclaw.fts_query import build_fts_query, plan_keyword_search
from memdesk.core.openclaw.hybrid import (
    HybridOptions,
    HybridResult,
    SearchHit,
    bm25_rank_to_score,
    candidate_pool_size,
    hybrid_select,
    merge_hybrid_results,
)
from memdesk.core.openclaw.ids import FTS_ONLY_MODEL, chunk_id, provider_key
from memdesk.core.openclaw.keyword_search import (
    chunks_fts_ddl,
    insert_fts_row,
    score_fallback_keyword_result,
    search_keyword,
)
from memdesk.core.openclaw.keywords import expand_query_for_fts, extract_keywords
from memdesk.core.openclaw.mmr import (
    MMRItem,
    apply_mmr_to_hybrid_results,
    compute_mmr_score,
    jaccard_similarity,
    mmr_rerank,
    text_similarity,
    tokenize,
)
from memdesk.core.openclaw.text import (
    estimate_string_chars,
    hash_text,
    truncate_utf16_safe,
    utf8_byte_length,
    utf16_len,
    utf16_slice,
)
from memdesk.core.openclaw.tools import (
    decorate_citations,
    format_citation,
    is_memory_path,
    read_file_slice,
)

Json = Any
Adapter = Callable[[Mapping[str, Any], "Context"], Json]

# Functions whose output is a set (recorded as a list in insertion order).
SET_VALUED: frozenset[str] = frozenset({"tokenize"})

# Builtins available to ``pythonExpr``: enough for string generators, nothing else.
_EXPR_BUILTINS: dict[str, Any] = {
    name: getattr(builtins, name)
    for name in ("range", "str", "chr", "ord", "len", "list", "int", "enumerate", "zip", "map", "reversed")
}


@dataclass(frozen=True)
class Context:
    """Per-vector facts an adapter may need beyond ``input``."""

    legacy: bool
    generated: frozenset[str]  # input keys that came from a ``*Generator``/``pythonExpr``


# --------------------------------------------------------------------------- helpers


def num(value: Any) -> float:
    """A JSON number, or the IEEE names JSON cannot express ("Infinity", "NaN")."""
    if isinstance(value, str):
        return float({"Infinity": "inf", "-Infinity": "-inf", "NaN": "nan"}.get(value, value))
    return float(value)


def _hit(d: Mapping[str, Any]) -> SearchHit:
    return SearchHit(
        id=str(d["id"]),
        path=str(d["path"]),
        start_line=int(d.get("startLine", 0)),
        end_line=int(d.get("endLine", 0)),
        source=str(d.get("source", "memory")),
        snippet=str(d.get("snippet", "")),
        vector_score=num(d.get("vectorScore", 0.0)),
        text_score=num(d.get("textScore", 0.0)),
    )


def _result(d: Mapping[str, Any]) -> HybridResult:
    return HybridResult(
        path=str(d["path"]),
        start_line=int(d.get("startLine", 0)),
        end_line=int(d.get("endLine", 0)),
        score=num(d["score"]),
        snippet=str(d.get("snippet", "")),
        source=str(d.get("source", "memory")),
    )


def _result_json(r: HybridResult) -> Json:
    return {
        "path": r.path,
        "startLine": r.start_line,
        "endLine": r.end_line,
        "score": r.score,
        "snippet": r.snippet,
        "source": r.source,
    }


def _hybrid_options(inp: Mapping[str, Any], ctx: Context) -> HybridOptions:
    decay = inp.get("temporalDecay") or {}
    mmr = inp.get("mmr") or {}
    return HybridOptions(
        vector_weight=num(inp.get("vectorWeight", 0.7)),
        text_weight=num(inp.get("textWeight", 0.3)),
        mmr_enabled=bool(mmr.get("enabled", False)),
        mmr_lambda=num(mmr.get("lambda", 0.7)),
        decay_enabled=bool(decay.get("enabled", False)),
        half_life_days=num(decay.get("halfLifeDays", 30)),
        workspace_dir=inp.get("workspaceDir"),
        now_ms=num(inp["nowMs"]) if inp.get("nowMs") is not None else None,
        legacy_mmr_tokenizer=ctx.legacy,
    )


# What OpenClaw's own tests assert about a generated text's parts
# (internal.test.ts, embedding-chunk-limits.test.ts): CJK counts against the token
# budget, no U+FFFD and no lone surrogate (a pair cut in two).
_CJK_IDEOGRAPH = re.compile("[\u4e00-\u9fff]")


def _lone_surrogates(text: str) -> int:
    return sum(1 for ch in text if "\ud800" <= ch <= "\udfff")


def _chunk_json(chunk: MemoryChunk, summarize: bool) -> Json:
    if summarize:
        return {
            "startLine": chunk.start_line,
            "endLine": chunk.end_line,
            "textLength": utf16_len(chunk.text),
            "textSha256": chunk.hash,
            "codePoints": len(chunk.text),
            "cjkChars": len(_CJK_IDEOGRAPH.findall(chunk.text)),
            "replacementChars": chunk.text.count("\ufffd"),
            "loneSurrogates": _lone_surrogates(chunk.text),
        }
    return {"startLine": chunk.start_line, "endLine": chunk.end_line, "text": chunk.text, "hash": chunk.hash}


# --------------------------------------------------------------------------- adapters


def _merge(inp: Mapping[str, Any], ctx: Context) -> Json:
    merged = merge_hybrid_results(
        [_hit(h) for h in inp.get("vector", [])],
        [_hit(h) for h in inp.get("keyword", [])],
        _hybrid_options(inp, ctx),
    )
    return [_result_json(r) for r in merged]


def _hybrid_select(inp: Mapping[str, Any], ctx: Context) -> Json:
    keyword = [_hit(h) for h in inp.get("keyword", [])]
    opts = _hybrid_options(inp, ctx)
    merged = merge_hybrid_results([_hit(h) for h in inp.get("vector", [])], keyword, opts)
    selected = hybrid_select(
        merged,
        keyword,
        min_score=num(inp.get("minScore", 0.35)),
        max_results=int(inp.get("maxResults", 6)),
        text_weight=opts.text_weight,
    )
    return [_result_json(r) for r in selected]


def _chunk_markdown(inp: Mapping[str, Any], ctx: Context) -> Json:
    chunks = chunk_markdown(
        inp["content"], int(inp.get("tokens", 400)), int(inp.get("overlap", 80)), legacy=ctx.legacy
    )
    if "content" in ctx.generated:
        return {"count": len(chunks), "chunks": [_chunk_json(c, True) for c in chunks]}
    return [_chunk_json(c, False) for c in chunks]


def _split_utf8(inp: Mapping[str, Any], ctx: Context) -> Json:
    parts = split_text_to_utf8_byte_limit(inp["text"], int(inp["maxUtf8Bytes"]))
    if "text" in ctx.generated:
        joined = "".join(parts)
        return {
            "count": len(parts),
            "utf16Lengths": [utf16_len(p) for p in parts],
            "utf8Bytes": [utf8_byte_length(p) for p in parts],
            "codePoints": [len(p) for p in parts],
            "rejoinsInput": joined == inp["text"],
            "replacementChars": joined.count("\ufffd"),
            "loneSurrogates": _lone_surrogates(joined),
        }
    return parts


def _snippet(inp: Mapping[str, Any], ctx: Context) -> Json:
    snippet = truncate_utf16_safe(inp["text"], int(inp.get("maxChars", 700)))
    if "text" in ctx.generated:
        n = utf16_len(snippet)
        return {
            "length": n,
            "endsWith": utf16_slice(snippet, max(0, n - 3)),
            "codePoints": len(snippet),
            "loneSurrogates": _lone_surrogates(snippet),
        }
    return snippet


def _search_keyword(inp: Mapping[str, Any], ctx: Context) -> Json:
    conn = sqlite.memory()
    try:
        tokenizer = str(inp.get("tokenizer", "unicode61"))
        conn.execute(chunks_fts_ddl(tokenizer))
        for row in inp["rows"]:
            insert_fts_row(
                conn,
                id=str(row["id"]),
                path=str(row["path"]),
                text=str(row["text"]),
                source=str(row.get("source", "memory")),
                model=str(row.get("model", FTS_ONLY_MODEL)),
                start_line=int(row.get("startLine", 1)),
                end_line=int(row.get("endLine", 1)),
            )
        rows = search_keyword(
            conn,
            str(inp["query"]),
            int(inp.get("limit", 10)),
            fts_tokenizer=tokenizer,
            model=inp.get("model"),
            boost_fallback_ranking=bool(inp.get("boostFallbackRanking", False)),
            legacy_bm25=ctx.legacy,
        )
    finally:
        conn.close()
    # manager-search.test.ts checks the hits' ids, scores and sources; the rest of the row
    # (path, lines, snippet) is what searchKeyword returns with them.
    return [
        {
            "id": r.id,
            "bm25": r.rank,
            "textScore": r.text_score,
            "score": r.score,
            "source": r.source,
            "path": r.path,
            "startLine": r.start_line,
            "endLine": r.end_line,
            "snippet": r.snippet,
        }
        for r in rows
    ]


_CONFIG_KEYS: dict[str, tuple[str, ...]] = {
    "tokens": ("chunking", "tokens"),
    "overlap": ("chunking", "overlap"),
    "minScore": ("query", "minScore"),
    "maxResults": ("query", "maxResults"),
    "vectorWeight": ("query", "hybrid", "vectorWeight"),
    "textWeight": ("query", "hybrid", "textWeight"),
    "candidateMultiplier": ("query", "hybrid", "candidateMultiplier"),
    "mmrLambda": ("query", "hybrid", "mmr", "lambda"),
    "halfLifeDays": ("query", "hybrid", "temporalDecay", "halfLifeDays"),
    "cacheMaxEntries": ("cache", "maxEntries"),
}


def _config(inp: Mapping[str, Any], ctx: Context) -> Json:
    overrides: dict[str, Any] = {}
    for flat, path in _CONFIG_KEYS.items():
        if flat in inp:
            node = overrides
            for key in path[:-1]:
                node = node.setdefault(key, {})
            node[path[-1]] = inp[flat]
    cfg = resolve_memory_search_config(None, overrides)
    return {
        "tokens": cfg.chunk_tokens,
        "overlap": cfg.chunk_overlap,
        "minScore": cfg.min_score,
        "maxResults": cfg.max_results,
        "vectorWeight": cfg.vector_weight,
        "textWeight": cfg.text_weight,
        "candidateMultiplier": cfg.candidate_multiplier,
        "mmrLambda": cfg.mmr_lambda,
        "halfLifeDays": cfg.half_life_days,
        "cacheMaxEntries": cfg.cache_max_entries,
    }


def _decay_results(inp: Mapping[str, Any], ctx: Context) -> Json:
    decay = inp.get("temporalDecay") or {}
    decayed = apply_temporal_decay(
        [_result(r) for r in inp["results"]],
        enabled=bool(decay.get("enabled", False)),
        half_life_days=num(decay.get("halfLifeDays", 30)),
        now_ms=num(inp["nowMs"]),
        workspace_dir=inp.get("workspaceDir"),
    )
    return [_result_json(r) for r in decayed]


def _mmr_rerank(inp: Mapping[str, Any], ctx: Context) -> Json:
    cfg = inp.get("config") or {}
    items = [MMRItem(str(i["id"]), num(i["score"]), str(i["content"])) for i in inp["items"]]
    ranked = mmr_rerank(
        items, bool(cfg.get("enabled", False)), num(cfg.get("lambda", 0.7)), legacy_tokenizer=ctx.legacy
    )
    return [item.id for item in ranked]


def _apply_mmr(inp: Mapping[str, Any], ctx: Context) -> Json:
    cfg = inp.get("config") or {}
    ranked = apply_mmr_to_hybrid_results(
        [_result(r) for r in inp["results"]],
        bool(cfg.get("enabled", False)),
        num(cfg.get("lambda", 0.7)),
        legacy_tokenizer=ctx.legacy,
    )
    return [r.path for r in ranked]


def _decorate(inp: Mapping[str, Any], ctx: Context) -> Json:
    d = decorate_citations(
        str(inp["snippet"]),
        str(inp["path"]),
        int(inp["startLine"]),
        int(inp["endLine"]),
        bool(inp["include"]),
    )
    return {"snippet": d.snippet, "citation": d.citation}


def _plan(inp: Mapping[str, Any], ctx: Context) -> Json:
    plan = plan_keyword_search(str(inp["query"]), str(inp.get("ftsTokenizer", "unicode61")))
    return {"matchQuery": plan.match_query, "substringTerms": list(plan.substring_terms)}


def _expand(inp: Mapping[str, Any], ctx: Context) -> Json:
    e = expand_query_for_fts(str(inp["query"]), str(inp.get("ftsTokenizer", "unicode61")))
    return {"original": e.original, "keywords": list(e.keywords), "expanded": e.expanded}


def _first_key(inp: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in inp:
            return inp[name]
    raise KeyError(names[0])


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


ADAPTERS: dict[str, Adapter] = {
    "buildFtsQuery": lambda i, c: build_fts_query(str(i["raw"])),
    "bm25RankToScore": lambda i, c: bm25_rank_to_score(num(i["rank"]), legacy=c.legacy),
    "mergeHybridResults": _merge,
    "mergeHybridResults(temporalDecay)": _merge,
    "hybridSelect(minScore+relaxed)": _hybrid_select,
    "candidatePoolSize": lambda i, c: candidate_pool_size(
        num(i["maxResults"]), num(i["candidateMultiplier"])
    ),
    "tokenize": lambda i, c: sorted(tokenize(str(i["text"]), legacy=c.legacy)),
    "jaccardSimilarity": lambda i, c: jaccard_similarity(set(i["setA"]), set(i["setB"])),
    "textSimilarity": lambda i, c: text_similarity(str(i["contentA"]), str(i["contentB"]), legacy=c.legacy),
    "computeMMRScore": lambda i, c: compute_mmr_score(
        num(i["relevance"]), num(i["maxSimilarity"]), num(i["lambda"])
    ),
    "mmrRerank": _mmr_rerank,
    "applyMMRToHybridResults": _apply_mmr,
    "calculateTemporalDecayMultiplier": lambda i, c: calculate_decay_multiplier(
        num(i["ageInDays"]), num(i["halfLifeDays"])
    ),
    "applyTemporalDecayToScore": lambda i, c: apply_decay_to_score(
        num(i["score"]), num(i["ageInDays"]), num(i["halfLifeDays"])
    ),
    "applyTemporalDecayToHybridResults": _decay_results,
    "extractKeywords": lambda i, c: extract_keywords(
        str(i["query"]), str(i.get("ftsTokenizer", "unicode61"))
    ),
    "expandQueryForFts": _expand,
    "chunkMarkdown": _chunk_markdown,
    "estimateStringChars": lambda i, c: estimate_string_chars(str(i["text"]), legacy=c.legacy),
    "hashText": lambda i, c: hash_text(str(i["value"])),
    "chunkId": lambda i, c: chunk_id(
        str(i["source"]),
        str(i["path"]),
        int(i["startLine"]),
        int(i["endLine"]),
        str(i["chunkText"]),
        str(i["model"]),
    ),
    "providerKey(fts-only)": lambda i, c: provider_key(None, FTS_ONLY_MODEL),
    "providerKey(generic)": lambda i, c: provider_key(str(i["provider"]), str(i["model"])),
    "isMemoryPath": lambda i, c: is_memory_path(str(i["relPath"]), legacy=c.legacy),
    "planKeywordSearch": _plan,
    "scoreFallbackKeywordResult": lambda i, c: score_fallback_keyword_result(
        str(i["query"]), str(i["path"]), str(i["text"]), num(i["ftsScore"])
    ),
    "searchKeyword(sqlite FTS5)": _search_keyword,
    "filterNonEmptyMemoryChunks": lambda i, c: [
        ch.text for ch in filter_non_empty_chunks(MemoryChunk(1, 1, t, hash_text(t)) for t in i["texts"])
    ],
    "splitTextToUtf8ByteLimit": _split_utf8,
    "resolveMemorySearchConfig(normalization)": _config,
    "formatCitation": lambda i, c: format_citation(str(i["path"]), int(i["startLine"]), int(i["endLine"])),
    "decorateCitations": _decorate,
    "memory_get.readFile(slice)": lambda i, c: read_file_slice(
        str(i["content"]), _opt_int(i.get("from")), _opt_int(i.get("lines"))
    ),
    "snippet(truncateUtf16Safe,700)": _snippet,
    "cosineSimilarity": lambda i, c: cosine_similarity(
        [num(x) for x in _first_key(i, "a", "vecA")], [num(x) for x in _first_key(i, "b", "vecB")]
    ),
    "sanitizeAndNormalizeEmbedding": lambda i, c: sanitize_and_normalize_embedding(
        [num(x) for x in _first_key(i, "vec", "embedding", "values", "vector")]
    ),
}


# --------------------------------------------------------------------------- comparison


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _numbers_match(expected: float, actual: float, tol: float | None, rtol: float | None) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if expected == actual:
        return True
    diff = abs(expected - actual)
    if tol is not None and diff <= tol:
        return True
    if rtol is not None and diff <= rtol * max(abs(expected), abs(actual)):
        return True
    return False


def compare(
    expected: Any,
    actual: Any,
    *,
    tolerance: float | None = None,
    relative_tolerance: float | None = None,
    as_set: bool = False,
    path: str = "$",
) -> list[str]:
    """Deep-compare ``actual`` against ``expected``; returns human-readable differences."""
    if as_set and isinstance(expected, list) and isinstance(actual, (list, set, frozenset, tuple)):
        exp_set, act_set = set(map(_freeze, expected)), set(map(_freeze, actual))
        if exp_set == act_set:
            return []
        return [
            f"{path}: set differs; missing {_short(sorted(map(str, exp_set - act_set)))}, "
            f"unexpected {_short(sorted(map(str, act_set - exp_set)))}"
        ]
    if isinstance(expected, dict):
        if not isinstance(actual, Mapping):
            return [f"{path}: expected object {_short(expected)}, got {_short(actual)}"]
        diffs: list[str] = []
        for key, exp_value in expected.items():
            if key not in actual:
                diffs.append(f"{path}.{key}: missing (expected {_short(exp_value)})")
                continue
            diffs.extend(
                compare(
                    exp_value,
                    actual[key],
                    tolerance=tolerance,
                    relative_tolerance=relative_tolerance,
                    path=f"{path}.{key}",
                )
            )
        return diffs
    if isinstance(expected, list):
        if not isinstance(actual, (list, tuple)):
            return [f"{path}: expected list {_short(expected)}, got {_short(actual)}"]
        if len(expected) != len(actual):
            return [f"{path}: length {len(actual)} != expected {len(expected)}; got {_short(list(actual))}"]
        diffs = []
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            diffs.extend(
                compare(
                    e, a, tolerance=tolerance, relative_tolerance=relative_tolerance, path=f"{path}[{index}]"
                )
            )
        return diffs
    if _is_number(expected) and _is_number(actual):
        if _numbers_match(float(expected), float(actual), tolerance, relative_tolerance):
            return []
        return [
            f"{path}: expected {expected!r}, got {actual!r} (diff {abs(float(expected) - float(actual)):.3g})"
        ]
    if isinstance(expected, bool) or expected is None or isinstance(expected, str) or _is_number(expected):
        if type(expected) is type(actual) and expected == actual:
            return []
        return [f"{path}: expected {_short(expected)}, got {_short(actual)}"]
    return [f"{path}: unsupported expected value {_short(expected)}"]


def _freeze(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


# --------------------------------------------------------------------------- running


@dataclass
class VectorOutcome:
    """Result of running one vector."""

    id: str
    function: str
    passed: bool
    diffs: list[str] = field(default_factory=list)


@dataclass
class ParityReport:
    """All outcomes of a run."""

    outcomes: list[VectorOutcome] = field(default_factory=list)

    @property
    def passed(self) -> int:
        """Number of vectors that matched."""
        return sum(1 for o in self.outcomes if o.passed)

    @property
    def failed(self) -> int:
        """Number of vectors that did not match, crashed, or had no adapter."""
        return sum(1 for o in self.outcomes if not o.passed)

    def summary(self) -> str:
        """The final ``N passed, M failed`` line."""
        return f"{self.passed} passed, {self.failed} failed"


def is_legacy(vector: Mapping[str, Any]) -> bool:
    """True when the vector documents a version other than the ANCHOR."""
    return ANCHOR_VERSION not in str(vector.get("version", ANCHOR_VERSION))


def prepare_input(raw: Mapping[str, Any]) -> tuple[dict[str, Any], frozenset[str]]:
    """Replace a ``fooGenerator`` (JS) by ``foo`` evaluated from ``pythonExpr``."""
    inp = dict(raw)
    generated: set[str] = set()
    expr = inp.pop("pythonExpr", None)
    generator_keys = [k for k in list(inp) if k.endswith("Generator")]
    if generator_keys and expr is None:
        raise ValueError(f"input has {generator_keys[0]} but no pythonExpr")
    for key in generator_keys:
        inp.pop(key)
        target = key[: -len("Generator")]
        inp[target] = eval(expr, {"__builtins__": _EXPR_BUILTINS}, {})
        generated.add(target)
    return inp, frozenset(generated)


def run_vector(vector: Mapping[str, Any]) -> VectorOutcome:
    """Run one vector through its adapter and compare."""
    vid = str(vector.get("id", "?"))
    function = str(vector.get("function", "?"))
    adapter = ADAPTERS.get(function)
    if adapter is None:
        return VectorOutcome(vid, function, False, [f"unknown function {function!r}"])
    try:
        inp, generated = prepare_input(vector.get("input") or {})
        actual = adapter(inp, Context(legacy=is_legacy(vector), generated=generated))
    except Exception as exc:  # a crash is a failure of that vector, not of the run
        return VectorOutcome(vid, function, False, [f"raised {type(exc).__name__}: {exc}"])
    tol = vector.get("tolerance")
    rtol = vector.get("relativeTolerance")
    diffs = compare(
        vector.get("expected"),
        actual,
        tolerance=None if tol is None else float(tol),
        relative_tolerance=None if rtol is None else float(rtol),
        as_set=function in SET_VALUED,
    )
    return VectorOutcome(vid, function, not diffs, diffs)


def run_vectors(vectors: Sequence[Mapping[str, Any]]) -> ParityReport:
    """Run every vector, in order."""
    return ParityReport([run_vector(v) for v in vectors])


def load_vectors(path: Path) -> list[dict[str, Any]]:
    """Read one vector file (a JSON list of vector objects)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of vectors")
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m memdesk.parity FILE...", file=sys.stderr)
        return 2
    vectors: list[dict[str, Any]] = []
    for name in args:
        try:
            vectors.extend(load_vectors(Path(name)))
        except (OSError, ValueError) as exc:
            print(f"error: cannot read {name}: {exc}", file=sys.stderr)
            return 2
    report = run_vectors(vectors)
    for outcome in report.outcomes:
        if not outcome.passed:
            print(f"FAIL {outcome.id} {outcome.function}")
            for diff in outcome.diffs[:5]:
                print(f"    {diff}")
            if len(outcome.diffs) > 5:
                print(f"    ... {len(outcome.diffs) - 5} more differences")
    print(report.summary())
    return 0 if report.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
