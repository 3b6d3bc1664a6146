"""Which of llama.cpp's CPU backend variants runs here, chosen when llama.cpp loads.

memdesk's llama.cpp is built for runtime dispatch (``scripts/setup.sh``: GGML_BACKEND_DL
with GGML_CPU_ALL_VARIANTS, as llama.cpp's own release builds), so one bundle runs on
any x86-64 CPU: it ships one ``libggml-cpu-<variant>.so`` per instruction-set level
(``x64`` the baseline, then ``sse42``, ``haswell``, ``skylakex``, ``icelake``, ``zen4``,
...) and libggml links none of them. A natively built bundle (GGML_NATIVE) would die
with "Illegal instruction" on a CPU older than the build machine's.

Such a build needs a CPU backend loaded before any model (llama.cpp otherwise fails
with "no backends are loaded"), and llama-cpp-python does not bind ``ggml_backend_load``,
so :func:`ensure_loaded` does it through ctypes. It picks the variant itself rather than
calling ``ggml_backend_load_best``, to know its name and to honour ``MEMDESK_LLAMA_CPU``:
each variant exports ``ggml_backend_score()`` (0 when this CPU lacks its instructions,
higher for a richer instruction set), and the highest score wins, as in llama.cpp.
``MEMDESK_LLAMA_CPU=x64`` forces the baseline (the packaging check runs the bundle so).
"""

from __future__ import annotations

import ctypes
import dataclasses
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

from memdesk.core.errors import EmbedderUnavailable
from memdesk.core.messages import QT_TRANSLATE_NOOP, Message, msg

logger = logging.getLogger(__name__)

FORCE_ENV = "MEMDESK_LLAMA_CPU"
BASELINE = "x64"  # plain x86-64: SSE2 only, runs on every 64-bit PC
_PREFIX = "libggml-cpu-"
_SUFFIX = ".dylib" if sys.platform == "darwin" else ".so"


@dataclasses.dataclass(frozen=True)
class CpuBackend:
    """The CPU backend llama.cpp computes with in this process."""

    variant: str | None  # e.g. "zen4"; None: a native build, its one CPU backend linked in
    variants: tuple[str, ...]  # every variant the build ships (none for a native build)
    best: str | None  # the variant chosen without MEMDESK_LLAMA_CPU
    forced: bool  # chosen by MEMDESK_LLAMA_CPU
    # What the loaded backend was compiled to use, as ggml names it ("AVX2", "AVX512_BF16",
    # ...): ggml_backend_get_features of the CPU backend (empty if ggml cannot say).
    features: frozenset[str] = frozenset()

    @property
    def dispatch(self) -> bool:
        return self.variant is not None

    def describe(self) -> Message:
        """One line for ``memdesk model list`` and Help → About."""
        if self.variant is None:
            return msg(QT_TRANSLATE_NOOP("core", "native build (not portable)"))
        if self.forced:
            return msg(
                QT_TRANSLATE_NOOP("core", "{variant} (forced by {env}; this CPU's best: {best})"),
                variant=self.variant,
                env=FORCE_ENV,
                best=self.best or "?",
            )
        if BASELINE in self.variants:
            return msg(
                QT_TRANSLATE_NOOP("core", "{variant} (runtime dispatch; baseline {baseline} available)"),
                variant=self.variant,
                baseline=BASELINE,
            )
        return msg(
            QT_TRANSLATE_NOOP("core", "{variant} (runtime dispatch; no baseline {baseline} variant)"),
            variant=self.variant,
            baseline=BASELINE,
        )


_lock = threading.Lock()
_loaded: CpuBackend | None = None


def library_dir(llama_cpp: Any) -> Path:
    """Where llama-cpp-python loaded libllama from (honours its LLAMA_CPP_LIB_PATH)."""
    base = getattr(getattr(llama_cpp, "llama_cpp", None), "_base_path", None)
    return Path(base) if base is not None else Path(llama_cpp.__file__).parent / "lib"


def variant_libraries(lib_dir: Path) -> dict[str, Path]:
    """The CPU variants a dispatch build ships in ``lib_dir``, by name."""
    found = {}
    for path in sorted(lib_dir.glob(f"{_PREFIX}*{_SUFFIX}")):
        found[path.name[len(_PREFIX) : -len(_SUFFIX)]] = path
    return found


def score(path: Path) -> int:
    """The variant's ``ggml_backend_score()``: 0 when this CPU cannot run it.

    Only its CPU-feature probe runs (as in llama.cpp's own ``ggml_backend_load_best``);
    the library is closed again, and ggml opens the chosen one itself.
    """
    lib = ctypes.CDLL(str(path))
    try:
        fn = lib.ggml_backend_score
    except AttributeError:
        return 0
    fn.restype = ctypes.c_int
    fn.argtypes = []
    value = int(fn())
    _dlclose(lib)
    return value


def _dlclose(lib: ctypes.CDLL) -> None:
    import _ctypes

    close = getattr(_ctypes, "dlclose", None)
    if close is not None:
        close(lib._handle)


