"""llama.cpp as memdesk loads it: imported and initialised once per process, its
OpenMP threads asleep at barriers, its log routed to Python logging, its CPU backend
chosen (``cpu_backend``); and what the embedder asks of the OS around it (physical
cores, giving a buffer's pages back through libc's ``madvise``).
"""

from __future__ import annotations

import ctypes
import logging
import mmap
import os
import sys
import threading
from typing import Any

from memdesk.core.embed import cpu_backend
from memdesk.core.errors import EmbedderUnavailable
from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

logger = logging.getLogger(__name__)
_llama_logger = logging.getLogger(__name__ + ".llama")

_MADV_DONTNEED = 4


def physical_cores() -> int:
    """Physical CPU cores (hyper-threads share a core's FPU, so llama.cpp gains nothing)."""
    try:
        cores: set[tuple[str, str]] = set()
        physical = core = ""
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("physical id"):
                    physical = line.split(":", 1)[1].strip()
                elif line.startswith("core id"):
                    core = line.split(":", 1)[1].strip()
                elif not line.strip():
                    if core:
                        cores.add((physical, core))
                    physical = core = ""
        if core:
            cores.add((physical, core))
        if cores:
            return len(cores)
    except OSError:
        pass
    return max(1, os.cpu_count() or 1)


def _prefer_passive_openmp() -> None:
    """Make llama.cpp's OpenMP threads sleep at barriers instead of spinning.

    ggml (built with OpenMP) synchronises its threads at every graph node. With
    libgomp's default spin-waiting, one descheduled thread stalls the others
    while they burn their time slices: on 2 busy cores MiniLM fell from ~5,000
    to ~600 tok/s; with ``OMP_WAIT_POLICY=PASSIVE`` it kept ~1,800-2,400. A
    short bounded spin does not pay either: with two busy loops beside it, a
    one-query embedding took a median 26 ms passive, 51 ms with
    ``GOMP_SPINCOUNT=1000``, 252 ms with 10000 (quiet, the spin saved ~1.5 ms).
    It must be set before libgomp loads (at ``import llama_cpp``); an explicit
    user setting wins.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


_log_callback: Any = None


def silence_llama_logging(llama_cpp: Any) -> None:
    """Route llama.cpp's log output to Python logging instead of stderr.

    llama-cpp-python installs a callback printing errors to stderr; the CLI must
    stay clean, so everything goes to the ``memdesk.core.embed.llama_runtime.llama``
    logger below WARNING (Python's last-resort handler would print WARNING+).
    """
    global _log_callback
    if _log_callback is not None:
        return

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]  # llama_cpp ships no type hints
    def _callback(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
        try:
            message = text.decode("utf-8", "replace").rstrip()
        except Exception:
            return
        if message:
            _llama_logger.log(logging.INFO if level == 3 else logging.DEBUG, "%s", message)

    _log_callback = _callback  # keep a reference: C holds only a raw pointer
    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))


_backend_lock = threading.Lock()
_backend_ready = False


def _load_libc() -> Any:
    """libc's ``madvise`` (Linux/macOS), or None where there is none to call."""
    if not sys.platform.startswith(("linux", "darwin")):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.madvise.restype = ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


_libc = _load_libc()
# Whether ``release_pages`` can do anything here (asked before looking for the pages).
CAN_RELEASE_PAGES = _libc is not None


def release_pages(address: int, size: int) -> None:
    """Give the whole pages inside ``size`` bytes at ``address`` back to the OS
    (``madvise(MADV_DONTNEED)``): they read as zeros until written again."""
    if _libc is None:
        return
    page = mmap.PAGESIZE
    start = -(-address // page) * page  # whole pages inside the buffer only
    end = (address + size) // page * page
    if end > start and _libc.madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), _MADV_DONTNEED):
        logger.debug("madvise(MADV_DONTNEED) failed (errno %d)", ctypes.get_errno())


def load_llama_cpp() -> Any:
    """llama-cpp-python's low-level module, imported and initialised once per process.

    The high-level ``llama_cpp.Llama`` is not used: it allocates a logits buffer
    of ``n_batch x vocabulary`` floats (250k tokens for e5: 0.5 GB) that an
    embedding model never needs.
    """
    global _backend_ready
    _prefer_passive_openmp()
    try:
        import llama_cpp
    except ImportError as exc:
        raise EmbedderUnavailable(
            msg(
                QT_TRANSLATE_NOOP("core", "llama-cpp-python is not installed or broken: {error}"),
                error=str(exc),
            )
        ) from None
    with _backend_lock:
        if not _backend_ready:
            silence_llama_logging(llama_cpp)
            # A runtime-dispatch build has no CPU backend until one is loaded.
            cpu_backend.ensure_loaded(llama_cpp)
            llama_cpp.llama_backend_init()
            _backend_ready = True
    return llama_cpp


def active_cpu_backend() -> cpu_backend.CpuBackend:
    """The CPU backend llama.cpp runs with, loading llama.cpp first if nothing has yet.

    Raises ``EmbedderUnavailable`` (one line) when llama-cpp-python is missing or the
    forced variant cannot run.
    """
    load_llama_cpp()  # the one place llama.cpp is imported and initialised
    backend = cpu_backend.loaded()
    assert backend is not None  # load_llama_cpp() loads it or raises
    return backend
