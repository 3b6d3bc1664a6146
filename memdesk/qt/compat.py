"""Workarounds for bugs in the Qt binding, each with the versions it applies to."""

from __future__ import annotations

import ctypes
import logging
import sys

import PySide6

log = logging.getLogger(__name__)

# PySide6/shiboken6 6.12.0 drops one reference to None on every call of a void method
# (``setText``...) and to True/False on ``Signal.emit``'s return value. A GUI makes
# such calls all the time, so on Python < 3.12 (where None/True/False are not yet
# immortal) the count reaches zero and the interpreter aborts ("none_dealloc" /
# "bool_dealloc"), at the latest while finalizing. 6.11.3 is not affected.
_AFFECTED_PYSIDE = ("6.12.0",)
_HEADROOM = 1 << 40


def apply_refcount_workaround() -> bool:
    """WORKAROUND: give None/True/False references that are never released.

    Adding to ``ob_refcnt`` directly (it is the first field of every CPython object)
    is the exact inverse of the binding's missing increments; it only ever keeps these
    three singletons alive, which they are anyway. Returns True when applied.
    """
    if PySide6.__version__ not in _AFFECTED_PYSIDE or sys.version_info >= (3, 12):
        return False
    if sys.implementation.name != "cpython":
        return False
    for obj in (None, True, False):
        refcount = ctypes.c_ssize_t.from_address(id(obj))
        if refcount.value < _HEADROOM // 2:
            refcount.value += _HEADROOM
    log.debug("applied the PySide6 %s refcount workaround", PySide6.__version__)
    return True
