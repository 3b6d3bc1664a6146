"""Incremental sync of a workspace into its index: the one writer.

Plain and synchronous: takes ``progress`` and ``cancelled`` callbacks so a Qt
worker (or the CLI) can wrap it. Content sha256 decides what changed; a file
whose (mtime, size, ctime, inode) are all as recorded, and that was not read in
the same timestamp tick as its last write, is not even read (``stat_unchanged``).

Keyword first, vectors after: every changed file's chunks and keyword index are
written (in transactions of many files) before anything is embedded, so new
notes are keyword-searchable within seconds; chunks whose vector is in the
embedding cache get it at once. Then the chunks still without a vector are
embedded a few at a time, each group committed with its vectors. A cancel or
crash leaves a consistent index: files not reached are still dirty, and chunks
not embedded yet are found by the next sync (``Store.vectors_pending``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import cast

import numpy as np

from memdesk.core import errors
from memdesk.core.base import lexical
from memdesk.core.embed.embedder import Embedder
from memdesk.core.history import History
from memdesk.core.index import captures, windows, workspace
from memdesk.core.index.store import FileRow, Store
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg
from memdesk.core.messages import of as message_of
from memdesk.core.openclaw import chunking as oc_chunking
from memdesk.core.openclaw import config as oc_config
from memdesk.core.openclaw import text as oc_text
from memdesk.core.openclaw.ids import FTS_ONLY_MODEL, chunk_id_from_hash

log = logging.getLogger(__name__)

# Files per keyword-phase transaction: few commits, yet results grow while a big
# first index is written.
KEYWORD_BATCH_FILES = 200
EMBED_LOCK_CHUNKS = 8  # chunks embedded per llama.cpp call (and hold of the embedder lock)
EMBED_COMMIT_CHUNKS = 32  # vectors committed together: a crash loses at most this much work
# How long after a file's last write its timestamps may still not move on another write:
# file systems stamp with a coarse clock (a kernel tick on ext4, 1 s on HFS+ and many
# network shares, 2 s on FAT). A file read sooner than this after its write is "racy"
# (git's word): re-hashed on the next sync even when its stat is unchanged.
RACY_NS = 2_000_000_000


def stat_unchanged(old: FileRow, st: os.stat_result) -> bool:
    """Whether ``st`` proves the file is the version ``old`` recorded, without reading it.

    (mtime, size) alone are not proof: a same-size rewrite whose mtime is put back
    (``cp -p``, ``rsync -t``, ``touch -r``, a restore) keeps both. The status change
    time moves on every write and ``utime`` and cannot be set back, and a file replaced
    by a rename has another inode. A row without them (an older memdesk wrote it) is
    not proof either. A file whose last write was within ``RACY_NS`` of the moment it
    was read may have been written again in the same tick, leaving every field alike.
    """
    if old.ctime is None or old.inode is None or old.checked_at is None:
        return False
    if (old.mtime, old.size, old.ctime, old.inode) != (st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino):
        return False
    # The last change is the status change time, which every write and utime sets to the
    # clock (an mtime may be set anywhere, even into the future); on Windows st_ctime is
    # the creation time, so the mtime it is there.
    changed = st.st_ctime_ns if os.name == "posix" else st.st_mtime_ns
    return old.checked_at - changed >= RACY_NS


@dataclasses.dataclass(frozen=True)
class ChunkParams:
    tokens: int = oc_config.DEFAULT_CHUNK_TOKENS
    overlap: int = oc_config.DEFAULT_CHUNK_OVERLAP


def chunk_params_for(embedder: Embedder | None) -> ChunkParams:
    """OpenClaw's 400/80 unless the embedder's context is too small for 400 tokens.

    OpenClaw's "tokens" are ~4 weighted characters; keeping 25% headroom below
    the model's real limit means almost no chunk needs splitting at embed time.
    """
    if embedder is None:
        return ChunkParams()
    limit = int(embedder.max_input_tokens * 0.75)
    if limit >= oc_config.DEFAULT_CHUNK_TOKENS:
        return ChunkParams()
    tokens = max(32, limit)
    return ChunkParams(tokens=tokens, overlap=max(0, min(tokens - 1, tokens // 5)))


@dataclasses.dataclass
class _Pending:
    rel: str
    hash: str
    st: os.stat_result
    checked_at: int
    chunks: list[oc_chunking.MemoryChunk]


def _record(
    store: Store,
    rel: str,
    *,
    hash: str,
    st: os.stat_result,
    checked_at: int,
    status: str = "indexed",
    reason: str | None = None,
) -> None:
    """The file's row: its content hash and what ``st`` said (read at ``checked_at``)."""
    store.upsert_file(
        rel,
        hash=hash,
        mtime=st.st_mtime_ns,
        size=st.st_size,
        status=status,
        reason=reason,
        ctime=st.st_ctime_ns,
        inode=st.st_ino,
        checked_at=checked_at,
    )


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
    skipped: list[workspace.Skipped] = dataclasses.field(default_factory=list)
    captured: int = 0  # versions offered to the history (repeats of the latest are dropped)
    capture_seconds: float = 0.0  # the time that took, on this sync's thread


