"""Cyclic garbage is collected on the GUI thread, never on a worker thread mid-work."""

from __future__ import annotations

import gc
import threading
from typing import ClassVar

from memdesk.qt import collector


class _Cycle:
    """Part of a reference cycle; records the thread that finally frees it."""

    freed_on: ClassVar[list[str]] = []

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        _Cycle.freed_on.append(threading.current_thread().name)


def test_cycles_made_on_a_worker_are_freed_on_the_gui_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    installed = collector.install()
    assert installed is not None and collector.install() is installed  # once per app
    assert not gc.isenabled()
    _Cycle.freed_on.clear()
    old = gc.get_threshold()
    gc.set_threshold(10, 10, 10)
    try:

        def work() -> None:
            for _ in range(200):
                _Cycle()
                # Allocations far past the threshold: the automatic collector would
                # have run here, on this thread, many times over.
                [[] for _ in range(50)]

        worker = threading.Thread(target=work, name="memdesk-test-worker")
        worker.start()
        worker.join()
        assert _Cycle.freed_on == []  # nothing collected on the worker
        qtbot.waitUntil(lambda: len(_Cycle.freed_on) == 200, timeout=5_000)
        assert set(_Cycle.freed_on) == {threading.main_thread().name}
    finally:
        gc.set_threshold(*old)
