"""The sha256 of a model file, computed once: cached for the process and in a
``<file>.sha256`` sidecar beside the model (it names the exact weights an index
was built with, and a 100 MB hash at every CLI call would be felt)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from pathlib import Path

from memdesk.core import diskio, paths

_sha_cache: dict[tuple[str, int, int], str] = {}
_sha_lock = threading.Lock()


def file_sha256(path: Path) -> str:
    """sha256 of a model file, cached by (realpath, size, mtime_ns).

    Cached for the process and in a ``<file>.sha256`` sidecar (when the folder is
    writable), so a CLI call does not hash 100 MB of weights every time. A desktop
    bundle's shipped models come with their sidecars (``packaging/build.sh`` writes
    them); the app never writes into its install folder, even when it could (root),
    as a package manager would find the file left behind at removal.
    """
    real = os.path.realpath(path)
    st = os.stat(real)
    key = (real, st.st_size, st.st_mtime_ns)
    with _sha_lock:
        cached = _sha_cache.get(key)
    if cached is not None:
        return cached
    sidecar = real + ".sha256"
    value = _read_sha_sidecar(sidecar, st)
    if value is None:
        digest = hashlib.sha256()
        with open(real, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        value = digest.hexdigest()
        shipped = paths.bundled_models_dir()
        if shipped is None or not Path(real).is_relative_to(os.path.realpath(shipped)):
            _write_sha_sidecar(sidecar, st, value)
    with _sha_lock:
        _sha_cache[key] = value
    return value


def _read_sha_sidecar(sidecar: str, st: os.stat_result) -> str | None:
    try:
        with open(sidecar, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if (
        isinstance(data, dict)
        and data.get("size") == st.st_size
        and data.get("mtime_ns") == st.st_mtime_ns
        and isinstance(data.get("sha256"), str)
        and len(data["sha256"]) == 64
    ):
        return str(data["sha256"])
    return None


def _write_sha_sidecar(sidecar: str, st: os.stat_result, value: str) -> None:
    data = json.dumps({"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": value}).encode("utf-8")
    with contextlib.suppress(OSError):  # a folder that cannot take it: hashed again next time
        diskio.write_atomic(Path(sidecar), data, mode=0o600, keep_mode=False)
