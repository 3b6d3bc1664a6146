"""Which files are memory files, in OpenClaw's order
(``memory-host-sdk/src/host/internal.ts`` ``listMemoryFiles``)."""

from __future__ import annotations

import os
from pathlib import Path


def list_memory_files(workspace: Path) -> list[str]:
    """Workspace-relative paths in OpenClaw's order; symlinks are skipped."""
    root = Path(workspace)
    out: list[str] = []
    for name in ("MEMORY.md", "USER.md"):
        p = root / name
        if p.is_file() and not p.is_symlink():
            out.append(name)
    mem = root / "memory"
    if mem.is_dir() and not mem.is_symlink():
        found: list[str] = []
        for dirpath, dirnames, filenames in os.walk(mem, followlinks=False):
            dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).is_symlink()]
            for f in filenames:
                p = Path(dirpath) / f
                if f.endswith(".md") and p.is_file() and not p.is_symlink():
                    found.append(str(p))
        for abs_path in sorted(found):
            out.append(Path(abs_path).relative_to(root).as_posix())
    return out
