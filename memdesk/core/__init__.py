"""Qt-free core, one package per stage of the data flow.

``index`` (workspace files → chunks → store), ``embed`` (text → vectors),
``search`` (query → candidate pool → ranked hits), ``eval`` (quality of a ranking),
``openclaw`` (the exact port of OpenClaw's functions); ``engine`` ties them together.
See ``docs/architecture.md``. Nothing in this package may import PySide6
(enforced by ``tests/test_architecture.py`` and import-linter).
"""
