"""2026.9's fixed numbers: the named defaults it keeps and the limits of its search."""

from __future__ import annotations

from .. import config as oc_config

VERSION = "2026.9.6"
# 2026.9 keeps 2026.4's named defaults (DEFAULT_CHUNK_TOKENS, DEFAULT_MAX_RESULTS,
# DEFAULT_HYBRID_VECTOR_WEIGHT, DEFAULT_MMR_LAMBDA, DEFAULT_TEMPORAL_DECAY_HALF_LIFE_DAYS,
# ... in its memory-search modules, same values); only maxResults/minScore stay
# configurable, the rest became fixed. One source for the numbers: config.py.
CHUNK_TOKENS = oc_config.DEFAULT_CHUNK_TOKENS
CHUNK_OVERLAP = oc_config.DEFAULT_CHUNK_OVERLAP
MAX_RESULTS = oc_config.DEFAULT_MAX_RESULTS
MIN_SCORE = oc_config.DEFAULT_MIN_SCORE
VECTOR_WEIGHT = oc_config.DEFAULT_VECTOR_WEIGHT
TEXT_WEIGHT = oc_config.DEFAULT_TEXT_WEIGHT
CANDIDATE_UNIVERSE = 200  # search() asks searchCandidates for max(200, maxResults)
MMR_LAMBDA = oc_config.DEFAULT_MMR_LAMBDA
HALF_LIFE_DAYS = float(oc_config.DEFAULT_HALF_LIFE_DAYS)
SNIPPET_MAX_CHARS = 700
KEYWORD_FALLBACK_TERM_LIMIT = 6
EXACT_PATH_CANDIDATE_LIMIT = 200
DAY_MS = 86_400_000
INVALID_PROJECT_KEY = "!invalid-project-annotation"
