"""A deterministic second workspace for the OpenClaw parity recordings.

It exercises what the example workspace does not: Chinese notes, dated notes in
sub-folders and with suffixed names (``memory/2026-10/2026-10-05.md``,
``memory/daily/2026-11-20-standup.md``), ``<!-- importance: N -->`` /
``<!-- project: ... -->`` / ``<!-- trigger: ... -->`` annotations, and
near-duplicate notes. Every chunk stays well under 512 model tokens (short
lines, short CJK files), so OpenClaw's local embedder can index it and hybrid
results can be compared. Nothing here is random: the same call always writes
the same bytes.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

PEOPLE = ["Lin Wei", "Jonas Becker", "Chen Yuqing", "Mara Okafor", "Zhou Hang", "Ana Ruiz"]
TOPICS = [
    ("deploy", "the deploy window moved to Wednesday morning", "发布窗口改到周三上午"),
    ("vector", "the vector store stays on SQLite with sqlite-vec", "向量库继续使用 SQLite 和 sqlite-vec"),
    ("auth", "API auth moves from static keys to OAuth", "API 鉴权从静态密钥改为 OAuth"),
    ("oncall", "the on-call rota rotates every Monday", "值班表每周一轮换"),
    ("budget", "the GPU budget for evals is capped at 400 USD a month", "评测的 GPU 预算每月上限 400 美元"),
    ("latency", "search latency p95 must stay under 80 ms", "检索延迟 p95 必须低于 80 毫秒"),
    ("backup", "nightly backups go to the Frankfurt bucket", "每晚备份存到法兰克福的存储桶"),
    ("release", "Atlas v1.0 ships in the first week of December", "Atlas v1.0 在十二月第一周发布"),
]

MEMORY_MD = """# MEMORY.md

Long-term facts for the Tidewater agent. Evergreen.

## People

- Lin Wei (林蔚) manages engineering and prefers summaries in Chinese. <!-- importance: 9 -->
- Jonas Becker leads Atlas and works Monday to Thursday. <!-- importance: 7 -->
- Chen Yuqing (陈雨晴) owns the Harbor UI and the design system.
- Zhou Hang (周航) owns the on-call rota since June. <!-- importance: 3 -->
- Mara Okafor owns the roadmap and the Northwind pilot. <!-- importance: 10 -->

## Decisions

- Vector store: SQLite with sqlite-vec, local-first, final since November. <!-- importance: 8 -->
- API auth: OAuth 2.0 for all new endpoints; static keys retire in January. <!-- project: atlas -->
- Deploys happen on Wednesdays before 14:00 Berlin, never on Fridays. <!-- importance: 6 -->
- Eval dashboards live in Harbor; nightly runs at 02:00 UTC. <!-- project: harbor -->
- Backups: nightly to the Frankfurt bucket, kept for 35 days. <!-- importance: 2 -->
- 检索延迟目标：p95 低于 80 毫秒。 <!-- importance: 8 -->
- 发布节奏：每周三上午发布，周五不发布。 <!-- project: atlas -->

## Preferences

- Write dates as YYYY-MM-DD; use UTC in logs. <!-- trigger: date format, timezone -->
- Keep status updates under ten lines. <!-- importance: 5 -->
"""

USER_MD = """# USER.md

- The user is Lin Wei; reply in Chinese unless asked otherwise. <!-- importance: 9 -->
- 喜欢简短的要点列表。
"""

PROJECT_NOTES = {
    "memory/projects/atlas.md": """# Atlas
<!-- project: atlas -->

Atlas is the memory and retrieval service.
- Owner: Jonas Becker.
- Storage: SQLite with sqlite-vec.
- Auth: OAuth 2.0 with PKCE for the desktop client.
- Target: v1.0 in the first week of December.
""",
    "memory/projects/harbor.md": """# Harbor
<!-- project: harbor -->

Harbor is the eval harness: golden sets and regression dashboards.
- Owner: Chen Yuqing.
- Nightly eval runs at 02:00 UTC.
- The GPU budget for evals is capped at 400 USD a month.
""",
    "memory/projects/ferry.md": """# Ferry
<!-- project: ferry; atlas -->

Ferry imports chat exports into Atlas. Low priority.
- Formats: Slack JSON, Feishu export.
""",
    "memory/topics/检索.md": """# 检索方案

- 向量检索使用 SQLite 和 sqlite-vec。
- 关键词检索使用 FTS5。
- 混合检索：向量权重 0.7，关键词权重 0.3。
- 延迟目标：p95 低于 80 毫秒。
""",
    "memory/topics/鉴权.md": """# 鉴权

- API 鉴权从静态密钥改为 OAuth 2.0。
- 桌面端使用 PKCE。
- 静态密钥一月停用。
""",
    "memory/topics/deploy-window.md": """# Deploy window

The deploy window is Wednesday morning, before 14:00 Berlin.
Never deploy on Fridays. Hotfixes need two approvals.
""",
    # A near-duplicate of the note above: MMR should keep only one near the top.
    "memory/topics/deploy-window-copy.md": """# Deploy window

The deploy window is Wednesday morning, before 14:00 Berlin.
Never deploy on Fridays. Hotfixes need two approvals from on-call.
""",
}


def _daily(date: dt.date, index: int) -> str:
    person = PEOPLE[index % len(PEOPLE)]
    key, english, chinese = TOPICS[index % len(TOPICS)]
    other = TOPICS[(index * 3 + 1) % len(TOPICS)]
    lines = [
        f"# {date.isoformat()}",
        "",
        f"- Standup with {person}: {english}.",
        f"- Follow-up on {other[0]}: {other[1]}.",
        f"- 备注：{chinese}。",
    ]
    if index % 4 == 0:
        lines.append(f"- Open question about {key} for next week. <!-- importance: {index % 10 + 1} -->")
    if index % 5 == 2:
        lines.append("- Action item for the Atlas team. <!-- project: atlas -->")
    return "\n".join(lines) + "\n"


def files() -> dict[str, str]:
    """Relative path -> content of every file in the generated workspace."""
    out: dict[str, str] = {"MEMORY.md": MEMORY_MD, "USER.md": USER_MD}
    out.update(PROJECT_NOTES)
    start = dt.date(2026, 9, 1)
    for i in range(36):
        date = start + dt.timedelta(days=i * 2 + (i % 3))
        if i % 3 == 0:
            rel = f"memory/{date.isoformat()}.md"  # strict daily note
        elif i % 3 == 1:
            rel = f"memory/{date:%Y-%m}/{date.isoformat()}.md"  # dated sub-folder
        else:
            rel = f"memory/daily/{date.isoformat()}-standup.md"  # suffixed name
        out[rel] = _daily(date, i)
    # Near-duplicate daily notes on consecutive days.
    out["memory/2026-11-20.md"] = (
        "# 2026-11-20\n\n- Decided: the vector store stays on SQLite with sqlite-vec.\n"
        "- 决定：向量库继续使用 SQLite。\n"
    )
    out["memory/2026-11-21.md"] = (
        "# 2026-11-21\n\n- Confirmed: the vector store stays on SQLite with sqlite-vec.\n"
        "- 确认：向量库继续使用 SQLite。\n"
    )
    return out


def write(dest: Path) -> list[str]:
    """Write the workspace under ``dest`` (created); returns the relative paths."""
    written = []
    for rel, text in sorted(files().items()):
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(rel)
    return written


if __name__ == "__main__":
    import sys

    for rel in write(Path(sys.argv[1])):
        print(rel)
