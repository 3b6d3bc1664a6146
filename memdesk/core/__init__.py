"""Qt-free core, one package per stage of the data flow.

``index`` (workspace files → chunks → store), ``embed`` (text → vectors),
``search`` (query → candidate pool → ranked hits), ``eval`` (quality of a ranking),
``openclaw`` (the exact port of OpenClaw's functions), ``base`` (the floor index and
search share: the SQLite door, lexical text); ``engine`` ties them together. Their
order (who may import whom) is import-linter's "core's floors" contract in
``pyproject.toml``. See ``docs/architecture.md``. Nothing in this package may import PySide6
(enforced by ``tests/test_architecture.py`` and import-linter).
"""
