"""Hits an OpenClaw agent may put in either order: closer than the agent's own jitter.

OpenClaw's scores are not repeatable with themselves: two reindexes of the same
workspace by 2026.9.6 gave vectors that moved its own scores by up to 1.1e-4, and the
embedding kernels a CPU picks move them by about as much again. The fixture comparator
(``core/eval/fixture_parity``) allows for that with ``AGENT_JITTER``; two neighbouring hits of an agent
profile whose scores are closer than it may come in either order when the agent runs
the same search. Keyword-only scores (bm25, no embedding) are the same digits
everywhere, so a pair of them is never a near-tie.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from .hits import Hit
from .settings import is_openclaw

# Every score that comes from an embedding (a cosine, its hybrid merge, the same after
# decay or importance) depends on the CPU: llama-cpp-python compiles llama.cpp with
# GGML_NATIVE, and node-llama-cpp's prebuilt picks its kernels at run time, so a machine
# with AVX-512 runs other float kernels than one with AVX2 only. Measured on an AMD EPYC
# with AVX-512 (avx512_bf16, avx512_vnni) against the fixtures, which were recorded on
# AVX2 kernels (the same llama.cpp built with AVX2 and without AVX-512 reproduces every
# recorded score within 6.2e-7): hybrid scores moved by up to 1.44e-4 (MiniLM; e5 5.1e-5),
# cosines between two stored chunks by up to 1.97e-4. The tolerance is about twice that.
# OpenClaw's own scores move by about 1e-4 between two reindexes (issue 22), so shifts of
# this size are noise to the agent as well; a formula error (a weight, a decay, a missing
# boost) moves a score by 1e-3 or more and still fails, as do a different hit and an order
# that is not a near-tie. What it can no longer tell apart is a kernel choice of the same
# size, e.g. flash attention's F16 accumulation (2.2e-4): only the recording's own
# kernels could (see tests/fixtures/openclaw/README.md).
AGENT_JITTER = 3e-4


def near_ties(
    hits: Sequence[Hit], profile: str, tolerance: float = AGENT_JITTER
) -> dict[str, tuple[int, ...]]:
    """``chunk_id`` -> the ranks of its neighbours (in ``hits``' order) it may swap with.

    Empty for memdesk's own profile: memdesk is repeatable, only the agent's order is in doubt.
    """
    if not is_openclaw(profile):
        return {}
    found: dict[str, list[int]] = {}
    for above, below in itertools.pairwise(hits):
        if above.vector_score is None and below.vector_score is None:
            continue
        if abs(above.score - below.score) < tolerance:
            found.setdefault(above.chunk_id, []).append(below.rank)
            found.setdefault(below.chunk_id, []).append(above.rank)
    return {chunk: tuple(ranks) for chunk, ranks in found.items()}
