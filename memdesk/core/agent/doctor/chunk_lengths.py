"""The ``chunk_too_long`` check: the agent's chunks counted with its local model's tokenizer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memdesk.core import errors
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.openclaw import chunking, v2026_9

from ..config import Agent, AgentSearch, Layout, OpenClawSetup, resolve_user_path
from .findings import DoctorReport, Finding


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
