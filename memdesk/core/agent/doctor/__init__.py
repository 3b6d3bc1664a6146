"""Agent doctor: what will go wrong in the agent's own indexing and search, before it does.

Each check reads the agent's config, files and index the way its OpenClaw release
does and reports a ``Finding``:

* ``chunk_too_long`` – a chunk (chunked as the agent's release does: 400/80 or the
  configured chunking under 2026.4, chunker v5 under 2026.9) longer than the local
  embedding model's context. node-llama-cpp (OpenClaw 2026.4's local embedder)
  throws "Input is longer than the context size" and OpenClaw then discards the
  whole reindex: no files, no chunks, no memory search at all.
* ``skipped`` – files the user may expect the agent to search that it never indexes.
* ``annotation`` – importance/trigger comments the agent's release will not read.
* ``project`` – a bare or malformed ``<!-- project: -->`` comment: 2026.9 stores the
  entry as an invalid project and leaves it out of every search.
* ``cjk_keyword_only`` – a mostly CJK workspace searched by keyword alone with the
  ``unicode61`` tokenizer, which makes each run of CJK text one word.
* ``local_server`` – 2026.9's ``local`` provider with no llama-server on this machine:
  the agent downloads one on first use, which fails offline.
* ``decay`` – notes the agent ages (or never ages) differently from what their name
  suggests.
* ``identity`` – the index was built with another provider, model, sources, scope,
  chunking or tokenizer than the config now asks for. OpenClaw 2026.9 then pauses
  vector search until an explicit rebuild; 2026.4 rebuilds everything on its next sync.
* ``stale`` / ``no_index`` – files changed since the agent indexed them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memdesk.core import errors, messages
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.openclaw import chunking, v2026_9
from memdesk.core.openclaw import decay as decay4
from memdesk.core.openclaw.ids import FTS_ONLY_MODEL, js_json_stringify

from .. import annotate
from ..config import Agent, AgentSearch, Layout, OpenClawSetup, get, not_found_message, resolve_user_path
from ..index import AgentIndex, AgentIndexError
from ..sources import SourceListing, content_hash, list_agent_files

Severity = Literal["error", "warning", "info"]
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}

# The llama.cpp build @openclaw/llama-cpp-provider 2026.9.5 installs (LLAMA_SERVER_RELEASE).
LLAMA_SERVER_RELEASE = "b10809"

# The newest index identity versions OpenClaw 2026.9.6 writes.
PROVENANCE_VERSION = 1
CHUNKING_VERSION = 5

# Default embedding models per provider (used when the config names no model).
DEFAULT_MODELS = {
    "openai": "text-embedding-3-small",
    "gemini": "gemini-embedding-001",
    "voyage": "voyage-4-large",
    "mistral": "mistral-embed",
    "deepinfra": "BAAI/bge-m3",
}

DEFAULT_LOCAL_MODEL_2026_4 = "hf:ggml-org/embeddinggemma-300m-qat-q8_0-GGUF/embeddinggemma-300m-qat-Q8_0.gguf"

_DATED_2026_9 = re.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]+)?\.md$")
# A date anywhere in a path: what a person reads as "this note is from that day/month".
_LOOKS_DATED = re.compile(r"(?<!\d)(\d{4})[-_.]?(0[1-9]|1[0-2])(?:[-_.]?(0[1-9]|[12]\d|3[01]))?(?!\d)")


@dataclass(frozen=True)
class Finding:
    severity: Severity
    code: str
    message: str
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    fix: str | None = None
    config_change: Mapping[str, str] | None = None
    """Keys of ``export.Extras`` (``fts_tokenizer``…) that fix this finding, offered
    through "Apply to OpenClaw…" (``memdesk agent apply --tokenizer`` on the CLI)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "fix": self.fix,
            "configChange": dict(self.config_change) if self.config_change else None,
        }


@dataclass
class DoctorReport:
    agent_id: str
    layout: Layout
    workspace: Path
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)

    def sorted(self) -> list[Finding]:
        return sorted(self.findings, key=lambda f: (_SEVERITY_ORDER[f.severity], f.code, f.path or ""))

    @property
    def worst(self) -> Severity | None:
        return self.sorted()[0].severity if self.findings else None

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent_id,
            "layout": self.layout,
            "workspace": str(self.workspace),
            "filesChecked": self.files_checked,
            "findings": [f.to_json() for f in self.sorted()],
        }


