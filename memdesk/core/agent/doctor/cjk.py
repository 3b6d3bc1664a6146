"""The ``cjk_keyword_only`` check: a mostly CJK workspace searched by keyword with ``unicode61``."""

from __future__ import annotations

import re

from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

from ..config import AgentSearch
from .findings import DoctorReport, Finding

_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# "Mostly": more CJK characters than other letters and digits. unicode61 makes each run
# of CJK one token, so a question finds a note only when it repeats a whole run.
CJK_SHARE = 0.5


def cjk_share(texts: dict[str, str]) -> float:
    """CJK characters among all letters and digits of the notes."""
    cjk = letters = 0
    for text in texts.values():
        cjk += len(_CJK.findall(text))
        letters += sum(1 for ch in text if ch.isalnum())
    return cjk / letters if letters else 0.0


def _check_cjk_keyword_only(report: DoctorReport, search: AgentSearch, texts: dict[str, str]) -> None:
    if search.provider != "none" or search.fts_tokenizer != "unicode61":
        return
    share = cjk_share(texts)
    if share <= CJK_SHARE:
        return
    report.add(
        Finding(
            "warning",
            "cjk_keyword_only",
            msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "{percent}% of your notes' text is Chinese, Japanese or Korean, and your agent searches "
                    "by keyword only (no embedding provider) with the unicode61 tokenizer, which makes each "
                    "run of such text one word: most questions asked in Chinese find nothing",
                ),
                percent=round(share * 100),
            ),
            fix=msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    'set the keyword tokenizer to trigram (store.fts.tokenizer: "trigram"; Apply to '
                    'OpenClaw… writes it) or give the agent an embedding model (provider: "local")',
                )
            ),
            config_change={"fts_tokenizer": "trigram"},
        )
    )
