"""Qt-glue tests run against the installed binding; work around its known bugs first."""

from __future__ import annotations

from memdesk.qt import compat

compat.apply_refcount_workaround()