# -- token counting ---------------------------------------------------------------------
class ModelTokenizer:
    """The local GGUF model's own tokenizer (vocabulary only), counting as node-llama-cpp does.

    node-llama-cpp compares ``tokenize(text)`` – no special tokens added – with the
    context size before it adds [CLS]/[SEP], so that is what is counted here.
    """

    def __init__(self, model_path: Path) -> None:
        from memdesk.core.embed.gguf_header import inspect_gguf
        from memdesk.core.embed.llama_runtime import silence_llama_logging

        self.path = Path(model_path)
        info = inspect_gguf(self.path)
        self.context = int(info.context_length)
        self.name = info.model_name or self.path.stem
        try:
            import llama_cpp
        except ImportError as exc:
            raise errors.EmbedderUnavailable(f"llama-cpp-python is not installed or broken: {exc}") from None
        silence_llama_logging(llama_cpp)
        try:
            self._llm = llama_cpp.Llama(model_path=str(self.path), vocab_only=True, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise errors.EmbedderUnavailable(
                f"{self.path}: llama.cpp could not load its vocabulary ({exc})"
            ) from None

    def count(self, text: str, *, with_specials: bool = False) -> int:
        """Body tokens (what node-llama-cpp checks); ``with_specials`` adds [CLS]/[SEP]."""
        if not text:
            return 0
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=with_specials, special=False))


def find_local_model(
    search: AgentSearch, models_dir: Path | None, state_dir: Path | None = None
) -> tuple[Path | None, str]:
    """The GGUF file the agent embeds with, or the reason it cannot be found here."""
    raw = search.local_model_path
    name = ""
    if raw:
        if raw.startswith("hf:") or raw.startswith("https://"):
            name = raw.rstrip("/").rsplit("/", 1)[-1]
        else:
            path = resolve_user_path(raw)
            if path.is_file():
                return path, f"the agent's local.modelPath {path}"
            name = path.name
    candidates: list[Path] = []
    for folder in (
        state_dir / "models" if state_dir else None,
        Path.home() / ".node-llama-cpp" / "models",
        models_dir,
    ):
        if folder is not None and folder.is_dir():
            candidates += sorted(folder.rglob("*.gguf"))
    wanted = {n.lower() for n in (name, search.model.rsplit("/", 1)[-1]) if n}
    for candidate in candidates:
        stem = candidate.name.lower()
        if stem in wanted or candidate.stem.lower() in {w.removesuffix(".gguf") for w in wanted}:
            return candidate, f"{candidate} (same file name as the agent's model)"
    shown = raw or search.model or "the provider's default model"
    return None, f"the agent's model file ({shown}) is not on this machine"


# -- identity ---------------------------------------------------------------------------
def _js_resolve(workspace: Path, value: str) -> str:
    return os.path.normpath(os.path.join(workspace, value)).replace("\\", "/")


