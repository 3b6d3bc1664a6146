"""Writing a BERT-architecture GGUF file atomically (shared by the model builders)."""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


@contextlib.contextmanager
def atomic_bert_gguf(out_path: Path, say: Callable[[str], None]) -> Iterator[Any]:
    """Yield a ``gguf.GGUFWriter`` on a temp file; on success write it and rename it
    over ``out_path``, on any error delete it, so a half-written model never exists."""
    import gguf

    out_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out_path.name}.", suffix=".tmp", dir=out_path.parent)
    os.close(fd)
    tmp_path = Path(tmp_name)
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
        os.replace(tmp_path, out_path)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise
    logger.info("built %s (%d bytes)", out_path, out_path.stat().st_size)
    say(f"Built {out_path}")