# (done, total, chunks, path, phase); phases: "scan", "index" (done/total = files),
# "keyword" (keyword index committed), "embed" (done/total = chunks embedded / to
# embed this sync), "windows" (done/total = chunks whose passage windows are embedded /
# to embed: every chunk has its vector by then), "finish".
ProgressCallback = Callable[[int, int, int, str, str], None]


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
    history: History | None = None,
) -> SyncStats:
    """Bring ``store`` in line with the files under ``root``.

    ``only`` limits the work to those relative paths (editor saves, watcher events);
    deletions among them are noticed too. Raises ``Cancelled`` when asked to stop.
    ``history``: each changed file's bytes, as read here, become a version (source
    "disk"), a file gone a "deleted" one; its first use keeps every note (the baseline).
    """
    stats = SyncStats()
    report = progress or (lambda *a: None)
    is_cancelled = cancelled or (lambda: False)
    scope = set(only) if only is not None else None
    if scope is None:
        scan = workspace.scan_memory_files(root, extra_paths)
        by_rel = {workspace.rel_path(root, p): p for p in scan.files}
        known = store.file_rows()
        stats.skipped = scan.skipped
        listed: Iterable[Path] = scan.files
    else:
        # The paths named (a save, the watcher's events) are looked up one by one with
        # discovery's own rule, and only their rows read: the rest of the workspace is
        # not listed nor stat'ed. Changes nobody named wait for a full sync (start, F5,
        # the session's periodic scan, a lost watcher event).
        by_rel = {}
        for rel in sorted(scope):
            note = workspace.note_at(root, rel, extra_paths)
            if note is not None:
                by_rel[workspace.rel_path(root, note)] = note
        known = store.file_rows(list(scope | set(by_rel)))
        listed = _listed(root, extra_paths)  # read only for a history's first baseline
    stats.files = len(by_rel)
    seen = captures.SyncCaptures(history)
    seen.baseline(root, listed)

    # Deletions first: they are cheap and make the index honest immediately.
    gone = [rel for rel in known if rel not in by_rel and (scope is None or rel in scope)]
    if gone:
        for rel in gone:
            seen.add(rel, None, 0, captures.DELETED)
        seen.flush()
        with store.transaction():
            for rel in gone:
                store.delete_file(rel)
        stats.removed = len(gone)
        stats.removed_paths = gone

    targets = list(by_rel)  # with ``only``, ``by_rel`` holds the named notes alone
    total = len(targets)
    report(0, total, 0, "", "scan")
    model_name = embedder.identity.model if embedder is not None else FTS_ONLY_MODEL
    # Whether every chunk already carries its stored MMR tokens (the batches below write
    # theirs after the keyword phase, so a crash in between leaves the record cleared).
    tokens_current = store.mmr_tokens_format() == lexical.MMR_TOKENS_FORMAT
    written: list[tuple[int, str]] = []
    pending: list[_Pending] = []
    pending_chunks = 0
    done = 0

    # Files re-read with the same content: only their stat is recorded, in one
    # transaction per batch (every file of an index an older memdesk wrote is one).
    restat: list[tuple[str, FileRow, os.stat_result, int]] = []

    def flush() -> None:
        nonlocal pending, pending_chunks, restat
        seen.flush()  # before the index: a file recorded there is in the history already
        if pending:
            written.extend(
                _write_keyword_batch(store, pending, embedder=embedder, model=model_name, stats=stats)
            )
            pending, pending_chunks = [], 0
        if restat:
            with store.transaction():
                for rel, row, st, checked_at in restat:
                    _record(
                        store,
                        rel,
                        hash=row.hash,
                        st=st,
                        checked_at=checked_at,
                        status=row.status,
                        reason=row.reason,
                    )
            restat = []

    for rel in targets:
        if is_cancelled():
            flush()
            raise errors.Cancelled("indexing cancelled")
        path = by_rel[rel]
        done += 1
        # Before the stat and the read: a write after this moment in the same timestamp
        # tick as the one recorded is caught by ``stat_unchanged``'s racy check.
        checked_at = time.time_ns()
        try:
            st = path.stat()
        except OSError as exc:
            stats.failures.append((rel, f"cannot stat: {exc.strerror or exc}"))
            continue
        old = known.get(rel)
        if old is not None and stat_unchanged(old, st):
            continue  # untouched since last sync
        try:
            data = _read(path, st.st_size)
        except OSError as exc:
            stats.failures.append((rel, f"cannot read: {exc.strerror or exc}"))
            continue
        digest = workspace.content_hash(data) if data is not None else f"size:{st.st_size}"
        if old is not None and old.hash == digest:
            restat.append((rel, old, st, checked_at))  # same content: remember the stat only
            if len(restat) >= KEYWORD_BATCH_FILES:
                flush()
            continue
        seen.add(rel, data, st.st_size, captures.DISK)
        try:
            if data is None:
                raise errors.NoteReadError(
                    msg(
                        QT_TRANSLATE_NOOP("core", "{path}: {reason}; skipped"),
                        path=rel,
                        reason=workspace.too_large(st.st_size),
                    )
                )
            text = workspace.decode_note(data, name=rel)
        except errors.NoteReadError as exc:
            log.info("skipping %s: %s", rel, exc)
            stats.failures.append((rel, message_of(exc)))
            with store.transaction():
                store.delete_chunks_of(rel)
                _record(
                    store,
                    rel,
                    hash=digest,
                    st=st,
                    checked_at=checked_at,
                    status="failed",
                    reason=message_of(exc),
                )
            continue
        chunks = _well_formed(
            oc_chunking.filter_non_empty_chunks(
                oc_chunking.chunk_markdown(text, params.tokens, params.overlap)
            )
        )
        pending.append(_Pending(rel, digest, st, checked_at, chunks))
        pending_chunks += len(chunks)
        stats.indexed_paths.append(rel)
        if len(pending) >= KEYWORD_BATCH_FILES:
            flush()
        report(done, total, stats.chunks + pending_chunks, rel, "index")
    flush()
    stats.captured, stats.capture_seconds = seen.count, seen.seconds
    report(total, total, stats.chunks, "", "keyword")
    _store_mmr_tokens(store, written if tokens_current else None)
    written.clear()  # every chunk text of this sync (~18 MB at 20,000 notes): not kept while embedding
    if embedder is not None:
        _embed_missing(
            store, embedder, stats=stats, report=report, cancelled=is_cancelled, embed_lock=embed_lock
        )
    report(total, total, stats.chunks, "", "finish")
    return stats


