"""Agent doctor: what will go wrong in the agent's own indexing and search, before it does.

Each check reads the agent's config, files and index the way its OpenClaw release
does and reports a ``Finding``:

* ``chunk_too_long`` – a chunk (chunked as the agent's release does: 400/80 or the
  configured chunking under 2026.4, chunker v5 under 2026.9) longer than the local
  embedding model's context. node-llama-cpp (OpenClaw 2026.4's local embedder)
  throws "Input is longer than the context size" and OpenClaw then discards the
  whole reindex: no files, no chunks, no memory search at all.
* ``skipped`` – files the user may expect the agent to search that it never indexes.
* ``annotation`` – importance/trigger comments the agent's release will not read.
* ``project`` – a bare or malformed ``<!-- project: -->`` comment: 2026.9 stores the
  entry as an invalid project and leaves it out of every search.
* ``cjk_keyword_only`` – a mostly CJK workspace searched by keyword alone with the
  ``unicode61`` tokenizer, which makes each run of CJK text one word.
* ``local_server`` – 2026.9's ``local`` provider with no llama-server on this machine:
  the agent downloads one on first use, which fails offline.
* ``decay`` – notes the agent ages (or never ages) differently from what their name
  suggests.
* ``identity`` – the index was built with another provider, model, sources, scope,
  chunking or tokenizer than the config now asks for. OpenClaw 2026.9 then pauses
  vector search until an explicit rebuild; 2026.4 rebuilds everything on its next sync.
* ``stale`` / ``no_index`` – files changed since the agent indexed them.
"""

from __future__ import annotations

from .chunk_lengths import find_local_model
from .findings import DoctorReport, Finding, summarize
from .identity import identity_mismatches, scope_hash
from .run import run_doctor

__all__ = [
    "DoctorReport",
    "Finding",
    "find_local_model",
    "identity_mismatches",
    "run_doctor",
    "scope_hash",
    "summarize",
]