def scope_hash(search: AgentSearch, workspace: Path, layout: Layout) -> str:
    """``resolveConfiguredScopeHash``: sha256 of the resolved extra paths and multimodal settings."""
    multimodal = {
        "enabled": bool(search.multimodal.get("enabled")),
        "modalities": sorted(search.multimodal.get("modalities") or []),
        "maxFileBytes": search.multimodal.get("maxFileBytes", 10 * 1024 * 1024),
    }
    ws = Path(os.path.abspath(workspace))
    extra: list[Any]
    if layout == "2026.4":
        resolved = [_js_resolve(ws, e.path.strip()) for e in search.extra_paths if e.path.strip()]
        extra = sorted(dict.fromkeys(resolved))
    else:
        items: list[Any] = []
        for entry in search.extra_paths:
            path = str(resolve_user_path(entry.path)) if entry.path.strip().startswith("~") else entry.path
            resolved_path = _js_resolve(ws, path)
            items.append(
                {"path": resolved_path, "pattern": entry.pattern} if entry.pattern else resolved_path
            )
        # OpenClaw sorts with localeCompare; code-point order agrees for ordinary paths.
        extra = sorted(items, key=lambda item: json.dumps(item, ensure_ascii=False, separators=(",", ":")))
    payload = js_json_stringify({"extraPaths": extra, "multimodal": multimodal})
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def identity_mismatches(agent: Agent, layout: Layout, meta: dict[str, Any]) -> list[tuple[str, str]]:
    """``(code, reason)`` for each way the index identity differs from the config."""
    search = agent.search
    if search is None:
        return []
    out: list[tuple[str, str]] = []
    if layout == "2026.9":
        provenance, chunk_version = meta.get("provenanceVersion") or 0, meta.get("chunkingVersion") or 0
        if provenance > PROVENANCE_VERSION or chunk_version > CHUNKING_VERSION:
            out.append(("newer_version", "the index was written by a newer OpenClaw than 2026.9.6"))
        elif provenance < PROVENANCE_VERSION or chunk_version < CHUNKING_VERSION:
            out.append(
                (
                    "chunking_version",
                    "an older OpenClaw wrote the index; the agent rebuilds it on its next search",
                )
            )
    provider = search.provider
    expected_provider = "none" if provider == "none" else provider
    if provider == "none":
        expected_model = FTS_ONLY_MODEL
    elif provider == "local":
        # 2026.4 names the index after local.modelPath; 2026.9's managed server after
        # memory.search.model when set (its default is the plugin's, unknown here).
        expected_model = (
            search.local_model_path or DEFAULT_LOCAL_MODEL_2026_4 if layout == "2026.4" else search.model
        )
    else:
        expected_model = search.model or DEFAULT_MODELS.get(provider, "")
    meta_provider, meta_model = str(meta.get("provider", "")), str(meta.get("model", ""))
    if layout == "2026.4" and provider == "auto":
        expected_provider = meta_provider  # auto picks whichever provider has a key; cannot be known here
        expected_model = expected_model or meta_model
    if (
        expected_model
        and meta_model != expected_model
        and not (provider == "local" and Path(meta_model).name == Path(expected_model).name)
    ):
        out.append(
            (
                "model",
                f"index was built for model {meta_model or '(none)'}, the config asks for {expected_model}",
            )
        )
    if meta_provider != expected_provider:
        out.append(
            (
                "provider",
                f"index was built for provider {meta_provider or '(none)'}, the config "
                f"asks for {expected_provider}",
            )
        )
    meta_sources = sorted(
        {s for s in meta.get("sources") or ["memory"] if s in ("memory", "sessions")} or {"memory"}
    )
    if meta_sources != sorted(search.sources):
        out.append(
            (
                "sources",
                f"index holds {', '.join(meta_sources)}, the config asks for "
                f"{', '.join(sorted(search.sources))}",
            )
        )
    if meta.get("scopeHash") is not None and meta.get("scopeHash") != scope_hash(
        search, agent.workspace, layout
    ):
        out.append(("scope", "extraPaths (or multimodal settings) changed since the index was built"))
    if (meta.get("chunkTokens"), meta.get("chunkOverlap")) != (search.chunk_tokens, search.chunk_overlap):
        out.append(
            (
                "chunking",
                f"index chunked {meta.get('chunkTokens')}/{meta.get('chunkOverlap')}, "
                f"the config asks for {search.chunk_tokens:g}/{search.chunk_overlap:g}",
            )
        )
    if (meta.get("ftsTokenizer") or "unicode61") != search.fts_tokenizer:
        out.append(
            (
                "fts_tokenizer",
                f"index keyword tokenizer is {meta.get('ftsTokenizer') or 'unicode61'}, "
                f"the config asks for {search.fts_tokenizer}",
            )
        )
    return out


# -- dating -----------------------------------------------------------------------------
def agent_dates_path(rel: str, layout: Layout) -> bool:
    """True when the agent of this release takes the note's date from its path."""
    normalized = rel.replace("\\", "/").removeprefix("./")
    if layout == "2026.4":
        return decay4.dated_path_date(normalized) is not None
    return _DATED_2026_9.search(normalized) is not None