def _listed(root: Path, extra_paths: Sequence[Path | str]) -> Iterator[Path]:
    """The workspace's notes, listed on the first read only."""
    yield from workspace.list_memory_files(root, extra_paths)


def _store_mmr_tokens(store: Store, written: list[tuple[int, str]] | None) -> None:
    """Store the MMR tokens of the chunks this sync ``written`` (rid, text), or with None
    of every chunk lacking them in the current format (an index an older memdesk wrote, a
    new format, a sync stopped before this step), and record that all chunks have them.

    It runs after the keyword phase, which it would slow by about a third: until it has
    run, a search tokenizes those chunks' texts itself, with the same result.
    """
    fmt = lexical.MMR_TOKENS_FORMAT
    if written is not None and not written:
        return
    with store.transaction():
        rows = written if written is not None else store.chunks_without_mmr_tokens(fmt)
        for rid, text in rows:
            store.set_chunk_mmr_tokens(rid, stored_mmr_tokens(store, text))
        store.set_mmr_tokens_format(fmt)


def stored_mmr_tokens(store: Store, text: str) -> bytes:
    """The text's MMR tokens as ids of the index's vocabulary, in stored form (not kept in
    ``mmr_tokens``' cache: the index keeps them now)."""
    return lexical.encode_stored_tokens(store.mmr_token_ids(lexical.mmr_tokens.__wrapped__(text)))


