"""memdesk on a real X server: Xvfb with Qt's xcb platform, not the offscreen one.

The app runs as a user starts it (``python -m memdesk gui`` in its own process), opens
a copy of the example workspace, waits for a query's results and saves a screenshot
grabbed from the X display, then exits by itself.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

QUERY = "鉴权 token 怎么处理"


@pytest.fixture(scope="session")
def xvfb_display() -> Iterator[str]:
    """A private Xvfb server; Xvfb picks a free display number and reports it (-displayfd)."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.fail("Xvfb is not installed: apt-get install xvfb (scripts/test.sh does, as root)")
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], 30)
        number = os.read(read_fd, 32).decode().strip() if ready else ""
        if not number:
            pytest.fail("Xvfb did not start within 30 s")
        yield f":{number}"
    finally:
        os.close(read_fd)
        server.terminate()
        server.wait(timeout=30)


def distinct_colours(image: QImage, step: int = 4) -> int:
    return len(
        {image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)}
    )


def test_gui_opens_on_xvfb_shows_results_and_exits_cleanly(
    xvfb_display: str, example_workspace: Path, e5_path: Path, memdesk_home: Path, tmp_path: Path
) -> None:
    """The window appears on the X display with the query's hits, and the app quits cleanly."""
    shot = tmp_path / "xcb.png"
    env = dict(os.environ, DISPLAY=xvfb_display, QT_QPA_PLATFORM="xcb", MEMDESK_HOME=str(memdesk_home))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "memdesk",
            "-v",  # the log on stderr says which Qt platform the app runs on
            "gui",
            "--workspace",
            str(example_workspace),
            "--model",
            str(e5_path),
            "--query",
            QUERY,
            "--screenshot",
            str(shot),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr
    assert "platform xcb" in run.stderr
    for sign_of_trouble in ("QThread: Destroyed", "Traceback", "Aborted", "could not connect"):
        assert sign_of_trouble not in run.stderr
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1280, 800)
    assert distinct_colours(image) > 50, "the screenshot of the X display is blank"


def test_no_x_server_is_one_clear_line(example_workspace: Path, memdesk_home: Path) -> None:
    """With DISPLAY pointing at no server, memdesk says so in one line instead of Qt's abort."""
    env = dict(os.environ, DISPLAY=":65000", QT_QPA_PLATFORM="xcb", MEMDESK_HOME=str(memdesk_home))
    run = subprocess.run(
        [sys.executable, "-m", "memdesk", "gui", "--workspace", str(example_workspace), "--model", "none"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert lines == ["memdesk: cannot reach the X display :65000: no X server is listening there"]