def agent_evergreen(rel: str, layout: Layout) -> bool:
    normalized = rel.replace("\\", "/").removeprefix("./")
    if layout == "2026.4":
        return decay4.is_evergreen_memory_path(normalized)
    if normalized in ("MEMORY.md", "USER.md"):
        return True
    return normalized.startswith("memory/") and not _DATED_2026_9.search(normalized)


def _decay_findings(listing: SourceListing, layout: Layout, search: AgentSearch) -> list[Finding]:
    if not search.decay:
        return []
    out: list[Finding] = []
    half = f"{search.half_life_days:g}"
    for source in listing.files:
        rel = source.rel_path
        looks_dated = _LOOKS_DATED.search(rel.rsplit("/", 1)[-1]) or _LOOKS_DATED.search(rel)
        if agent_dates_path(rel, layout):
            continue
        if agent_evergreen(rel, layout):
            if looks_dated:
                out.append(
                    Finding(
                        "warning",
                        "decay",
                        msg(
                            QT_TRANSLATE_NOOP(
                                "core",
                                "{path} looks dated, but your agent treats it as evergreen: "
                                "it never ages, so it competes with today's notes at full weight",
                            ),
                            path=rel,
                        ),
                        rel,
                        fix=msg(QT_TRANSLATE_NOOP("core", "name it memory/YYYY-MM-DD.md"))
                        if layout == "2026.4"
                        else msg(
                            QT_TRANSLATE_NOOP(
                                "core", "name it YYYY-MM-DD.md or YYYY-MM-DD-topic.md under memory/"
                            )
                        ),
                    )
                )
        else:
            out.append(
                Finding(
                    "info",
                    "decay",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core",
                            "{path} is outside memory/, so your agent ages it by its file "
                            "modification time (half-life {days} days); an old reference note sinks",
                        ),
                        path=rel,
                        days=half,
                    ),
                    rel,
                    fix=msg(QT_TRANSLATE_NOOP("core", "move it under memory/ to keep it evergreen")),
                )
            )
    return out


# -- the doctor -------------------------------------------------------------------------
def _chunks_for(
    text: str, search: AgentSearch, layout: Layout = "2026.4", rel: str = ""
) -> list[tuple[int, int, str]]:
    """(start line, end line, text) of the chunks this agent's release embeds.

    2026.9 has its own chunker (v5: other CJK weights, one chunk per entry in
    ``MEMORY.md``/``USER.md``, annotation comments removed) and no chunking keys.
    """
    if layout == "2026.9":
        return [(c.start_line, c.end_line, c.text) for c, _ in v2026_9.prepare_file_chunks(rel, text)]
    chunks = chunking.filter_non_empty_chunks(
        chunking.chunk_markdown(text, int(search.chunk_tokens), int(search.chunk_overlap))
    )
    limit = chunking.embedding_max_input_tokens(search.provider, search.model)
    return [
        (c.start_line, c.end_line, c.text) for c in chunking.enforce_max_input_bytes(chunks, min(limit, 8000))
    ]