def _read(path: Path, size: int) -> bytes | None:
    """The note's bytes, or None when it is over the size limit (hashed by size then)."""
    if size > workspace.MAX_NOTE_BYTES:
        return None
    try:
        return workspace.read_bytes(path)
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            return None
        raise


def _well_formed(chunks: list[oc_chunking.MemoryChunk]) -> list[oc_chunking.MemoryChunk]:
    """Chunks whose text SQLite and the embedder accept.

    OpenClaw's chunker cuts long lines every N UTF-16 units and may split a surrogate
    pair (an emoji) between two chunks; its boundaries, line ranges and hashes are
    kept for parity, and each half-pair becomes U+FFFD, which is also what OpenClaw's
    own UTF-8 encoder stores and hashes, so the hash still matches the text.
    """
    return [
        c if oc_text.is_well_formed(c.text) else dataclasses.replace(c, text=oc_text.to_well_formed(c.text))
        for c in chunks
    ]


def _write_keyword_batch(
    store: Store,
    batch: list[_Pending],
    *,
    embedder: Embedder | None,
    model: str,
    stats: SyncStats,
) -> list[tuple[int, str]]:
    """Chunks and keyword index of ``batch`` in one transaction; cached vectors at once.
    Returns the (rid, text) of the chunks written."""
    written: list[tuple[int, str]] = []
    vectors: dict[str, np.ndarray] = {}
    windows_missing = False
    if embedder is not None:
        ident = embedder.identity
        hashes = [c.hash for p in batch for c in p.chunks]
        vectors = store.cached_embeddings(ident.provider, ident.model, ident.provider_key, hashes)
        stats.cache_hits += sum(1 for h in hashes if h in vectors)
        wanted = {c.hash for p in batch for c in p.chunks if windows.has_windows(c.text)}
        windows_missing = bool(wanted) and len(store.stored_window_hashes(ident.provider_key, wanted)) < len(
            wanted
        )
    with store.transaction():
        if batch:
            store.set_mmr_tokens_format(None)  # until ``_store_mmr_tokens`` has run
        for p in batch:
            store.delete_chunks_of(p.rel)
            shared = workspace.is_shared_scope(p.rel)
            seen_ids: set[str] = set()
            for c in p.chunks:
                cid = chunk_id_from_hash("memory", p.rel, c.start_line, c.end_line, c.hash, model)
                if cid in seen_ids:
                    continue  # identical chunk text on identical lines cannot repeat; be safe
                seen_ids.add(cid)
                rid = store.insert_chunk(
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
                written.append((rid, c.text))
            _record(store, p.rel, hash=p.hash, st=p.st, checked_at=p.checked_at)
            stats.chunks += len(p.chunks)
        if embedder is not None and (
            windows_missing or any(c.hash not in vectors for p in batch for c in p.chunks)
        ):
            store.set_vectors_pending(True)
    return written


# chunk hash -> whether its text has passage windows (``windows.line_windows``), for
# every chunk hash a windows phase has looked at in this process. A pure function of
# the text (the hash's) and of how windows are cut (``windows.VERSION``, which the memo
# is kept for and is emptied when it changes), so it never goes stale; it lets
# each sync during the windows phase (the watcher runs one after every save) read and
# cut only the chunks it has not seen, instead of every chunk lacking windows. Bounded:
# cleared past _WINDOWED_MAX hashes (about 100 bytes each), then filled again.
_WINDOWED: dict[str, bool] = {}
_WINDOWED_VERSION: list[str] = [windows.VERSION]
_WINDOWED_MAX = 500_000


def _pending_windows(store: Store, embedder: str) -> list[str]:
    """Hashes of the chunks whose passage windows are not stored yet and that have
    windows, in index order (``Store.chunk_hashes_without_windows``'), cutting the windows only
    of chunk texts not seen before."""
    pending = store.chunk_hashes_without_windows(embedder)
    if _WINDOWED_VERSION[0] != windows.VERSION:
        _WINDOWED.clear()
        _WINDOWED_VERSION[0] = windows.VERSION
    # Decided from a copy: another thread's sync (an as-of index) may empty the memo meanwhile.
    decided = {h: _WINDOWED.get(h) for h in pending}
    unknown = [h for h, known in decided.items() if known is None]
    if unknown:
        if len(_WINDOWED) + len(unknown) > _WINDOWED_MAX:
            _WINDOWED.clear()
        for h, text in store.chunk_texts_by_hash(unknown).items():
            decided[h] = _WINDOWED[h] = windows.has_windows(text)
    return [h for h in pending if decided[h]]


def _embed_missing(
    store: Store,
    embedder: Embedder,
    *,
    stats: SyncStats,
    report: ProgressCallback,
    cancelled: Callable[[], bool],
    embed_lock: object | None,
) -> None:
    """Embed every chunk that has no vector yet ("embed"), then the passage windows of
    every chunk that has none stored ("windows", ``windows.py``), committing the vectors
    as they come. Chunks first: once they are done every note is searchable by meaning,
    and the windows (about six passes per dialog chunk) only sharpen the scores of
    line-per-item chunks, which until then score by their chunk cosine alone. Progress
    counts chunk texts in each phase, as the status bar's chunk count does."""
    if not store.vectors_pending():
        return
    ident = embedder.identity
    texts: dict[str, str] = {}  # chunk hash -> text: one forward pass per distinct text
    targets: dict[str, list[tuple[int, bool]]] = {}
    for rid, text_hash, path, text in store.chunks_missing_vectors(
        ident.provider, ident.model, ident.provider_key
    ):
        texts.setdefault(text_hash, text)
        targets.setdefault(text_hash, []).append((rid, workspace.is_shared_scope(path)))
    need_windows = dict.fromkeys(_pending_windows(store, ident.provider_key))  # ordered, O(1) `in`
    lock = cast("contextlib.AbstractContextManager[object] | None", embed_lock)
    fresh: dict[str, np.ndarray] = {}
    fresh_windows: dict[str, np.ndarray] = {}
    pooled = 0  # chunk texts newly embedded (vector or windows) since the last commit

    def commit(*, finished: bool = False) -> None:
        nonlocal pooled
        with store.transaction():
            store.put_embeddings(ident.provider, ident.model, ident.provider_key, fresh)
            store.set_chunk_vectors(
                [(rid, fresh[h], shared) for h in fresh for rid, shared in targets.get(h, ())]
            )
            store.put_window_vectors(ident.provider_key, fresh_windows)
            if finished:
                store.set_vectors_pending(False)
        stats.embedded += pooled
        pooled = 0
        fresh.clear()
        fresh_windows.clear()

    def run(phase: str, order: list[str], embed: Callable[[list[str]], None], counted: set[str]) -> None:
        nonlocal pooled
        total = len(order)
        report(0, total, stats.chunks, "", phase)
        uncommitted = 0
        for start in range(0, total, EMBED_LOCK_CHUNKS):
            if cancelled():
                raise errors.Cancelled("indexing cancelled")
            part = order[start : start + EMBED_LOCK_CHUNKS]
            embed(part)
            pooled += sum(1 for h in part if h not in counted)
            uncommitted += len(part)
            if uncommitted >= EMBED_COMMIT_CHUNKS:
                commit()
                uncommitted = 0
            report(min(start + EMBED_LOCK_CHUNKS, total), total, stats.chunks, "", phase)
        commit()  # the phase's last vectors, before the next phase reports

    # Windows pooled from their chunk's own pass (late chunking) cost nothing beyond the
    # chunk's: they come with it in the first phase, the second has the rest.
    late = windows.pools_late(embedder)

    def embed_chunks(part: list[str]) -> None:
        windowed = [h for h in part if late and h in need_windows]
        plain = [h for h in part if h not in windowed]
        with lock if lock is not None else contextlib.nullcontext():
            if windowed:
                vectors, pooled_windows = windows.embed_with_windows(embedder, [texts[h] for h in windowed])
                fresh.update((h, np.asarray(vectors[i], dtype=np.float32)) for i, h in enumerate(windowed))
                fresh_windows.update(zip(windowed, pooled_windows, strict=True))
            if plain:
                matrix = embedder.embed_documents([texts[h] for h in plain])
                fresh.update((h, np.asarray(matrix[i], dtype=np.float32)) for i, h in enumerate(plain))

    def embed_part_windows(part: list[str]) -> None:
        # The distinct windows of the part in calls of EMBED_LOCK_CHUNKS texts, each
        # under the lock: a search (hybrid by now) waits for one call, not for the part.
        part_texts = store.chunk_texts_by_hash(part)
        found = windows.embed_windows(
            embedder, [part_texts[h] for h in part], batch=EMBED_LOCK_CHUNKS, lock=lock
        )
        fresh_windows.update(zip(part, found, strict=True))

    try:
        run("embed", list(texts), embed_chunks, set())
        rest = [h for h in need_windows if not (late and h in texts)]
        run("windows", rest, embed_part_windows, set(texts))
    except BaseException:
        if fresh or fresh_windows:  # keep the vectors already made: the next sync embeds only the rest
            commit()
        raise
    commit(finished=True)


def dirty_files(
    store: Store,
    root: Path,
    extra_paths: Sequence[Path | str] = (),
    *,
    scan: workspace.Scan | None = None,
    known: dict[str, FileRow] | None = None,
) -> list[str]:
    """Paths whose content differs from the index, plus indexed paths now gone.
    ``scan``: the workspace's listing when the caller has one (a listing of 20,000 notes
    is a sizeable part of a status read); ``known``: the index's ``file_rows`` when
    already read."""
    files = scan.files if scan is not None else workspace.list_memory_files(root, extra_paths)
    listed = {workspace.rel_path(root, p): p for p in files}
    known = store.file_rows() if known is None else known
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
        if stat_unchanged(old, st):
            continue
        try:
            data = _read(path, st.st_size)
        except OSError:
            dirty.append(rel)
            continue
        digest = workspace.content_hash(data) if data is not None else f"size:{st.st_size}"
        if digest != old.hash:
            dirty.append(rel)
    return sorted(dirty)
