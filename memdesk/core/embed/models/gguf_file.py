"""Writing a BERT-architecture GGUF file atomically (shared by the model builders)."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memdesk.core import diskio
from memdesk.core.embed import partial_files

logger = logging.getLogger(__name__)


def _partial_pattern(name: str) -> re.Pattern[str]:
    """The temp names ``atomic_bert_gguf`` gives ``name``'s replacement (``tempfile.mkstemp``
    with its prefix and suffix: ``.<name>.<8 of [a-z0-9_]>.tmp``), and nothing else."""
    return re.compile(rf"^\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp$")


def remove_partial_files(out_path: Path) -> list[Path]:
    """Delete the partial files a killed build of ``out_path`` left beside it (a model is
    ~100 MB): only ``atomic_bert_gguf``'s own temp names, only regular files, and never
    one a running build still holds (its lock). Returns what was removed."""
    return partial_files.remove_unlocked(out_path.parent, _partial_pattern(out_path.name))


def _locked_temp(out_path: Path) -> tuple[int, Path]:
    """A new temp file beside ``out_path`` and an open descriptor holding its lock. The
    file is checked to still be the one locked: a clean-up may have removed it between
    its creation and the lock (then another is made)."""
    while True:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".tmp", dir=out_path.parent)
        partial_files.lock(fd, wait=True)
        if partial_files.holds(fd, Path(tmp_name)):
            return fd, Path(tmp_name)
        os.close(fd)


@contextlib.contextmanager
def atomic_bert_gguf(out_path: Path, say: Callable[[str], None]) -> Iterator[Any]:
    """Yield a ``gguf.GGUFWriter`` on a temp file; on success write it, fsync it and rename
    it over ``out_path``, on any error delete it, so a half-written model never exists
    under a model's name; what a killed build left is removed first."""
    import gguf

    out_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    remove_partial_files(out_path)
    lock_fd, tmp_path = _locked_temp(out_path)
    try:
        writer = gguf.GGUFWriter(tmp_path, arch=gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
        yield writer
        say(f"Writing {out_path.name}")
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        # mkstemp creates 0600 and GGUFWriter may have recreated it under the umask:
        # everything memdesk creates is owner-only.
        os.chmod(tmp_path, 0o600)
        # On disk before it takes the model's name: after a crash the name holds either
        # nothing or the whole file, never a file whose blocks never reached the disk.
        with open(tmp_path, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp_path, out_path)
        diskio.fsync_dir(out_path.parent)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise
    finally:
        os.close(lock_fd)
    logger.info("built %s (%d bytes)", out_path, out_path.stat().st_size)
    say(f"Built {out_path}")
