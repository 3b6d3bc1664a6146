"""Incremental sync of a workspace into its index: the one writer.

Plain and synchronous: takes ``progress`` and ``cancelled`` callbacks so a Qt
worker (or the CLI) can wrap it. Content sha256 decides what changed; an
unchanged (mtime, size) pair skips even reading the file. Chunks are embedded in
batches across files, with the embedding cache consulted first, and each batch is
written in one transaction, so a cancel or crash leaves a consistent index whose
unfinished files are simply still dirty.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from memdesk.core import errors
from memdesk.core.embed.embedder import Embedder
from memdesk.core.index import workspace
from memdesk.core.index.store import Store
from memdesk.core.openclaw import chunking as oc_chunking
from memdesk.core.search import lexical

log = logging.getLogger(__name__)

FTS_ONLY_MODEL = "fts-only"
# Chunks handed to the embedder per call: large enough to batch well in llama.cpp,
# small enough that progress and cancellation stay responsive.
EMBED_BATCH_CHUNKS = 48
EMBED_LOCK_CHUNKS = 8  # chunks embedded per hold of the embedder lock


@dataclasses.dataclass(frozen=True)
class ChunkParams:
    tokens: int = oc_chunking.DEFAULT_CHUNK_TOKENS
    overlap: int = oc_chunking.DEFAULT_CHUNK_OVERLAP


def chunk_params_for(embedder: Embedder | None) -> ChunkParams:
    """OpenClaw's 400/80 unless the embedder's context is too small for 400 tokens.

    OpenClaw's "tokens" are ~4 weighted characters; keeping 25% headroom below
    the model's real limit means almost no chunk needs splitting at embed time.
    """
    if embedder is None:
        return ChunkParams()
    limit = int(embedder.max_input_tokens * 0.75)
    if limit >= oc_chunking.DEFAULT_CHUNK_TOKENS:
        return ChunkParams()
    tokens = max(32, limit)
    return ChunkParams(tokens=tokens, overlap=max(0, min(tokens - 1, tokens // 5)))


def chunk_id(*, source: str, path: str, start_line: int, end_line: int, text_hash: str, model: str) -> str:
    """OpenClaw's chunk id: sha256 of ``source:path:start:end:hash(text):model``."""
    raw = f"{source}:{path}:{start_line}:{end_line}:{text_hash}:{model}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@dataclasses.dataclass
class _Pending:
    rel: str
    hash: str
    mtime: int
    size: int
    chunks: list[oc_chunking.MemoryChunk]


@dataclasses.dataclass
class SyncStats:
    files: int = 0
    chunks: int = 0
    embedded: int = 0
    cache_hits: int = 0
    removed: int = 0
    indexed_paths: list[str] = dataclasses.field(default_factory=list)
    removed_paths: list[str] = dataclasses.field(default_factory=list)
    failures: list[tuple[str, str]] = dataclasses.field(default_factory=list)


ProgressCallback = Callable[[int, int, int, str, str], None]  # done, total, chunks, path, phase


def sync_files(
    store: Store,
    root: Path,
    *,
    extra_paths: Sequence[Path | str] = (),
    embedder: Embedder | None,
    params: ChunkParams,
    only: Sequence[str] | None = None,
    progress: ProgressCallback | None = None,
    cancelled: Callable[[], bool] | None = None,
    embed_lock: object | None = None,
) -> SyncStats:
    """Bring ``store`` in line with the files under ``root``.

    ``only`` limits the work to those relative paths (editor saves, watcher events);
    deletions among them are noticed too. Raises ``Cancelled`` when asked to stop.
    """
    stats = SyncStats()
    report = progress or (lambda *a: None)
    is_cancelled = cancelled or (lambda: False)
    listed = workspace.list_memory_files(root, extra_paths)
    by_rel = {workspace.rel_path(root, p): p for p in listed}
    known = store.file_rows()
    stats.files = len(by_rel)

    # Deletions first: they are cheap and make the index honest immediately.
    scope = set(only) if only is not None else None
    gone = [rel for rel in known if rel not in by_rel and (scope is None or rel in scope)]
    if gone:
        with store.transaction():
            for rel in gone:
                store.delete_file(rel)
        stats.removed = len(gone)
        stats.removed_paths = gone

    targets = [rel for rel in by_rel if scope is None or rel in scope]
    total = len(targets)
    report(0, total, 0, "", "scan")
    model_name = embedder.identity.model if embedder is not None else FTS_ONLY_MODEL
    pending: list[_Pending] = []
    pending_chunks = 0
    done = 0

    def flush() -> None:
        nonlocal pending, pending_chunks
        if pending:
            _write_batch(
                store, pending, embedder=embedder, model=model_name, stats=stats, embed_lock=embed_lock
            )
            pending, pending_chunks = [], 0

    for rel in targets:
        if is_cancelled():
            flush()
            raise errors.Cancelled("indexing cancelled")
        path = by_rel[rel]
        done += 1
        try:
            st = path.stat()
        except OSError as exc:
            stats.failures.append((rel, f"cannot stat: {exc.strerror or exc}"))
            continue
        old = known.get(rel)
        if old is not None and old[1] == st.st_mtime_ns and old[2] == st.st_size:
            continue  # untouched since last sync
        try:
            data = path.read_bytes() if st.st_size <= workspace.MAX_NOTE_BYTES else b""
        except OSError as exc:
            stats.failures.append((rel, f"cannot read: {exc.strerror or exc}"))
            continue
        digest = workspace.content_hash(data) if data else f"size:{st.st_size}"
        if old is not None and old[0] == digest:
            with store.transaction():  # same content, new mtime: remember the mtime only
                store.upsert_file(
                    rel, hash=digest, mtime=st.st_mtime_ns, size=st.st_size, status=old[3], reason=old[4]
                )
            continue
        try:
            if st.st_size > workspace.MAX_NOTE_BYTES:
                raise errors.NoteReadError(
                    f"{rel}: {st.st_size / 1_048_576:.1f} MB is over the "
                    f"{workspace.MAX_NOTE_BYTES // 1_048_576} MB limit for a note; skipped"
                )
            text = workspace.decode_note(data, name=rel)
        except errors.NoteReadError as exc:
            log.info("skipping %s: %s", rel, exc)
            stats.failures.append((rel, str(exc)))
            with store.transaction():
                store.delete_chunks_of(rel)
                store.upsert_file(
                    rel, hash=digest, mtime=st.st_mtime_ns, size=st.st_size, status="failed", reason=str(exc)
                )
            continue
        chunks = oc_chunking.filter_non_empty_chunks(
            oc_chunking.chunk_markdown(text, params.tokens, params.overlap)
        )
        pending.append(_Pending(rel, digest, st.st_mtime_ns, st.st_size, chunks))
        pending_chunks += len(chunks)
        stats.indexed_paths.append(rel)
        if pending_chunks >= EMBED_BATCH_CHUNKS or (embedder is None and len(pending) >= 64):
            flush()
        report(done, total, stats.chunks + pending_chunks, rel, "index")
    flush()
    report(total, total, stats.chunks, "", "finish")
    return stats