def choose(variants: dict[str, Path], forced: str | None) -> tuple[str, str]:
    """(variant to load, this CPU's best variant); ``forced`` is MEMDESK_LLAMA_CPU's value.

    Raises ``EmbedderUnavailable`` (one line) when the forced variant is not shipped
    or this CPU cannot run it, or when no variant runs here at all.
    """
    scores = {name: score(path) for name, path in variants.items()}
    # Highest score wins; the sorted names break a tie the same way every time.
    best = max(sorted(scores), key=lambda name: scores[name])
    if forced is not None:
        if forced not in variants:
            raise EmbedderUnavailable(
                msg(
                    QT_TRANSLATE_NOOP(
                        "core", "{env}={value}: llama.cpp has no such CPU backend (it has: {names})"
                    ),
                    env=FORCE_ENV,
                    value=forced,
                    names=", ".join(sorted(variants)),
                )
            )
        if scores[forced] == 0:
            raise EmbedderUnavailable(
                msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "{env}={value}: this CPU lacks the instructions llama.cpp's {value} backend needs",
                    ),
                    env=FORCE_ENV,
                    value=forced,
                )
            )
        return forced, best
    if scores[best] == 0:
        raise EmbedderUnavailable(
            msg(
                QT_TRANSLATE_NOOP("core", "none of llama.cpp's CPU backends runs on this CPU ({names})"),
                names=", ".join(sorted(variants)),
            )
        )
    return best, best


def ensure_loaded(llama_cpp: Any) -> CpuBackend:
    """Load the CPU backend into llama.cpp once per process (before any model) and say which.

    A native build has its CPU backend linked in: nothing to load, and forcing a
    variant is refused (there is none to choose).
    """
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        lib_dir = library_dir(llama_cpp)
        variants = variant_libraries(lib_dir)
        forced = os.environ.get(FORCE_ENV) or None
        if not variants:
            if forced is not None:
                raise EmbedderUnavailable(
                    msg(
                        QT_TRANSLATE_NOOP(
                            "core",
                            "{env}={value}: this llama.cpp is a native build, with no CPU backend variants",
                        ),
                        env=FORCE_ENV,
                        value=forced,
                    )
                )
            try:  # its one CPU backend is linked in: ask it the same way
                features = backend_features(ctypes.CDLL(str(lib_dir / f"libllama{_SUFFIX}")))
            except OSError:
                features = frozenset()
            _loaded = CpuBackend(variant=None, variants=(), best=None, forced=False, features=features)
            return _loaded
        variant, best = choose(variants, forced)
        # Through libllama, the very file llama-cpp-python loaded (the same handle): dlsym
        # then finds ggml_backend_load in the libggml that libllama uses. The wheel's
        # libggml.so is a copy of libllama's libggml.so.0, not a link: opening it would
        # load a second ggml with a registry of its own, and the model would still find
        # "no backends are loaded".
        llama = ctypes.CDLL(str(lib_dir / f"libllama{_SUFFIX}"))
        load = llama.ggml_backend_load
        load.restype = ctypes.c_void_p
        load.argtypes = [ctypes.c_char_p]
        if not load(os.fsencode(variants[variant])):
            raise EmbedderUnavailable(
                msg(
                    QT_TRANSLATE_NOOP("core", "llama.cpp could not load its CPU backend {path}"),
                    path=str(variants[variant]),
                )
            )
        _loaded = CpuBackend(
            variant=variant,
            variants=tuple(sorted(variants)),
            best=best,
            forced=forced is not None,
            features=backend_features(llama),
        )
        logger.info("llama.cpp CPU backend: %s", _loaded.describe())
        return _loaded


class _Feature(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


def backend_features(llama: ctypes.CDLL) -> frozenset[str]:
    """The features ggml's loaded CPU backend was built with and uses (value "1").

    Through ``ggml_backend_get_features``, which the CPU backend exports by name
    (``ggml_backend_reg_get_proc_address``): each variant reports its own compile-time
    instruction sets, so the x64 variant reports no AVX512_BF16 on a CPU that has it.
    """
    try:
        by_name = llama.ggml_backend_reg_by_name
        proc = llama.ggml_backend_reg_get_proc_address
    except AttributeError:
        return frozenset()
    by_name.restype = ctypes.c_void_p
    by_name.argtypes = [ctypes.c_char_p]
    proc.restype = ctypes.c_void_p
    proc.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    reg = by_name(b"CPU")
    address = proc(reg, b"ggml_backend_get_features") if reg else None
    if not address:
        return frozenset()
    get = ctypes.CFUNCTYPE(ctypes.POINTER(_Feature), ctypes.c_void_p)(address)
    table = get(reg)
    found = set()
    i = 0
    while table[i].name:  # ends with a {NULL, NULL} entry
        if (table[i].value or b"") == b"1":
            found.add(table[i].name.decode("ascii", "replace"))
        i += 1
    return frozenset(found)


# /proc/cpuinfo flag -> ggml's name for what a variant built for it uses.
_CPUINFO_FEATURES = {"avx512_bf16": "AVX512_BF16", "avx512_vnni": "AVX512_VNNI", "avx2": "AVX2"}


def likely_features(cpuinfo: str | None = None) -> frozenset[str]:
    """The features the backend llama.cpp will load here uses, known before loading it.

    Once it is loaded: its own list. Before (choosing a model file must not wait for
    llama.cpp): this CPU's flags as ggml names them, since the best-scoring variant on a
    CPU uses what it has; with a variant forced by MEMDESK_LLAMA_CPU, none (unknown
    until loaded: assume the baseline).
    """
    if _loaded is not None:
        return _loaded.features
    if os.environ.get(FORCE_ENV):
        return frozenset()
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo", encoding="utf-8") as handle:
                cpuinfo = handle.read()
        except OSError:
            return frozenset()
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags.update(line.partition(":")[2].split())
            break
    return frozenset(name for flag, name in _CPUINFO_FEATURES.items() if flag in flags)


def loaded() -> CpuBackend | None:
    """The backend :func:`ensure_loaded` loaded in this process, if it ran."""
    return _loaded
