"""The floor that index, search, agent and the OpenClaw port all stand on.

``sqlite`` (the one door to SQLite: connections and errors), ``lexical`` (memdesk's
CJK-aware keyword text, written by the indexer and read by the search) and ``modes``
(the search modes both ask for). Nothing here imports another core package; only
``errors``, ``messages`` and ``paths`` lie below it (``pyproject.toml`` states the order).
"""