def _write_batch(
    store: Store,
    batch: list[_Pending],
    *,
    embedder: Embedder | None,
    model: str,
    stats: SyncStats,
    embed_lock: object | None,
) -> None:
    vectors: dict[str, np.ndarray] = {}
    if embedder is not None:
        ident = embedder.identity
        hashes = [c.hash for p in batch for c in p.chunks]
        vectors = store.cached_embeddings(ident.provider, ident.model, ident.provider_key, hashes)
        stats.cache_hits += sum(1 for h in hashes if h in vectors)
        missing: dict[str, str] = {}
        for p in batch:
            for c in p.chunks:
                if c.hash not in vectors:
                    missing.setdefault(c.hash, c.text)
        if missing:
            texts = list(missing.values())
            parts = []
            # The lock is shared with query embedding: hold it for a few chunks at a
            # time so a search typed during indexing waits ~0.1 s, not a whole batch.
            for start in range(0, len(texts), EMBED_LOCK_CHUNKS):
                part = texts[start : start + EMBED_LOCK_CHUNKS]
                if embed_lock is not None:
                    with embed_lock:  # type: ignore[attr-defined]
                        parts.append(embedder.embed_documents(part))
                else:
                    parts.append(embedder.embed_documents(part))
            matrix = np.concatenate(parts, axis=0)
            fresh = {h: np.asarray(matrix[i], dtype=np.float32) for i, h in enumerate(missing)}
            stats.embedded += len(fresh)
            vectors.update(fresh)
            with store.transaction():
                store.put_embeddings(ident.provider, ident.model, ident.provider_key, fresh)
    with store.transaction():
        for p in batch:
            store.delete_chunks_of(p.rel)
            shared = workspace.is_shared_scope(p.rel)
            seen_ids: set[str] = set()
            for c in p.chunks:
                cid = chunk_id(
                    source="memory",
                    path=p.rel,
                    start_line=c.start_line,
                    end_line=c.end_line,
                    text_hash=c.hash,
                    model=model,
                )
                if cid in seen_ids:
                    continue  # identical chunk text on identical lines cannot repeat; be safe
                seen_ids.add(cid)
                store.insert_chunk(
                    chunk_id=cid,
                    path=p.rel,
                    source="memory",
                    start_line=c.start_line,
                    end_line=c.end_line,
                    hash=c.hash,
                    model=model,
                    text=c.text,
                    segmented=lexical.segment_for_index(c.text),
                    embedding=vectors.get(c.hash),
                    shared=shared,
                )
            store.upsert_file(p.rel, hash=p.hash, mtime=p.mtime, size=p.size)
            stats.chunks += len(p.chunks)


def dirty_files(store: Store, root: Path, extra_paths: Sequence[Path | str] = ()) -> list[str]:
    """Paths whose content differs from the index, plus indexed paths now gone."""
    listed = {workspace.rel_path(root, p): p for p in workspace.list_memory_files(root, extra_paths)}
    known = store.file_rows()
    dirty = [rel for rel in known if rel not in listed]
    for rel, path in listed.items():
        old = known.get(rel)
        if old is None:
            dirty.append(rel)
            continue
        try:
            st = path.stat()
        except OSError:
            dirty.append(rel)
            continue
        if old[1] == st.st_mtime_ns and old[2] == st.st_size:
            continue
        try:
            data = path.read_bytes() if st.st_size <= workspace.MAX_NOTE_BYTES else b""
        except OSError:
            dirty.append(rel)
            continue
        digest = workspace.content_hash(data) if data else f"size:{st.st_size}"
        if digest != old[0]:
            dirty.append(rel)
    return sorted(dirty)
