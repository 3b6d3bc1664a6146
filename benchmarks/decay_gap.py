"""How often the app's decay line shows on LoCoMo dev, and whether it names the answer.

For each question of the given conversations, at the workspace's clock (its newest dated
note): openclaw-2026.9's ranking (its 30-day decay and 0.35 minimum score, always on)
beside memdesk's defaults, and the notes ``Engine.decay_gap`` says the agent's decay hides.
Counts the questions with a decay line and those whose labelled answer note is among the
hidden ones. Prints one JSON object.

    python benchmarks/decay_gap.py conv-26 conv-30 [--eval-dir ../shared/eval]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memdesk.core import engine
from memdesk.core.eval import golden as eval_golden
from memdesk.core.search.settings import SearchSettings

AGENT = SearchSettings.defaults("openclaw-2026.9")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("conversations", nargs="+")
    parser.add_argument(
        "--eval-dir", default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "eval")
    )
    args = parser.parse_args()
    questions = shown = answer_hidden = hidden_notes = 0
    for conv in args.conversations:
        root = Path(args.eval_dir) / "locomo" / conv
        eng = engine.Engine.open(root / "workspace")
        try:
            for item in eval_golden.load_golden(root / "golden.jsonl"):
                agent = eng.search(item.query, AGENT)
                gap = eng.decay_gap(agent.pool, AGENT)
                questions += 1
                if gap is not None and gap.hidden:
                    shown += 1
                    hidden_notes += len(gap.hidden)
                    if {r.path for r in item.relevant} & set(gap.hidden):
                        answer_hidden += 1
        finally:
            eng.close()
    print(
        json.dumps(
            {
                "conversations": args.conversations,
                "questions": questions,
                "decay_line_shown": shown,
                "answer_among_hidden": answer_hidden,
                "mean_hidden_notes": round(hidden_notes / shown, 2) if shown else 0.0,
            }
        )
    )


if __name__ == "__main__":
    main()
