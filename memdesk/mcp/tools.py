"""The MCP tools as plain functions over core: JSON-able dicts in and out.

One ``MemoryTools`` serves one workspace from the same index, data dir and locks the
app and the CLI use (``Engine``), so the app, the CLI and any number of servers run at
once. The engine (and so the model) is opened lazily: ``memory_get`` and
``memory_status`` answer before any model is loaded, the model loads on the first
hybrid search. A background sync keeps the index fresh; while it builds the index a
search answers from the keyword index and says so. On a desktop bundle's first start
the default model is built from the packaged weights in the background too (~30 s): the
server answers at once, by keyword meanwhile, and switches to the model when it is ready.
"""

from __future__ import annotations

import datetime as dt
import logging
import sys
import threading
import time
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from memdesk.core import errors
from memdesk.core.index import workspace

if TYPE_CHECKING:
    from memdesk.core.search import settings as settings_mod

log = logging.getLogger(__name__)

# A query is a question, not a document: longer ones are refused (a protocol error)
# rather than cut, so a client that sent a file by mistake hears about it.
MAX_QUERY_CHARS = 4_096
MAX_APPEND_BYTES = 256 * 1024
# A search after this long without a sync starts one in the background (notes the
# app, the agent or a person changed since); the search itself does not wait for it.
RESYNC_AFTER_S = 2.0
# How long the first search waits for the sync started with the server (see memory_search).
FIRST_SYNC_WAIT_S = 5.0
# The start-up sync and the watcher begin this long after the server starts, or at the
# first search or append if sooner: a scan of the workspace (2,000 notes) must not share
# the cores with the server's own start, so a client's first memory_status is answered
# within a second of its launch.
BACKGROUND_START_S = 1.0

INDEXING_NOTE = (
    "memdesk is still indexing this workspace: these results come from the keyword index "
    "only (ask again in a moment for hybrid results)"
)
# A desktop bundle's first start builds the model the search needs (about half a minute).
MODEL_REASON = "the embedding model is being prepared from the packaged weights (first start)"
MODEL_NOTE = (
    "memdesk is preparing its embedding model (first start): these results come from the "
    "keyword index only (ask again in a moment for hybrid results)"
)


def json_safe(obj: Any) -> Any:
    from memdesk.cli import common

    return common.json_safe(obj)


class ToolInputError(errors.MemdeskError):
    """A request the tool refuses (outside the workspace, too long, read-only server)."""