def run_doctor(
    setup: OpenClawSetup,
    agent: Agent,
    *,
    models_dir: Path | None = None,
    tokenizer_factory: Callable[[Path], ModelTokenizer] = ModelTokenizer,
) -> DoctorReport:
    """Every check for one agent; never writes anything."""
    layout = setup.layout
    report = DoctorReport(agent.id, layout, agent.workspace)
    for warning in setup.warnings:
        report.add(Finding("warning", "config", warning, str(setup.config_path)))
    if not setup.installed:
        report.add(
            Finding(
                "warning",
                "not_installed",
                not_found_message(setup),
                fix=msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "install OpenClaw, or set OPENCLAW_STATE_DIR or OPENCLAW_CONFIG_PATH to where "
                        "it keeps its files; meanwhile the memdesk app's doctor checks the workspace open "
                        "in it as an agent would",
                    )
                ),
            )
        )
    elif not setup.config_exists:
        report.add(
            Finding(
                "info",
                "config",
                msg(
                    QT_TRANSLATE_NOOP("core", "no {path}; the agent runs on OpenClaw's defaults"),
                    path=setup.config_path,
                ),
            )
        )
    search = agent.search
    if search is None:
        report.add(
            Finding(
                "warning",
                "disabled",
                msg(QT_TRANSLATE_NOOP("core", "memory search is disabled for agent {agent}"), agent=agent.id),
            )
        )
        return report
    if not agent.workspace.is_dir():
        report.add(
            Finding(
                "error",
                "workspace",
                msg(
                    QT_TRANSLATE_NOOP("core", "the agent's workspace {path} does not exist"),
                    path=agent.workspace,
                ),
            )
        )
        return report
    listing = list_agent_files(agent.workspace, search.extra_paths, layout)
    report.files_checked = len(listing.files)
    for skip in listing.skipped:
        report.add(
            Finding(
                "warning",
                "skipped",
                msg(QT_TRANSLATE_NOOP("core", "{path}: {reason}"), path=skip.path, reason=skip.reason),
                skip.path,
            )
        )
    if not listing.files:
        report.add(
            Finding(
                "warning",
                "skipped",
                msg(QT_TRANSLATE_NOOP("core", "the agent finds no memory files in its workspace")),
            )
        )
    texts: dict[str, str] = {}
    hashes: dict[str, str] = {}
    for source in listing.files:
        try:
            data = source.abs_path.read_bytes()
        except OSError as exc:
            report.add(
                Finding(
                    "warning",
                    "skipped",
                    msg(
                        QT_TRANSLATE_NOOP("core", "{path}: cannot be read ({error})"),
                        path=source.rel_path,
                        error=exc.strerror or str(exc),
                    ),
                    source.rel_path,
                )
            )
            continue
        text = data.decode("utf-8", "replace")
        texts[source.rel_path] = text
        hashes[source.rel_path] = content_hash(source.abs_path)
        if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
            report.add(
                Finding(
                    "warning",
                    "encoding",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core",
                            "{path} is not valid UTF-8; the agent indexes it with replacement characters",
                        ),
                        path=source.rel_path,
                    ),
                    source.rel_path,
                )
            )
    _check_chunk_lengths(report, setup, agent, search, texts, models_dir, tokenizer_factory)
    _check_annotations(report, layout, texts)
    if layout == "2026.9":
        _check_projects(report, texts)
        _check_local_server(report, setup, search)
    _check_cjk_keyword_only(report, search, texts)
    for finding in _decay_findings(listing, layout, search):
        report.add(finding)
    if setup.installed:  # without OpenClaw there is no agent index to compare with
        _check_index(report, agent, layout, hashes)
    return report


def _not_checked(why: str) -> str:
    return msg(QT_TRANSLATE_NOOP("core", "chunk lengths not checked: {why}"), why=why)


