"""Plain-text rendering of an evaluation report."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

log = logging.getLogger(__name__)


def format_table(report: Mapping[str, Any]) -> str:
    lines = [
        f"{report['dataset']} ({report['split']}, {report['queries']} queries, "
        f"indexed in {report['index_seconds']}s)",
        f"{'profile':<9} {'mode':<11} {'nDCG@10':>8} {'R@5':>7} {'R@10':>7} {'R@100':>7} "
        f"{'MRR@10':>7} {'p50 ms':>7} {'p95 ms':>7}",
    ]
    for r in report["results"]:
        lines.append(
            f"{r['profile']:<9} {r['mode']:<11} {r['ndcg@10']:>8.4f} {r['recall@5']:>7.4f} "
            f"{r['recall@10']:>7.4f} {r['recall@100']:>7.4f} {r['mrr@10']:>7.4f} "
            f"{r['latency_ms_p50']:>7.1f} {r['latency_ms_p95']:>7.1f}"
        )
        for name, c in r.get("by_category", {}).items():
            label = f"  {name} ({c['queries']})"
            lines.append(
                f"{label:<21} {c['ndcg@10']:>8.4f} {c['recall@5']:>7.4f} {c['recall@10']:>7.4f} "
                f"{c['recall@100']:>7.4f} {c['mrr@10']:>7.4f}"
            )
    return "\n".join(lines)