class MemoryTools:
    def __init__(
        self,
        root: Path,
        *,
        model: Any = "auto",
        allow_write: bool = False,
        sync_on_start: bool = True,
    ) -> None:
        root = Path(root).expanduser()
        if not root.is_dir():
            raise errors.WorkspaceError(f"{root}: workspace folder does not exist")
        self.root = root.resolve()
        self.allow_write = allow_write
        self._model = model
        self._engine: Any = None
        self._engine_lock = threading.Lock()
        self._asof_lock = threading.Lock()
        # Days whose snapshot is being finished (its changed chunks embedded) in the
        # background, each with its thread; answers meanwhile come from it, keyword-only.
        self._asof_finishing: dict[dt.date, tuple[Any, threading.Thread]] = {}
        self._asof_stop = threading.Event()
        self._sync_lock = threading.Lock()
        self._sync_thread: threading.Thread | None = None
        # Asked for while a sync ran: that sync may have listed the notes before the
        # change (an append's new daily note), so it runs once more when it ends.
        self._sync_again = False
        self._first_sync_done = threading.Event()
        self._last_sync_end = 0.0
        self._sync_error: str | None = None
        self._progress: dict[str, int] = {}
        # Set by the file watcher when a note may have changed: the next search syncs
        # (in the background). Without a watcher, a search after RESYNC_AFTER_S does.
        self._changed = threading.Event()
        self._observer: Any = None
        self._background_lock = threading.Lock()
        # A desktop bundle's default model files not all built (its first start, or a
        # start after one killed mid-build): built in the background (start_background),
        # never before the server answers. Keyword-only until then if none is built.
        self._model_formats, self._model_first = _packaged_formats_missing(model)
        self._model_done = threading.Event()
        self._model_error: str | None = None
        self._model_thread: threading.Thread | None = None
        # Counts of switches to the built model: begun, applied (the engine has it), and
        # seen by a finished sync that began after it: until then vectors are to come.
        self._model_switches = 0
        self._applied_switches = 0
        self._synced_switches = 0
        self._closing = False
        self._background_started = not sync_on_start
        self._background_timer: threading.Timer | None = None
        if sync_on_start:
            self._background_timer = threading.Timer(BACKGROUND_START_S, self.start_background)
            self._background_timer.daemon = True
            self._background_timer.start()

    def start_background(self) -> None:
        """Watch the workspace and bring the index up to date (once; see BACKGROUND_START_S)."""
        with self._background_lock:
            if self._background_started:
                return
            self._background_started = True
        if self._background_timer is not None:
            self._background_timer.cancel()
        self._watch()
        self.start_sync()
        if self._model_formats:
            self._model_thread = threading.Thread(
                target=self._prepare_model, name="memdesk-mcp-model", daemon=True
            )
            self._model_thread.start()

    def _watch(self) -> None:
        """Watch the workspace, as the app does, so an unchanged index is not rescanned on
        every search (a scan of 2,000 notes would share the cores with the search)."""
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer

            changed = self._changed

            class Handler(FileSystemEventHandler):
                def on_any_event(self, event: Any) -> None:
                    if event.event_type not in ("opened", "closed_no_write"):
                        changed.set()

            observer = Observer()
            observer.daemon = True
            observer.schedule(Handler(), str(self.root), recursive=True)
            observer.start()
            self._observer = observer
        except Exception as exc:  # inotify limits and the like: fall back to timed syncs
            log.warning("cannot watch %s (%s); syncing before searches instead", self.root, exc)
            self._observer = None

    # -- engine and sync -----------------------------------------------------------
    def engine(self) -> Any:
        """The workspace's engine, opened on first use (cheap: the model itself loads
        on the first text it embeds)."""
        with self._engine_lock:
            if self._engine is None:
                from memdesk.cli import common
                from memdesk.core import engine as engine_mod

                waiting = self._model_first and (not self._model_done.is_set() or self._model_error)
                self._engine = engine_mod.Engine.open(
                    self.root, model=None if waiting else common.model_arg(self._model)
                )
                if waiting:
                    self._engine.set_embedder(None, self._model_error or MODEL_REASON)
            return self._engine

    @property
    def model_preparing(self) -> bool:
        """The bundle's default model is being built (or is about to be)."""
        return bool(self._model_formats) and not self._model_done.is_set()

    def _prepare_model(self) -> None:
        """Build the bundle's default model files that are missing (as ``memdesk model
        build``, the same bytes), after the first sync put the notes' keyword index in,
        then switch the engine to the model and embed the notes."""
        from memdesk.cli import common
        from memdesk.core import paths
        from memdesk.core.embed.models import registry

        sys.stderr.write(
            "memdesk: preparing the embedding model from the packaged weights in the background "
            f"({', '.join(self._model_formats)}; searching by keyword meanwhile)\n"
            if self._model_first
            else f"memdesk: preparing the embedding model's {', '.join(self._model_formats)} file for "
            "this CPU from the packaged weights in the background\n"
        )
        self._first_sync_done.wait()
        start = time.monotonic()
        error: str | None = None
        try:
            registry.build_default_model(paths.models_dir(), lambda message: log.info("%s", message))
        except Exception as exc:  # a damaged install, a full disk: keyword search goes on
            error = f"cannot prepare the embedding model ({workspace.printable(str(exc))})"
            sys.stderr.write(f"memdesk: error: {error}\n")
        with self._engine_lock:
            self._model_error = error
            self._model_done.set()
            eng = self._engine
        if error is not None:
            if eng is not None and self._model_first:
                eng.set_embedder(None, error)
            return
        sys.stderr.write(f"memdesk: embedding model ready in {time.monotonic() - start:.1f} s\n")
        if eng is None or self._closing:
            return  # an engine opened from now on loads it
        self._model_switches += 1
        eng.set_model(common.model_arg(self._model))  # waits for a running sync to end
        self._applied_switches = self._model_switches
        self.start_sync()

    def start_sync(self) -> None:
        """Bring the index up to date in the background (no-op while one runs)."""
        with self._sync_lock:
            if self._sync_thread is not None and self._sync_thread.is_alive():
                self._sync_again = True
                return
            self._sync_again = False
            self._changed.clear()  # what changed before this point, this sync sees
            self._sync_thread = threading.Thread(target=self._sync, name="memdesk-mcp-sync", daemon=True)
            self._sync_thread.start()

    def _sync(self) -> None:
        def progress(step: Any) -> None:
            self._progress = {"files_done": step.files_done, "files_total": step.files_total}

        while True:
            switches = self._applied_switches
            try:
                report = self.engine().sync(progress=progress)
                self._synced_switches = switches
                if report.repaired:
                    log.warning("the index was damaged (%s); rebuilt it from the notes", report.repaired)
                self._sync_error = None
            except Exception as exc:  # a failed sync must not take the server down
                log.exception("index sync failed")
                self._sync_error = str(exc)
            finally:
                self._last_sync_end = time.monotonic()
                self._first_sync_done.set()
            with self._sync_lock:
                if not self._sync_again:
                    return
                self._sync_again = False
                self._changed.clear()

    @property
    def syncing(self) -> bool:
        """A sync runs, or the start-up sync is still to come."""
        thread = self._sync_thread
        return not self._background_started or (thread is not None and thread.is_alive())

    def wait_for_sync(self, timeout: float | None = None) -> bool:
        self.start_background()
        thread = self._sync_thread
        if thread is not None:
            thread.join(timeout)
        return not self.syncing

    def wait_for_as_of(self, timeout: float | None = None) -> bool:
        """Wait for the snapshots being finished in the background; True when none is."""
        with self._asof_lock:
            threads = [thread for _snap, thread in self._asof_finishing.values()]
        for thread in threads:
            thread.join(timeout)
        return not any(thread.is_alive() for thread in threads)

    def _close_as_of(self) -> None:
        self._asof_stop.set()  # a finish under way stops at its next batch, keeping its vectors
        self.wait_for_as_of(30)
        with self._asof_lock:
            for snap, _thread in self._asof_finishing.values():
                snap.close()
            self._asof_finishing.clear()

    def close(self) -> None:
        self._closing = True  # a model build ending now does not switch the engine
        self._close_as_of()
        with self._background_lock:
            self._background_started = True  # a pending start-up sync is not wanted now
        if self._background_timer is not None:
            self._background_timer.cancel()
        if self._observer is not None:
            self._observer.stop()
        self.wait_for_sync(30)
        if self._engine is not None:
            self._engine.close()

    # -- memory_search ---------------------------------------------------------------
    def settings_for(self, profile: str | None) -> settings_mod.SearchSettings:
        """The workspace's tuned settings (``.memdesk/tuned.json``, as the app keeps
        them): the profile last used there, or ``profile``'s own tuned values."""
        from memdesk.core.eval import tuned as eval_tuned
        from memdesk.core.search import settings as settings_mod

        if profile is None:
            return eval_tuned.current_settings(self.root)
        if profile not in settings_mod.PROFILES:
            raise ToolInputError(f"profile {profile!r}: expected one of {', '.join(settings_mod.PROFILES)}")
        try:
            return eval_tuned.load_tuning(self.root).settings(profile)
        except errors.MemdeskError as exc:
            log.warning("%s", exc)
            return settings_mod.SearchSettings.defaults(settings_mod.canonical_profile(profile))

    def _request(
        self,
        query: str,
        max_results: int | None,
        profile: str | None,
        folder: str | None,
        since: str | None,
        until: str | None,
    ) -> tuple[settings_mod.SearchSettings, Any]:
        """A search request checked: (its settings, its filter); ToolInputError names
        what is wrong."""
        if len(query) > MAX_QUERY_CHARS:
            raise ToolInputError(
                f"query is {len(query)} characters; memory_search takes at most {MAX_QUERY_CHARS}"
            )
        settings = self.settings_for(profile)
        wanted = settings.max_results
        if max_results is not None:
            if not 1 <= max_results <= 100:
                raise ToolInputError(f"max_results {max_results}: expected 1 to 100")
            wanted = max_results
        flt = _search_filter(folder, _parse_date(since, "since"), _parse_date(until, "until"))
        return settings.replace(max_results=wanted), flt

    def _ready_engine(self) -> Any:
        """The engine, a sync started if notes may have changed, and the first sync waited
        for a moment: it mostly finds the index up to date (the app or an earlier server
        keeps it), so a search need not answer keyword-only, unless that sync starts
        embedding (the keyword index is then complete) or takes long."""
        eng = self.engine()
        self.start_background()
        if self._changed.is_set() or (
            self._observer is None and time.monotonic() - self._last_sync_end > RESYNC_AFTER_S
        ):
            self.start_sync()
        deadline = time.monotonic() + FIRST_SYNC_WAIT_S
        while not self._first_sync_done.wait(0.01):
            if eng.embedder_busy or time.monotonic() > deadline:
                break
        return eng

    def memory_search(
        self,
        query: str,
        max_results: int | None = None,
        profile: str | None = None,
        as_of: str | None = None,
        folder: str | None = None,
        explain_hits: bool = False,
        since: str | None = None,
        until: str | None = None,
    ) -> dict[str, Any]:
        # What only a search needs is imported by the first search (start-up answers
        # memory_status sooner without it).
        from memdesk.core.search import ranking

        settings, flt = self._request(query, max_results, profile, folder, since, until)
        now = _parse_date(as_of, "as_of")
        eng = self._ready_engine()
        # A model just switched to has no vectors until its sync embedded the notes.
        switching = self._synced_switches < self._model_switches
        indexing = not self._first_sync_done.is_set() or eng.embedder_busy or switching
        mode = "fts" if indexing and eng.mode != "fts" else None
        t0 = time.perf_counter()
        clock = eng.clock(now)  # as_of, else the workspace's own clock
        try:
            found = eng.fetch_candidates(query, settings, mode=mode, now=clock, filters=flt)
        except errors.IndexCorrupt:
            self.wait_for_sync()
            self.start_sync()
            self.wait_for_sync()
            found = eng.fetch_candidates(query, settings, mode=mode, now=clock, filters=flt)
        hits = list(ranking.rank(found, settings, now=clock))
        total_ms = (time.perf_counter() - t0) * 1000
        notices = [n for n in (found.notice,) if n]
        if found.mode == "fts" and self._model_first and self.model_preparing:
            notices.append(MODEL_NOTE)
        elif mode == "fts":
            notices.append(INDEXING_NOTE)
        elif found.mode == "fts" and eng.fallback_reason:
            notices.append(f"keyword-only: {eng.fallback_reason}")
        data: dict[str, Any] = {
            "query": query,
            # "none": the profile's own index holds nothing (that OpenClaw release's
            # reindex fails here): nothing was searched, and the notices say why.
            "mode": "none" if found.index_failed else found.mode,
            "profile": settings.profile,
            "settings": settings.to_json(),
            "as_of": now.isoformat() if now else None,
            "folder": flt.folders[0] if flt.folders else None,
            "since": since or None,
            "until": until or None,
            "indexing": indexing,
            "notices": notices,
            "timings_ms": {"total_ms": round(total_ms, 3)},
            "results": [h.to_json() for h in hits],
        }
        if explain_hits:
            today = clock if isinstance(clock, dt.date) and not isinstance(clock, dt.datetime) else None
            _explain(data["results"], settings, found, hits, today)
        return json_safe(data)

    def memory_search_as_of(
        self,
        query: str,
        day: str,
        max_results: int | None = None,
        profile: str | None = None,
        folder: str | None = None,
        since: str | None = None,
        until: str | None = None,
        explain_hits: bool = False,
    ) -> dict[str, Any]:
        """Memory as it was at the end of ``day``: each note's version current then (the
        history memdesk keeps, and the workspace's git commits), indexed in memdesk's
        data dir and searched at that day's clock; each hit names its version and
        whether its note changed since (``core/asof``, as ``memdesk search --as-of``).
        Reads the workspace only."""

        settings, flt = self._request(query, max_results, profile, folder, since, until)
        when = _parse_date(day, "day")
        if when is None:  # the SDK requires the argument, but it may be ""
            raise ToolInputError(f"day {day!r}: expected a date as YYYY-MM-DD")
        eng = self._ready_engine()
        history = eng.history
        if history is None:
            raise ToolInputError(f"{self.root}: memdesk keeps no history of this workspace")
        t0 = time.perf_counter()
        with self._asof_lock:  # one snapshot folder per day: built by one search at a time
            snap, kept = self._as_of_snapshot(eng, history, when)
            try:
                found = snap.search(query, settings, filters=flt)
                summary = snap.to_json()
            finally:
                if not kept:
                    snap.close()
        result = found.result
        notices = [n for n in (result.pool.notice,) if n]
        if summary["pending_chunks"]:
            notices.append(
                f"keyword-only: memory as of {when.isoformat()} has {summary['pending_chunks']} "
                "passages that differ from today's still being embedded; searches of this day "
                "are hybrid once they are"
            )
        data: dict[str, Any] = {
            "query": query,
            "mode": result.pool.mode,
            "profile": settings.profile,
            "settings": settings.to_json(),
            "as_of": summary,
            "folder": flt.folders[0] if flt.folders else None,
            "since": since or None,
            "until": until or None,
            "notices": notices,
            "timings_ms": {"total_ms": round((time.perf_counter() - t0) * 1000, 3)},
            "results": [h.to_json() for h in found.hits],
        }
        if explain_hits:
            _explain(data["results"], settings, result.pool, result.hits, when)
        return json_safe(data)

    def _as_of_snapshot(self, eng: Any, history: Any, day: dt.date) -> tuple[Any, bool]:
        """The snapshot of ``day`` to answer from (under ``_asof_lock``), and whether it
        stays open (it is being finished in the background). A new day answers as soon
        as its notes are keyword-searchable: embedding the chunks that differ from the
        live index's (tens of seconds on two cores) runs in a thread meanwhile."""
        from memdesk.core import asof

        running = self._asof_finishing.get(day)
        if running is not None:
            snap, thread = running
            if thread.is_alive():
                return snap, True
            del self._asof_finishing[day]
            snap.close()  # finished: opened again below, following any version captured since
        snap = asof.open_snapshot(eng, history, day, embed=False)
        if snap.report is not None or self._asof_stop.is_set():
            return snap, False  # complete (or closing): nothing to finish
        thread = threading.Thread(
            target=self._finish_as_of, args=(snap,), name=f"memdesk-asof-{day.isoformat()}", daemon=True
        )
        self._asof_finishing[day] = (snap, thread)
        thread.start()
        return snap, True

    def _finish_as_of(self, snap: Any) -> None:
        try:
            snap.finish(cancelled=self._asof_stop.is_set)
        except errors.Cancelled:
            pass  # closing: the vectors made so far are kept for the next time
        except Exception:  # a thread's failure must not pass unseen; the next search reopens
            log.exception("finishing the as-of index of %s failed", snap.day)

    # -- memory_get --------------------------------------------------------------------
    def memory_get(self, path: str, from_: int | None = None, lines: int | None = None) -> dict[str, Any]:
        from memdesk.core.openclaw import tools as oc_tools

        if from_ is not None and from_ < 1:
            raise ToolInputError(f"from {from_}: lines are numbered from 1")
        if lines is not None and lines < 1:
            raise ToolInputError(f"lines {lines}: expected at least 1")
        note = workspace.resolve_note(self.root, path)
        text = workspace.read_note(note)
        total = text.count("\n") + (0 if text.endswith("\n") else 1)
        if from_ or lines:
            text = oc_tools.read_file_slice(text, from_, lines)
        return json_safe(
            {
                "path": workspace.rel_path(self.root, note),
                "from": from_ or 1,
                "lines": lines,
                "total_lines": total,
                "text": text,
            }
        )

    # -- memory_append -------------------------------------------------------------------
    def memory_append(self, text: str, path: str | None = None) -> dict[str, Any]:
        if not self.allow_write:
            raise ToolInputError(
                "this memdesk MCP server is read-only: start it with `memdesk mcp --allow-write` "
                "to let agents append to notes"
            )
        if not text.strip():
            raise ToolInputError("nothing to append: text is empty")
        if "\x00" in text:
            # A NUL makes the whole note look binary: memdesk would stop indexing it and
            # memory_get would refuse it.
            raise ToolInputError("text holds a NUL byte; nothing appended (a note with one is not text)")
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            raise ToolInputError("text is not valid Unicode (a lone surrogate); nothing appended") from None
        if len(data) > MAX_APPEND_BYTES:
            raise ToolInputError(f"text is {len(data)} bytes; memory_append takes at most {MAX_APPEND_BYTES}")
        from memdesk.core.index import notes

        if path is None:
            rel, created = notes.open_daily_note(self.root, dt.date.today(), source="mcp")
        else:
            rel = PurePosixPath(path.replace("\\", "/")).as_posix()
            if not rel.startswith("memory/") or not rel.endswith(".md") or ".." in rel.split("/"):
                raise ToolInputError(f"{path}: memory_append writes only .md notes inside memory/")
            if any(c < " " or c == "\x7f" for c in rel) or not workspace.printable(rel) == rel:
                # A name no one can type, or memdesk could not list (bytes that are not UTF-8).
                raise ToolInputError(
                    f"{workspace.printable(rel)!r}: a note path takes no NUL or control character "
                    "and must be valid UTF-8"
                )
            try:
                created = not (self.root / rel).exists()
                if created:
                    notes.create_note(self.root, rel, "", source="mcp")
            except OSError as exc:  # a name over 255 bytes, a file where a folder should be
                raise ToolInputError(f"{rel}: cannot create the note ({exc.strerror or exc})") from None
        note = workspace.resolve_note(self.root, rel)
        # In place, as the agent itself appends: never through a symlink out of the
        # workspace, and no line another writer adds meanwhile is displaced or lost.
        saved = workspace.append_note(note, data, root=self.root, source="mcp")
        self.start_background()
        self.start_sync()
        return {"path": rel, "created": created, "bytes": len(saved.data), "merged": saved.merged}

    # -- memory_status -------------------------------------------------------------------
    def memory_status(self) -> dict[str, Any]:
        eng = self.engine()
        st = eng.status()
        data = st.to_json()
        loaded = bool(getattr(eng.embedder, "loaded", False)) if eng.embedder is not None else False
        preparing = self.model_preparing
        if eng.mode == "fts" and self._model_first and preparing:
            why = MODEL_REASON + "; keyword-only meanwhile, hybrid once it is ready"
        elif eng.mode == "fts":
            why = st.fallback_reason or "no embedding model"
        elif (
            not self._first_sync_done.is_set()
            or eng.embedder_busy
            or self._synced_switches < self._model_switches
        ):
            why = "hybrid once indexing finishes; keyword-only meanwhile"
        else:
            why = "hybrid: keyword (FTS5) and vector search" + (
                "" if loaded else " (the model loads on the first search)"
            )
            if preparing:
                why += f"; this CPU's {', '.join(self._model_formats)} model file is being prepared"
        return json_safe(
            {
                "workspace": data["workspace"],
                "files": data["files"],
                "chunks": data["chunks"],
                "mode": "keyword-only" if eng.mode == "fts" else "hybrid",
                "mode_reason": why,
                "model_loaded": loaded,
                "model_preparing": preparing,
                "indexing": self.syncing,
                "indexing_progress": dict(self._progress) if self.syncing else None,
                "stale_notes": data["dirty_files"],
                "failures": data["failures"],
                "damage": data["damage"],
                "last_sync_error": self._sync_error,
                "allow_write": self.allow_write,
                "index": data["db_path"],
            }
        )

    # -- resources ------------------------------------------------------------------------
    def note_paths(self) -> list[str]:
        return sorted(workspace.rel_path(self.root, p) for p in workspace.list_memory_files(self.root))