def _check_chunk_lengths(
    report: DoctorReport,
    setup: OpenClawSetup,
    agent: Agent,
    search: AgentSearch,
    texts: dict[str, str],
    models_dir: Path | None,
    tokenizer_factory: Callable[[Path], ModelTokenizer],
) -> None:
    if search.provider != "local":
        return
    model_path, why = find_local_model(search, models_dir, setup.state_dir)
    if model_path is None:
        report.add(Finding("info", "chunk_too_long", _not_checked(why)))
        return
    try:
        tokenizer = tokenizer_factory(model_path)
    except errors.MemdeskError as exc:
        report.add(
            Finding("info", "chunk_too_long", _not_checked(exc.args[0] if len(exc.args) == 1 else str(exc)))
        )
        return
    too_long = 0
    # node-llama-cpp (2026.4) checks the body tokens; llama-server (2026.9's local
    # provider) refuses a request whose tokens, special tokens included, exceed it.
    specials = setup.layout == "2026.9"
    for rel, text in texts.items():
        for start, end, chunk_text in _chunks_for(text, search, setup.layout, rel):
            tokens = tokenizer.count(chunk_text, with_specials=specials)
            if tokens > tokenizer.context:
                too_long += 1
                report.add(
                    Finding(
                        "error",
                        "chunk_too_long",
                        msg(
                            QT_TRANSLATE_NOOP(
                                "core",
                                "{path}:{start}-{end} is {tokens} tokens ({with_specials} with special tokens), "
                                "over the {context}-token context of {model}",
                            ),
                            path=rel,
                            start=start,
                            end=end,
                            tokens=tokenizer.count(chunk_text),
                            with_specials=tokenizer.count(chunk_text, with_specials=True),
                            context=tokenizer.context,
                            model=tokenizer.name,
                        ),
                        rel,
                        start,
                        end,
                        fix=msg(
                            QT_TRANSLATE_NOOP(
                                "core",
                                "shorten these lines or move part of the note to another file: OpenClaw cuts "
                                "chunks by characters, so dense text (CJK, code, URLs) packs more tokens into one",
                            )
                        ),
                    )
                )
    if too_long:
        consequence = msg(
            QT_TRANSLATE_NOOP(
                "core",
                "OpenClaw 2026.4's local embedder (node-llama-cpp) throws \"Input is longer "
                'than the context size" and the agent discards the whole reindex: no files, '
                "no chunks, no memory search at all",
            )
        )
        if setup.layout == "2026.9":
            # Recorded with the real 2026.9.6 (tests/fixtures/openclaw/2026.9.6/example-*.json):
            # the server refuses the batch, OpenClaw retries it and then keeps nothing.
            consequence = msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    'OpenClaw 2026.9 retries the refused embedding request, then reports "Memory index '
                    'failed" and the agent discards the whole reindex: no files, no chunks, no memory '
                    "search at all",
                )
            )
        report.add(
            Finding(
                "error",
                "chunk_too_long",
                msg(
                    QT_TRANSLATE_NOOP(
                        "core", "{count} chunk(s) will not fit the agent's embedding model: {consequence}"
                    ),
                    count=too_long,
                    consequence=consequence,
                ),
            )
        )


def _check_annotations(report: DoctorReport, layout: Layout, texts: dict[str, str]) -> None:
    """Importance/trigger comments the agent will not read (where the user put effort)."""
    for rel, text in texts.items():
        ignored = 0
        first = 0
        for number, line in enumerate(text.split("\n"), start=1):
            kinds = [kind for _s, _e, kind, _v in annotate.annotation_spans(line)]
            if not kinds:
                continue
            if layout == "2026.4" or (
                ("importance" in kinds or "trigger" in kinds)
                and (annotate.importance_effect(rel) is not None or not line.rstrip().endswith("-->"))
            ):
                ignored += 1
            if ignored and not first:
                first = number
        if not ignored:
            continue
        if layout == "2026.4":
            why = msg(
                QT_TRANSLATE_NOOP("core", "OpenClaw 2026.4 reads no annotations; they only count from 2026.9")
            )
        elif annotate.importance_effect(rel) is not None:
            why = msg(
                QT_TRANSLATE_NOOP(
                    "core", "OpenClaw 2026.9 reads importance and triggers only in MEMORY.md and USER.md"
                )
            )
        else:
            why = msg(QT_TRANSLATE_NOOP("core", "OpenClaw 2026.9 reads them only at the very end of a line"))
        report.add(
            Finding(
                "warning",
                "annotation",
                msg(
                    QT_TRANSLATE_NOOP("core", "{path}: {count} annotated line(s) your agent ignores: {why}"),
                    path=rel,
                    count=ignored,
                    why=why,
                ),
                rel,
                first,
                first,
            )
        )


def _invalid_project(key: str | None) -> bool:
    return v2026_9.INVALID_PROJECT_KEY in [k.strip() for k in (key or "").split(";")]


