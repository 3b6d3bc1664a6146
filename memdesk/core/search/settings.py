"""Typed search settings: bounds and descriptions, defaults from the ranking profile.

The GUI's sliders take their ranges from ``FIELDS``; the CLI flags and the saved
user settings go through ``SearchSettings.clamped`` so every path obeys the same bounds.
A profile's values and what it accepts are the profile's (``profiles/``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from memdesk.core.openclaw import config as oc_config
from memdesk.core.search import profiles

Profile = str  # a name in the profile registry (``profiles.NAMES``)
MEMDESK: Profile = profiles.MEMDESK.name
OPENCLAW_2026_4: Profile = profiles.openclaw_2026_4.PROFILE.name  # OpenClaw v2026.4.12
OPENCLAW_2026_9: Profile = profiles.openclaw_2026_9.PROFILE.name  # OpenClaw v2026.9.6
# "openclaw" names the newest verified OpenClaw release.
PROFILE_ALIASES: dict[str, Profile] = {a: p.name for p in profiles.ALL for a in p.aliases}
# What the CLI's --profile and the GUI's picker offer (the aliases last).
PROFILES: tuple[Profile, ...] = profiles.NAMES
# The distinct profiles (no aliases): what per-profile state is kept for.
CANONICAL_PROFILES: tuple[Profile, ...] = profiles.CANONICAL


def canonical_profile(profile: str) -> Profile:
    """The profile an alias names (``openclaw`` -> the newest OpenClaw profile)."""
    return profiles.get(profile).name


def is_openclaw(profile: str) -> bool:
    return profiles.get(profile).openclaw_layout is not None


@dataclasses.dataclass(frozen=True)
class Field:
    """Bounds and help text of one tunable setting, and where it can be set.

    ``FIELDS`` is the one list of tunable settings: the tuning panel's sliders (in
    this order), the CLI's ranking flags and the auto-tune's search space are the
    fields that name a ``slider``, a ``flag`` or say ``tuned``.
    """

    name: str
    label: str
    minimum: float
    maximum: float
    step: float
    description: str
    integer: bool = False
    slider: str | None = None  # the tuning panel slider's objectName (tests and automation use it)
    flag: str | None = None  # the ranking flag of `memdesk search`/`eval`/`agent apply`
    metavar: str | None = None  # the flag's value name in --help
    tuned: bool = False  # searched by the auto-tune (``eval/tune.py``)


FIELDS: dict[str, Field] = {
    f.name: f
    for f in (
        Field(
            "vector_weight",
            "Vector weight",
            0.0,
            1.0,
            0.05,
            "Weight of the cosine similarity of the query and chunk embeddings.",
            slider="vectorWeightSlider",
            flag="--vector-weight",
            tuned=True,
        ),
        Field(
            "text_weight",
            "Text weight",
            0.0,
            1.0,
            0.05,
            "Weight of the keyword (BM25) score.",
            slider="textWeightSlider",
            flag="--text-weight",
            tuned=True,
        ),
        Field(
            "min_score",
            "Min score",
            0.0,
            1.0,
            0.01,
            "Hits whose final score is below this are dropped.",
            slider="minScoreSlider",
        ),
        Field(
            "max_results",
            "Max results",
            1,
            100,
            1,
            "How many hits to return.",
            integer=True,
            slider="maxResultsSlider",
        ),
        Field(
            "candidate_multiplier",
            "Candidate multiplier",
            1,
            20,
            1,
            "Each leg fetches max_results x this many candidates (at most 200).",
            integer=True,
            slider="candidateMultiplierSlider",
            flag="--candidate-multiplier",
        ),
        Field(
            "recency_weight",
            "Recency weight",
            0.0,
            0.5,
            0.01,
            "Most a note can gain for being recent when the query asks for the current state "
            "(memdesk profile; an older note that matches better by more than this keeps its place).",
            slider="recencyWeightSlider",
        ),
        Field(
            "half_life_days",
            "Half-life (days)",
            1,
            3650,
            1,
            "Age at which a dated note's score is halved by temporal decay, "
            "and its recency bonus halved by recency.",
            integer=True,
            slider="halfLifeSlider",
            flag="--half-life",
            metavar="DAYS",
            tuned=True,
        ),
        Field(
            "date_boost",
            "Date match boost",
            0.0,
            0.5,
            0.01,
            "Added to notes dated in a period the query names, such as 'in July' or 'last week' "
            "(memdesk profile).",
        ),
        Field(
            "mmr_lambda",
            "MMR lambda",
            0.0,
            1.0,
            0.05,
            "1 = pure relevance, 0 = pure diversity, in maximal marginal relevance.",
            slider="mmrLambdaSlider",
            flag="--mmr-lambda",
            tuned=True,
        ),
    )
}


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """Everything that shapes a ranking; hashable so cached results can key on it."""

    profile: Profile = MEMDESK
    # 0.75/0.25 (was 0.6/0.4): on agent memory (LoCoMo dev, the example golden set) the
    # vector leg, scored by its best passage window, is the sharper of the two; XQuAD
    # moves within 0.003 (docs/quality.md, rows "weights 0.6/0.4").
    vector_weight: float = 0.75
    text_weight: float = 0.25
    min_score: float = 0.0
    max_results: int = 10
    candidate_multiplier: int = 4
    # Decay is off by default: on examples/golden.jsonl it cut nDCG@10 from 0.69 to
    # 0.41 (half-life 60), because many questions are about history; on LoCoMo dev a
    # 30-day half-life cut it from 0.776 to 0.149. MMR stays on at a gentle lambda: it keeps
    # near-duplicate notes from filling the results, at a measured cost of
    # -0.0005..+0.0001 nDCG@10 on the BEIR dev sets and -0.014 on the golden set,
    # whose duplicates are all labelled relevant (docs/quality.md).
    decay: bool = False
    half_life_days: int = 90
    mmr: bool = True
    mmr_lambda: float = 0.85
    # Recency instead (memdesk profile only, ranking.py): a bounded bonus, only for
    # queries that ask for the current state. Measured (docs/quality.md): golden set
    # 0.708 -> 0.742 nDCG@10 with it, LoCoMo dev 0.795 -> 0.793 (within noise).
    # Half-life 90 days was best for it on the golden set (30: 0.72, 180: 0.72).
    recency: bool = True
    recency_weight: float = 0.1
    # Notes dated in a period the query names: LoCoMo dev 0.776 -> 0.796.
    date_boost: float = 0.1
    # memdesk profile (ranking.py): taken off every chunk of a note below that note's
    # best-scored chunk, so a second look into one note ranks after a near-tie from
    # another note. Chunks of a note overlap and share its subject; a reader sent to the
    # note already sees the rest. Measured: LoCoMo dev +0.0035 nDCG@10 (docs/quality.md).
    # Not a slider: an evaluation switch (0 turns it off).
    same_note_penalty: float = 0.02

    def __post_init__(self) -> None:
        # Aliases resolve once, here, so every comparison sees the real profile.
        object.__setattr__(self, "profile", canonical_profile(self.profile))

    @classmethod
    def defaults(cls, profile: Profile = MEMDESK) -> SearchSettings:
        """Defaults of a profile (``RankingProfile.defaults`` over these fields' own,
        which are memdesk's): OpenClaw profiles carry that release's defaults, and a
        release's constants too (2026.9), so the GUI shows them."""
        p = profiles.get(profile)
        return cls(profile=p.name, **p.defaults)

    @classmethod
    def from_overrides(cls, data: Mapping[str, Any]) -> SearchSettings:
        """A profile's defaults with the given values on top (saved preferences, CLI flags).

        ``data["profile"]`` picks the profile (missing or unknown: memdesk); unknown
        keys and None values are ignored; values of the wrong type give the profile's
        defaults. The one way settings are built from a dict of changes.
        """
        profile = str(data.get("profile") or MEMDESK)
        base = cls.defaults(profile if profile in profiles.BY_NAME else MEMDESK)
        names = {f.name for f in dataclasses.fields(cls)}
        known = {k: v for k, v in data.items() if k != "profile" and v is not None and k in names}
        try:
            return base.replace(**known)
        except (TypeError, ValueError):
            return base

    def replace(self, **changes: Any) -> SearchSettings:
        return dataclasses.replace(self, **changes).clamped()

    def clamped(self) -> SearchSettings:
        """The same settings forced into ``FIELDS`` bounds (non-finite -> default)."""
        base = SearchSettings.defaults(self.profile)
        values: dict[str, Any] = {}
        for name, field in FIELDS.items():
            value = getattr(self, name)
            try:
                value = float(value)
            except (TypeError, ValueError, OverflowError):  # OverflowError: an int of 400 digits
                value = float(getattr(base, name))
            if not math.isfinite(value):
                value = float(getattr(base, name))
            value = min(field.maximum, max(field.minimum, value))
            values[name] = math.floor(value) if field.integer else value
        return dataclasses.replace(self, **values)

    @property
    def normalized_weights(self) -> tuple[float, float]:
        """(vector, text) weights summing to 1; both 0 falls back to the profile default."""
        vw, tw = max(0.0, self.vector_weight), max(0.0, self.text_weight)
        if vw + tw <= 0:
            d = SearchSettings.defaults(self.profile)
            vw, tw = d.vector_weight, d.text_weight
        return oc_config.normalize_weights(vw, tw)

    @property
    def candidate_pool_size(self) -> int:
        """Rows each leg fetches: OpenClaw's min(200, max(1, floor(maxResults * m)))."""
        return min(200, max(1, math.floor(self.max_results * self.candidate_multiplier)))

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def overrides(self) -> dict[str, Any]:
        """Only the values that differ from the profile's defaults (what gets saved)."""
        base = SearchSettings.defaults(self.profile)
        return {k: v for k, v in self.to_json().items() if getattr(base, k) != v or k == "profile"}

    def openclaw_config(self) -> dict[str, Any]:
        """The ``agents.defaults.memorySearch`` JSON that reproduces these settings in OpenClaw."""
        vw, tw = self.normalized_weights
        return {
            "query": {
                "maxResults": self.max_results,
                "minScore": round(self.min_score, 4),
                "hybrid": {
                    "enabled": True,
                    "vectorWeight": round(vw, 4),
                    "textWeight": round(tw, 4),
                    "candidateMultiplier": self.candidate_multiplier,
                    "mmr": {"enabled": self.mmr, "lambda": round(self.mmr_lambda, 4)},
                    "temporalDecay": {"enabled": self.decay, "halfLifeDays": self.half_life_days},
                },
            }
        }