def _packaged_formats_missing(model: Any) -> tuple[list[str], bool]:
    """The default model's formats a desktop bundle still has to build for ``model``
    ("auto": the default model), else none (a pip install, a named model, keyword-only),
    and whether its F16 file is among them (then no file of it is there to search with)."""
    from memdesk.core import paths

    if model != "auto" or paths.bundled_sources_dir() is None:  # no registry import off a bundle
        return [], False
    from memdesk.core.embed.models import registry, weight_formats

    missing = registry.missing_packaged_formats(paths.models_dir())
    return missing, weight_formats.DEFAULT_FORMAT in missing


def _parse_date(value: str | None, name: str) -> dt.date | None:
    if value is None or value == "":
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ToolInputError(f"{name} {value!r}: expected a date as YYYY-MM-DD") from None


def _search_filter(folder: str | None, since: dt.date | None, until: dt.date | None) -> Any:
    """The search filter for ``folder`` and the notes' date range (one definition for
    app, CLI and MCP: ``core/search/filters``)."""
    from memdesk.core.search import filters

    try:
        return filters.SearchFilter.build([folder] if folder else [], since, until)
    except filters.FilterError as exc:
        raise ToolInputError(str(exc)) from None


def _explain(
    results: list[dict[str, Any]], settings: Any, pool: Any, hits: Any, today: dt.date | None
) -> None:
    """Each result's explanation, as JSON and as the app's explanation pane words it."""
    from memdesk.core.search import explain, explain_text, highlight

    # The words the keyword leg searched, as the pane lists them: not a query word it
    # left out for being in half the chunks or more (keyword.searched_share).
    terms = highlight.KeywordTerms.of_pool(pool)
    all_hits = tuple(hits)
    for obj, h in zip(results, all_hits, strict=True):
        e = explain.explain(h, settings, pool.mode, hits=all_hits, pool=pool, terms=terms, today=today)
        obj["explain"] = e.to_json()
        # The app's explanation pane, word for word (in English): its heading,
        # then one "Heading: sentence" line per row of its table.
        obj["explain_lines"] = explain_text.lines(e)