def _check_projects(report: DoctorReport, texts: dict[str, str]) -> None:
    """Notes (or entries) 2026.9 hides because of a bare or malformed project comment.

    ``extractCuratedEntryRecallMetadata`` marks an entry whose project comments do not
    all parse (``<!-- project: -->``, an unclosed one, a key with ``<``/``>``) with the
    invalid-project key, and every search drops such chunks; a daily note's entry is
    its chunk, so a short note disappears whole.
    """
    for rel, text in texts.items():
        chunks = v2026_9.prepare_file_chunks(rel, text)
        hidden = [c for c, meta in chunks if _invalid_project(meta.project_key)]
        if not hidden:
            continue
        source_lines = text.replace("\r\n", "\n").split("\n")
        culprits: list[int] = []
        for chunk in hidden:
            start = chunk.entry_start if chunk.entry_start is not None else chunk.start_line
            end = chunk.entry_end if chunk.entry_end is not None else chunk.end_line
            for number in range(start, end + 1):
                text_line = source_lines[number - 1]
                if number in culprits or not _PROJECT_MARK.search(text_line):
                    continue
                alone = v2026_9.extract_recall_metadata(
                    [text_line], curated_root=False, project_scope_eligible=True
                )
                if _invalid_project(alone.project_key):
                    culprits.append(number)
            if not culprits:  # a comment that spans lines: name where it starts
                culprits += [n for n in range(start, end + 1) if _PROJECT_MARK.search(source_lines[n - 1])][
                    :1
                ]
        line = min(culprits) if culprits else hidden[0].start_line
        if len(hidden) == len(chunks):
            what = msg(QT_TRANSLATE_NOOP("core", "the whole note"))
        else:
            what = msg(
                QT_TRANSLATE_NOOP("core", "lines {start}-{end}"),
                start=min(c.start_line for c in hidden),
                end=max(c.end_line for c in hidden),
            )
        report.add(
            Finding(
                "error",
                "project",
                msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "{path}:{line}: a bare or malformed <!-- project: --> comment; OpenClaw 2026.9 "
                        "stores it as an invalid project and hides {what} from every search",
                    ),
                    path=rel,
                    line=line,
                    what=what,
                ),
                rel,
                line,
                line,
                fix=msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "name the project (<!-- project: atlas -->, several separated by ;) or remove "
                        "the comment",
                    )
                ),
            )
        )


_PROJECT_MARK = re.compile(r"<!--\s*project\s*:", re.IGNORECASE)
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# "Mostly": more CJK characters than other letters and digits. unicode61 makes each run
# of CJK one token, so a question finds a note only when it repeats a whole run.
CJK_SHARE = 0.5


def cjk_share(texts: dict[str, str]) -> float:
    """CJK characters among all letters and digits of the notes."""
    cjk = letters = 0
    for text in texts.values():
        cjk += len(_CJK.findall(text))
        letters += sum(1 for ch in text if ch.isalnum())
    return cjk / letters if letters else 0.0


def _check_cjk_keyword_only(report: DoctorReport, search: AgentSearch, texts: dict[str, str]) -> None:
    if search.provider != "none" or search.fts_tokenizer != "unicode61":
        return
    share = cjk_share(texts)
    if share <= CJK_SHARE:
        return
    report.add(
        Finding(
            "warning",
            "cjk_keyword_only",
            msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "{percent}% of your notes' text is Chinese, Japanese or Korean, and your agent searches "
                    "by keyword only (no embedding provider) with the unicode61 tokenizer, which makes each "
                    "run of such text one word: most questions asked in Chinese find nothing",
                ),
                percent=round(share * 100),
            ),
            fix=msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    'set the keyword tokenizer to trigram (store.fts.tokenizer: "trigram"; Apply to '
                    'OpenClaw… writes it) or give the agent an embedding model (provider: "local")',
                )
            ),
            config_change={"fts_tokenizer": "trigram"},
        )
    )


def _check_local_server(report: DoctorReport, setup: OpenClawSetup, search: AgentSearch) -> None:
    """2026.9's ``local`` provider runs the llama.cpp plugin's managed ``llama-server``.

    ``@openclaw/llama-cpp-provider`` (2026.9.5) installs build ``b10809`` on first use,
    downloaded from github.com/ggml-org/llama.cpp into ``<state>/tools/llama.cpp/b10809/
    <platform>-<arch>/``, unless ``models.providers.llama-cpp.localService.command``
    names a server already there.
    """
    if search.provider != "local":
        return
    configured = get(setup.config, "models", "providers", "llama-cpp", "localService", "command")
    if isinstance(configured, str) and configured.strip() and Path(resolve_user_path(configured)).is_file():
        return
    install_dir = setup.state_dir / "tools" / "llama.cpp" / LLAMA_SERVER_RELEASE
    if any(install_dir.glob("*/llama-server")) or any(install_dir.glob("*/llama-server.exe")):
        return
    report.add(
        Finding(
            "warning",
            "local_server",
            msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    'your agent embeds with provider "local", and no llama-server is on this machine yet: '
                    "OpenClaw downloads llama.cpp {release} from GitHub the first time it embeds; offline "
                    "that download fails, and with it the agent's memory index",
                ),
                release=LLAMA_SERVER_RELEASE,
            ),
            str(install_dir),
            fix=msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "run openclaw memory index once while online, or point "
                    "models.providers.llama-cpp.localService.command at a llama-server {release} you have",
                ),
                release=LLAMA_SERVER_RELEASE,
            ),
        )
    )


def _check_index(report: DoctorReport, agent: Agent, layout: Layout, hashes: dict[str, str]) -> None:
    try:
        index = AgentIndex.open(agent.index_path)
    except AgentIndexError as exc:
        report.add(
            Finding(
                "warning",
                "no_index",
                messages.of(exc),
                str(agent.index_path),
                fix=f"openclaw memory index --agent {agent.id}",
            )
        )
        return
    with index:
        status = index.status()
        if status.layout != layout:
            report.add(
                Finding(
                    "warning",
                    "layout",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core", "the index is in the {index_layout} layout but the config is {layout}'s"
                        ),
                        index_layout=status.layout,
                        layout=layout,
                    ),
                    str(agent.index_path),
                )
            )
        mismatches = identity_mismatches(agent, status.layout, dict(status.meta)) if status.meta else []
        if not status.meta:
            report.add(
                Finding(
                    "warning",
                    "identity",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core", "the index has no metadata; the agent rebuilds it from scratch"
                        )
                    ),
                    str(agent.index_path),
                )
            )
        for _code, reason in mismatches:
            effect = (
                msg(QT_TRANSLATE_NOOP("core", "the agent pauses vector search until you rebuild"))
                if status.layout == "2026.9"
                else msg(QT_TRANSLATE_NOOP("core", "the agent rebuilds the whole index on its next sync"))
            )
            report.add(
                Finding(
                    "error" if status.layout == "2026.9" else "warning",
                    "identity",
                    msg(
                        QT_TRANSLATE_NOOP("core", "index identity mismatch: {reason}; {effect}"),
                        reason=reason,
                        effect=effect,
                    ),
                    str(agent.index_path),
                    fix=f"openclaw memory index --force --agent {agent.id}",
                )
            )
        drift = index.drift(hashes)
        if status.chunks == 0 and hashes:
            report.add(
                Finding(
                    "error",
                    "stale",
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core",
                            "the agent's index is empty although {count} notes exist: "
                            "its last reindex failed or never ran",
                        ),
                        count=len(hashes),
                    ),
                    str(agent.index_path),
                    fix=f"openclaw memory index --force --agent {agent.id}",
                )
            )
        elif drift.stale:
            report.add(
                Finding(
                    "warning",
                    "stale",
                    msg(
                        QT_TRANSLATE_NOOP("core", "your agent's index is stale for {count} note")
                        if drift.stale == 1
                        else QT_TRANSLATE_NOOP("core", "your agent's index is stale for {count} notes"),
                        count=drift.stale,
                    ),
                    str(agent.index_path),
                    fix=f"openclaw memory index --agent {agent.id}",
                )
            )
            drifted = (
                (drift.changed, QT_TRANSLATE_NOOP("core", "{path} changed since the agent indexed it")),
                (drift.new, QT_TRANSLATE_NOOP("core", "{path} is not in the agent's index yet")),
                (drift.removed, QT_TRANSLATE_NOOP("core", "{path} is gone but still in the agent's index")),
            )
            for rels, template in drifted:
                for rel in rels:
                    report.add(Finding("info", "stale", msg(template, path=rel), rel))


def summarize(findings: Sequence[Finding]) -> str:
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    return ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n) or "no problems"
