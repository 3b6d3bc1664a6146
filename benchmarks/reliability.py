"""Replay the adversarial reliability cases and count what goes wrong.

Each category runs real files, the real SQLite index, the real CLI (subprocesses)
and the real Qt editor (offscreen), and counts cases tried, failures (a
traceback, a hang, a silent wrong answer) and data lost (bytes of a note or an
agent's line that did not survive). The last line printed is one JSON object:
``{"categories": {name: {"cases", "failures", "data_lost"}}, "totals": {...}}``.

    QT_QPA_PLATFORM=offscreen python benchmarks/reliability.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from memdesk.core import engine, errors
from memdesk.core.index import workspace
from memdesk.core.openclaw import chunking
from memdesk.core.openclaw import text as oc_text
from memdesk.core.search.settings import SearchSettings

EXAMPLE = REPO / "examples" / "workspace"
Counts = dict[str, int]


class Category:
    def __init__(self) -> None:
        self.cases = self.failures = self.data_lost = 0
        self.notes: list[str] = []

    def case(self, ok: bool, *, lost: int = 0, note: str = "") -> None:
        self.cases += 1
        self.failures += 0 if ok else 1
        self.data_lost += lost
        if not ok and note and len(self.notes) < 3:
            self.notes.append(note[:200])

    def run(self, fn: Callable[[], tuple[bool, int]], note: str = "") -> None:
        try:
            ok, lost = fn()
        except Exception as exc:  # a traceback where one line was due is a failure
            ok, lost, note = False, 0, f"{note}: {type(exc).__name__}: {exc}"
        self.case(ok, lost=lost, note=note)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"cases": self.cases, "failures": self.failures, "data_lost": self.data_lost}
        if self.notes:
            out["examples"] = self.notes
        return out


def digest_tree(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as handle:
                    out[path] = hashlib.sha256(handle.read()).hexdigest()
    return out


def lost_files(before: dict[str, str], root: Path) -> int:
    after = digest_tree(root)
    return sum(1 for path, digest in before.items() if after.get(path) != digest)


def cli(*args: str, home: Path, timeout: int = 300) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, MEMDESK_HOME=str(home), PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "memdesk", *args], capture_output=True, env=env, timeout=timeout, check=False
    )


def one_line_error(out: subprocess.CompletedProcess[bytes]) -> bool:
    err = out.stderr.decode("utf-8", "replace").strip().splitlines()
    return out.returncode == 1 and len(err) == 1 and err[0].startswith("memdesk: error:")


def fresh_workspace(base: Path, name: str = "ws") -> Path:
    root = base / name
    shutil.copytree(EXAMPLE, root)
    return root


# -- categories ------------------------------------------------------------------------------
def hostile_names(tmp: Path, n: int) -> Category:
    cat = Category()
    rng = random.Random(1)
    for i in range(n):
        root = tmp / f"names-{i}"
        (root / "memory").mkdir(parents=True)
        (root / "MEMORY.md").write_text("# Memory\n\nquokka\n")
        raw = bytes(rng.choice([b for b in range(1, 256) if b != 0x2F]) for _ in range(rng.randint(1, 30)))
        with open(os.path.join(os.fsencode(root / "memory"), raw + b".md"), "wb") as handle:
            handle.write(b"quokka too\n")
        before = digest_tree(root)

        def check(root: Path = root, raw: bytes = raw, before: dict[str, str] = before) -> tuple[bool, int]:
            eng = engine.Engine.open(root, model=None, db_path=root.parent / f"{root.name}.sqlite")
            try:
                report = eng.sync()
                status = eng.status()
            finally:
                eng.close()
            try:
                raw.decode("utf-8")
                expected = 2
            except UnicodeDecodeError:
                expected = 1
            listed = expected == 2 or any("UTF-8" in s.reason for s in status.skipped)
            return report.files == expected and listed, lost_files(before, root)

        cat.run(check, note=repr(raw))
    return cat


def chunk_cut_emoji(tmp: Path) -> Category:
    cat = Category()
    root = tmp / "emoji"
    (root / "memory").mkdir(parents=True)
    for cut in (1600, 3200):
        for shift in range(-4, 4):
            for emoji in ("🎉", "𠀋", "🇩🇪"):
                text = "x" * (cut + shift) + emoji + " tail\n"
                (root / "memory" / "e.md").write_text(text)

                def check(text: str = text) -> tuple[bool, int]:
                    eng = engine.Engine.open(root, model=None, db_path=tmp / "emoji.sqlite")
                    try:
                        report = eng.sync()
                        rows = eng._index.reader().conn.execute(
                            "SELECT text, hash FROM chunks ORDER BY start_line, rid"
                        )
                        stored = [(str(t), str(h)) for t, h in rows]
                    finally:
                        eng.close()
                    want = chunking.filter_non_empty_chunks(chunking.chunk_markdown(text))
                    ok = not report.failures and [h for _, h in stored] == [c.hash for c in want]
                    return ok and all(oc_text.is_well_formed(t) for t, _ in stored), 0

                cat.run(check, note=f"cut {cut}{shift:+d} {emoji}")
    return cat


def _damage(db: Path, seed: int) -> None:
    rng = random.Random(seed)
    pages = db.stat().st_size // 4096
    with open(db, "r+b") as handle:
        for page in rng.sample(range(2, pages), min(6, pages - 2)):
            handle.seek(page * 4096)
            handle.write(rng.randbytes(4096))


def index_damage(tmp: Path, trials: int) -> Category:
    cat = Category()
    root = fresh_workspace(tmp, "damage")
    before = digest_tree(root)
    query = "which database did we choose for Atlas"
    for trial in range(trials + 2):
        db = tmp / f"damage-{trial}.sqlite"

        def check(trial: int = trial, db: Path = db) -> tuple[bool, int]:
            eng = engine.Engine.open(root, model=None, db_path=db)
            eng.sync()
            eng.close()
            import apsw

            if trial == trials:  # a dropped table
                conn = apsw.Connection(str(db))
                conn.execute("DROP TABLE chunks")
                conn.close()
            elif trial == trials + 1:  # an unreadable model record
                conn = apsw.Connection(str(db))
                conn.execute("UPDATE meta SET value = '{garbage'")
                conn.close()
            else:
                _damage(db, trial)
            eng = engine.Engine.open(root, model=None, db_path=db)
            try:
                try:
                    hits = eng.search(query, SearchSettings()).hits
                    silent_empty = not hits
                except errors.IndexCorrupt:
                    silent_empty = False
                eng.sync(verify=True)
                repaired = bool(eng.search(query, SearchSettings()).hits)
                healthy = eng.status(verify=True).damage is None
            finally:
                eng.close()
            return (not silent_empty) and repaired and healthy, lost_files(before, root)

        cat.run(check, note=f"trial {trial}")
    return cat


def qt_app() -> object:
    from PySide6.QtWidgets import QApplication

    from memdesk.qt import compat

    compat.apply_refcount_workaround()
    return QApplication.instance() or QApplication([])


def _editor(root: Path) -> object:
    from memdesk.ui import editor

    widget = editor.NoteEditor(root)
    widget.resize(800, 600)
    return widget


def _replace_line(widget: object, number: int, text: str) -> None:
    from PySide6.QtGui import QTextCursor

    block = widget.text_edit.document().findBlockByNumber(number)  # type: ignore[attr-defined]
    cursor = QTextCursor(block)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
    cursor.insertText(text)


BASE = "".join(f"line {i}\n" for i in range(12))
REL = "memory/2026-06-01.md"


def saves_over_undecodable(tmp: Path) -> Category:
    cat = Category()
    changes = {
        "latin-1": b"caf\xe9\n",
        "nul": b"a \x00 b\n",
        "utf-16": "now UTF-16\n".encode("utf-16"),
        "11MB": b"log line\n" * 1_300_000,
    }
    for name, change in changes.items():
        root = tmp / f"undecodable-{name}"
        (root / "memory").mkdir(parents=True)
        path = root / REL
        path.write_text(BASE)

        def check(path: Path = path, change: bytes = change, root: Path = root) -> tuple[bool, int]:
            widget = _editor(root)
            widget.open_note(REL)  # type: ignore[attr-defined]
            _replace_line(widget, 2, "user edit")
            path.write_bytes(change)
            saved = widget.save()  # type: ignore[attr-defined]
            kept = path.read_bytes() == change
            widget.deleteLater()  # type: ignore[attr-defined]
            return not saved and kept, 0 if kept else 1

        cat.run(check, note=name)
    return cat


def save_race(tmp: Path, trials: int) -> Category:
    cat = Category()
    root = tmp / "race"
    (root / "memory").mkdir(parents=True)
    path = root / REL
    widget = _editor(root)
    rng = random.Random(9)
    for trial in range(trials):
        widget.close_note(REL)  # type: ignore[attr-defined]
        path.write_text(BASE)
        widget.open_note(REL)  # type: ignore[attr-defined]
        edit = f"line 3 edited in trial {trial}"
        _replace_line(widget, 3, edit)
        agent = f"agent line {trial}\n"
        delay = rng.uniform(0, 0.004)

        def append(agent: str = agent, delay: float = delay) -> None:
            time.sleep(delay)
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(agent)

        def check(
            agent: str = agent, edit: str = edit, append: Callable[[], None] = append
        ) -> tuple[bool, int]:
            writer = threading.Thread(target=append)
            writer.start()
            saved = widget.save()  # type: ignore[attr-defined]
            writer.join()
            if not saved:
                dialog = widget.open_dialog(REL)  # type: ignore[attr-defined]
                dialog.default_button.click()
                widget.save()  # type: ignore[attr-defined]
            disk = path.read_text(encoding="utf-8")
            lost = (agent not in disk) + (edit not in disk)
            return lost == 0, lost

        cat.run(check, note=f"trial {trial}")
    return cat


def byte_preserving(tmp: Path, n: int) -> Category:
    cat = Category()
    rng = random.Random(5)
    seps = ["\n", "\r\n", "\r", "\u2028", "\u2029"]
    chars = ["a", "b", " ", "\u00a0", "é", "🎉", "\t"]
    root = tmp / "bytes"
    (root / "memory").mkdir(parents=True)
    path = root / REL
    for i in range(n):
        lines = [
            ("".join(rng.choices(chars, k=rng.randint(1, 5))), rng.choice(seps))
            for _ in range(rng.randint(2, 6))
        ]
        k = rng.randrange(len(lines))
        bom = "\ufeff" if i % 3 == 0 else ""
        original = bom + "".join(c + s for c, s in lines)
        expected = bom + "".join(("EDITED" if j == k else c) + s for j, (c, s) in enumerate(lines))
        path.write_text(original, encoding="utf-8", newline="")

        def check(expected: str = expected, k: int = k) -> tuple[bool, int]:
            widget = _editor(root)
            widget.open_note(REL)  # type: ignore[attr-defined]
            _replace_line(widget, k, "EDITED")
            widget.save()  # type: ignore[attr-defined]
            widget.deleteLater()  # type: ignore[attr-defined]
            ok = path.read_bytes() == expected.encode("utf-8")
            return ok, 0 if ok else 1

        cat.run(check, note=repr(original))
    return cat


def _with_rescue(path: Path, fn: Callable[[], bool]) -> tuple[bool, int]:
    done, rescued = threading.Event(), threading.Event()

    def rescue() -> None:
        if not done.wait(10):
            rescued.set()
            for _ in range(3):
                with open(path, "wb"):
                    pass

    threading.Thread(target=rescue, daemon=True).start()
    try:
        ok = fn()
    finally:
        done.set()
    return ok and not rescued.is_set(), 0


def fifo(tmp: Path) -> Category:
    cat = Category()
    root = fresh_workspace(tmp, "fifo")
    victim = root / "memory" / "2026-05-01.md"

    def swap(progress: engine.SyncProgress) -> None:
        if progress.phase == "scan" and victim.is_file():
            victim.unlink()
            os.mkfifo(victim)

    def index() -> bool:
        eng = engine.Engine.open(root, model=None, db_path=tmp / "fifo.sqlite")
        try:
            report = eng.sync(progress=swap)
        finally:
            eng.close()
        return any("FIFO" in f.reason for f in report.failures)

    cat.run(lambda: _with_rescue(victim, index), note="index")
    root2 = tmp / "fifo-editor"
    (root2 / "memory").mkdir(parents=True)
    note = root2 / REL
    note.write_text(BASE)

    def gui() -> bool:
        widget = _editor(root2)
        widget.open_note(REL)  # type: ignore[attr-defined]
        _replace_line(widget, 0, "unsaved")
        note.unlink()
        os.mkfifo(note)
        widget.on_files_changed([REL])  # type: ignore[attr-defined]
        asked = widget.open_dialog(REL) is not None  # type: ignore[attr-defined]
        widget.open_dialog(REL).reject()  # type: ignore[attr-defined]
        return asked and widget.save() is False  # type: ignore[attr-defined]

    cat.run(lambda: _with_rescue(note, gui), note="editor")
    return cat


def two_writers(tmp: Path, trials: int) -> Category:
    cat = Category()
    root = tmp / "writers"
    (root / "memory").mkdir(parents=True)
    rng = random.Random(0)
    words = ["alpha", "beta", "gamma", "delta", "atlas", "harbor", "deploy", "token", "database", "sqlite"]
    for i in range(1500):
        body = "\n".join(" ".join(rng.choices(words, k=12)) for _ in range(30))
        (root / "memory" / f"n{i:04d}.md").write_text(body)
    for trial in range(trials):
        home = tmp / f"writers-home-{trial}"

        def check(home: Path = home) -> tuple[bool, int]:
            env = dict(os.environ, MEMDESK_HOME=str(home), PYTHONPATH=str(REPO))
            cmd = [sys.executable, "-m", "memdesk", "index", "--workspace", str(root), "--model", "none"]
            procs = [
                subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
                for _ in range(2)
            ]
            for p in procs:
                p.communicate(timeout=600)
            return all(p.returncode == 0 for p in procs), 0

        cat.run(check, note=f"trial {trial}")
    return cat


def rebuild_swap(tmp: Path) -> Category:
    cat = Category()
    root = fresh_workspace(tmp, "swap")
    home = tmp / "swap-home"
    os.environ["MEMDESK_HOME"] = str(home)

    def check() -> tuple[bool, int]:
        gui = engine.Engine.open(root, model=None)
        try:
            gui.sync()
            cli("index", "--rebuild", "--workspace", str(root), "--model", "none", home=home)
            (root / "memory" / "2026-12-01.md").write_text("# 2026-12-01\n\nquokkaphone slipped\n")
            gui.sync(paths=["memory/2026-12-01.md"])
        finally:
            gui.close()
        other = engine.Engine.open(root, model=None)
        try:
            hits = other.search("quokkaphone", SearchSettings()).hits
        finally:
            other.close()
        return [h.path for h in hits] == ["memory/2026-12-01.md"], 0

    cat.run(check)
    return cat


def nan_model(tmp: Path, models: Path) -> Category:
    cat = Category()
    source = models / "all-MiniLM-L6-v2.gguf"
    if not source.exists():
        return cat  # no built model to break: nothing to replay
    import gguf
    import numpy as np

    broken = tmp / "nan.gguf"
    shutil.copy(source, broken)
    reader = gguf.GGUFReader(str(broken), "r+")
    tensor = next(t for t in reader.tensors if t.name == "token_embd.weight")
    tensor.data[...] = np.nan
    reader.data.flush()
    del reader
    root = fresh_workspace(tmp, "nan")

    def check() -> tuple[bool, int]:
        out = cli(
            "search",
            "Atlas database",
            "--workspace",
            str(root),
            "--model",
            str(broken),
            "--json",
            home=tmp / "nan-home",
        )
        return out.returncode == 0 and b'"mode": "fts"' in out.stdout and b"non-finite" in out.stderr, 0

    cat.run(check)
    return cat


def _mount(target: Path, size_kb: int, *, read_only: bool) -> bool:
    target.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        if read_only:
            target.chmod(0o555)
            return True
        return False
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(target)], check=False)
    if ok.returncode != 0:
        return False
    if read_only:
        subprocess.run(["mount", "-o", "remount,ro", str(target)], check=True)
    return True


def bad_data_dir(tmp: Path) -> Category:
    cat = Category()
    root = fresh_workspace(tmp, "baddir")
    before = digest_tree(root)
    for kind, size, ro in (("full", 160, False), ("read-only", 1024, True)):
        target = tmp / f"data-{kind}"
        if not _mount(target, size, read_only=ro):
            continue
        try:
            for command in ("index", "status", "search"):
                args = [command, "--workspace", str(root), "--model", "none"]
                if command == "search":
                    args.insert(1, "Atlas")

                def check(args: list[str] = args, target: Path = target) -> tuple[bool, int]:
                    out = cli(*args, home=target)
                    ok = one_line_error(out) or (args[0] == "status" and out.returncode == 0)
                    return ok, lost_files(before, root)

                cat.run(check, note=f"{kind} {command}")
        finally:
            if os.geteuid() == 0:
                subprocess.run(["umount", str(target)], check=False)
            else:
                target.chmod(0o755)
    return cat


def deep_nesting(tmp: Path) -> Category:
    cat = Category()
    root = tmp / "deep"
    (root / "memory").mkdir(parents=True)
    fd = os.open(root / "memory", os.O_RDONLY)
    for _ in range(1100):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    note = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(note, b"deepest quokka\n")
    os.close(note)
    os.close(fd)

    def check() -> tuple[bool, int]:
        eng = engine.Engine.open(root, model=None, db_path=tmp / "deep.sqlite")
        try:
            report = eng.sync()
            status = eng.status()
        finally:
            eng.close()
        return report.files == 1 and status.files == 1, 0

    cat.run(check)
    subprocess.run(["rm", "-rf", str(root)], check=False)  # iterative, unlike shutil.rmtree
    return cat


def skips_with_reasons(tmp: Path) -> Category:
    cat = Category()
    root = fresh_workspace(tmp, "skips")
    os.mkfifo(root / "memory" / "pipe.md")
    os.symlink(root / "MEMORY.md", root / "memory" / "link.md")
    (root / "memory" / "u16.md").write_bytes("# UTF-16\n".encode("utf-16"))
    (root / "memory" / "bin.md").write_bytes(b"\x7fELF\x00\x00")
    with open(os.path.join(os.fsencode(root / "memory"), b"bad-\xff.md"), "wb") as handle:
        handle.write(b"x\n")
    expected = {"memory/pipe.md", "memory/link.md", "memory/u16.md", "memory/bin.md", "memory/bad-\\xff.md"}
    eng = engine.Engine.open(root, model=None, db_path=tmp / "skips.sqlite")
    try:
        eng.sync()
        status = eng.status()
    finally:
        eng.close()
    listed = {f.path: f.reason for f in (*status.skipped, *status.failures)}
    for path in sorted(expected):
        reason = listed.get(path, "")
        ok = bool(reason) and (path.endswith("bin.md") or "binary" not in reason)
        cat.case(ok, note=f"{path}: {reason}")
    return cat


def leftovers(tmp: Path) -> Category:
    cat = Category()
    root = fresh_workspace(tmp, "leftovers")
    db = tmp / "leftovers.sqlite"
    eng = engine.Engine.open(root, model=None, db_path=db)
    eng.sync()
    eng.close()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    stale = db.with_name(f"{db.name}.tmp-{int(dead.stdout)}-dead0000")
    stale.write_bytes(b"x" * 65536)
    for n in range(3):
        db.with_name(f"{db.name}.corrupt-{n}").write_bytes(b"old")
    db.write_bytes(b"not a database" * 100)
    eng = engine.Engine.open(root, model=None, db_path=db)
    try:
        eng.sync()
        copy = eng.status().corrupt_copy
    finally:
        eng.close()
    cat.case(not stale.exists(), note="stale rebuild left behind")
    copies = list(db.parent.glob(db.name + ".corrupt-*"))
    cat.case(len(copies) == 1 and copy == str(copies[0]), note=f"{len(copies)} damaged copies")
    return cat


def output_hygiene(tmp: Path) -> Category:
    cat = Category()
    root = tmp / "hygiene"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("quokka \x1b]0;owned\x07 \x1b[2J\x1b[31mred\n")
    with open(os.path.join(os.fsencode(root / "memory"), b"bad-\xff.md"), "wb") as handle:
        handle.write(b"quokka\n")
    home = tmp / "hygiene-home"
    for args in (
        ("index",),
        ("search", "quokka"),
        ("status",),
        ("status", "--json"),
        ("index", "--json"),
        ("search", "quokka", "--json"),
    ):

        def check(args: tuple[str, ...] = args) -> tuple[bool, int]:
            out = cli(*args, "--workspace", str(root), "--model", "none", home=home)
            text = out.stdout.decode("utf-8")  # raises on invalid UTF-8
            if "--json" in args:
                json.loads(text)
            return out.returncode == 0 and not any(c in text for c in "\x1b\x07\x9b"), 0

        cat.run(check, note=" ".join(args))

    from memdesk.ui import editor

    def dialog_names() -> tuple[bool, int]:
        from PySide6.QtGui import QTextDocument

        dialog = editor.ConflictDialog(None, rel="memory/<b>x &amp; y.md", mine="a", theirs="b", conflicts=0)
        label = dialog.findChild(editor.QLabel, "conflictMessage")
        shown = QTextDocument()
        shown.setHtml(label.text())
        dialog.deleteLater()
        return "memory/<b>x &amp; y.md" in shown.toPlainText(), 0

    cat.run(dialog_names, note="conflict dialog")
    return cat


def preview_images(tmp: Path) -> Category:
    cat = Category()
    from PySide6.QtGui import QColor, QImage

    from memdesk.ui import editor, markdown_view

    for where in ("inside", "outside"):
        folder = tmp / "preview" / ("memory" if where == "inside" else "elsewhere")
        folder.mkdir(parents=True, exist_ok=True)
        png = folder / "red.png"
        image = QImage(64, 64, QImage.Format.Format_RGB32)
        image.fill(QColor(255, 0, 0))
        image.save(str(png))

        def check(png: Path = png) -> tuple[bool, int]:
            preview = editor.SafePreview()
            preview.resize(300, 300)
            preview.show()
            preview.show_markdown(markdown_view.make_renderer(), f"![red]({png})\n")
            shot = preview.grab().toImage()
            reds = sum(
                1
                for x in range(0, shot.width(), 4)
                for y in range(0, shot.height(), 4)
                if shot.pixelColor(x, y).red() > 200 and shot.pixelColor(x, y).green() < 60
            )
            preview.deleteLater()
            return reds == 0, 0

        cat.run(check, note=where)
    return cat


def read_only_note(tmp: Path) -> Category:
    cat = Category()
    root = tmp / "ro-note"
    (root / "memory").mkdir(parents=True)
    path = root / REL
    path.write_text(BASE)
    path.chmod(0o444)

    def check() -> tuple[bool, int]:
        widget = _editor(root)
        widget.open_note(REL)  # type: ignore[attr-defined]
        _replace_line(widget, 0, "edited")
        saved = widget.save()  # type: ignore[attr-defined]
        asked = widget.readonly_box is not None  # type: ignore[attr-defined]
        if asked:
            widget.readonly_box.reject()  # type: ignore[attr-defined]
        kept = path.read_text() == BASE
        return not saved and asked and kept, 0 if kept else 1

    cat.run(check)
    return cat


def _changed(before: dict[str, object], after: dict[str, object]) -> int:
    return sum(1 for k in set(before) | set(after) if before.get(k) != after.get(k))


def agent_state_untouched(tmp: Path) -> Category:
    """Every read path over the agent's state, its database in each journal mode, live
    and closed, and on a read-only bind mount: nothing under ~/.openclaw may change."""
    cat = Category()
    from tests.cli import test_agent_state_untouched as case

    variants = [("wal-live", "WAL", False), ("wal-closed", "WAL", False), ("rollback", "DELETE", False)]
    if _can_mount_readonly(tmp):
        variants += [("read-only-wal", "WAL", True), ("read-only-rollback", "DELETE", True)]
    for name, journal, readonly in variants:
        home = tmp / f"agent-{name}"
        home.mkdir()
        state = case.make_state(home, journal)
        writer = None
        if name == "wal-live":
            db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
            writer = subprocess.Popen(
                [sys.executable, "-c", case.WRITER, str(db), str(case.WAL_ONLY_UPDATE)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        try:
            for args in case.READ_PATHS:

                def check(
                    args: tuple[str, ...] = args,
                    state: Path = state,
                    home: Path = home,
                    name: str = name,
                    readonly: bool = readonly,
                ) -> tuple[bool, int]:
                    before = case.tree_state(state)
                    out = case.run(args, home, tmp / "home", readonly=state if readonly else None)
                    lost = _changed(before, case.tree_state(state))  # type: ignore[arg-type]
                    ok = out.returncode in (0, 2) and lost == 0
                    if not ok:  # say why in the category's examples
                        tail = (out.stderr.strip().splitlines() or [""])[-1][:120]
                        cat.notes.append(f"{name}: {' '.join(args)}: rc {out.returncode}, {tail}"[:200])
                    if ok and args[:2] == ("agent", "status"):
                        index = json.loads(out.stdout)["index"]
                        ok = bool(index["available"]) and (
                            name != "wal-live" or str(index["lastUpdate"]).startswith("2100")
                        )
                    return ok, lost

                cat.run(check, note=f"{name}: {' '.join(args)}")
        finally:
            if writer is not None:
                writer.communicate("", timeout=60)
    return cat


def _can_mount_readonly(tmp: Path) -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = tmp / "ro-probe"
    probe.mkdir(exist_ok=True)
    script = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && ! touch "$0/x" 2>/dev/null'
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script, str(probe)], check=False
    )
    return done.returncode == 0


def writes_confined(tmp: Path) -> Category:
    """Every write path aimed through a folder that is a symlink out of the workspace:
    one line of refusal, nothing written outside, nothing lost inside."""
    cat = Category()
    from memdesk.core.eval import golden
    from memdesk.core.index import notes, trash, workspace

    def setup(name: str) -> tuple[Path, Path]:
        root = fresh_workspace(tmp, f"confined-{name}")
        outside = tmp / f"outside-{name}"
        outside.mkdir()
        return root, outside

    def refused(fn: Callable[[], object]) -> bool:
        try:
            fn()
        except errors.PathNotAllowed as exc:
            return "\n" not in str(exc) and "symlink" in str(exc)
        return False

    def cli_new() -> tuple[bool, int]:
        root, outside = setup("new")
        (root / "memory" / "evil").symlink_to(outside, target_is_directory=True)
        before = digest_tree(root)
        out = cli("new", "x", "--folder", "memory/evil", "--workspace", str(root), home=tmp / "home")
        return one_line_error(out) and not list(outside.iterdir()), lost_files(before, root)

    def cli_today() -> tuple[bool, int]:
        root, outside = setup("today")
        shutil.move(str(root / "memory"), str(tmp / "today-memory"))
        (root / "memory").symlink_to(outside, target_is_directory=True)
        out = cli("today", "--workspace", str(root), home=tmp / "home")
        return one_line_error(out) and not list(outside.iterdir()), 0

    def rename() -> tuple[bool, int]:
        root, outside = setup("rename")
        (root / "memory" / "out").symlink_to(outside, target_is_directory=True)
        before = digest_tree(root)
        ok = refused(lambda: notes.rename_note(root, "memory/projects/atlas.md", "memory/out/atlas.md"))
        return ok and not list(outside.iterdir()), lost_files(before, root)

    def save() -> tuple[bool, int]:
        root, outside = setup("save")
        path = root / "memory" / "projects" / "atlas.md"
        data = path.read_bytes()
        shutil.move(str(root / "memory" / "projects"), str(outside / "projects"))
        (root / "memory" / "projects").symlink_to(outside / "projects", target_is_directory=True)
        ok = refused(
            lambda: workspace.save_note(
                path, b"edited", expected=workspace.sha256(data), base=data, root=root
            )
        )
        return ok and (outside / "projects" / "atlas.md").read_bytes() == data, 0

    def restore() -> tuple[bool, int]:
        root, outside = setup("restore")
        record = notes.delete_note(root, "memory/topics/cjk-search.md")
        shutil.rmtree(root / "memory" / "topics")
        (root / "memory" / "topics").symlink_to(outside, target_is_directory=True)
        ok = refused(lambda: trash.restore(record))
        return ok and not list(outside.iterdir()), 0

    def golden_set() -> tuple[bool, int]:
        root, outside = setup("golden")
        (root / ".memdesk").symlink_to(outside, target_is_directory=True)
        labels = golden.GoldenSet(root / golden.GOLDEN_REL, root)
        labels.load()
        ok = refused(lambda: labels.set_relevant("q", golden.Relevant("MEMORY.md", None, None), True))
        return ok and not list(outside.iterdir()), 0

    for name, fn in (
        ("new", cli_new),
        ("today", cli_today),
        ("rename", rename),
        ("save", save),
        ("restore", restore),
        ("golden", golden_set),
    ):
        cat.run(fn, note=name)
    return cat


def uri_characters(tmp: Path) -> Category:
    """State folders whose path holds SQLite URI characters: the agent's index and its
    sessions are still read (and left untouched)."""
    cat = Category()
    from tests.cli import test_agent_state_untouched as case

    for i, name in enumerate(("a#b?c%d", "x%41y", "q?mode=rw", "100%", "h#", "sp ace%20")):
        home = tmp / f"uri-{i}" / name
        home.mkdir(parents=True)
        state = case.make_state(home, "WAL" if i % 2 else "DELETE")

        def check(home: Path = home, state: Path = state) -> tuple[bool, int]:
            before = case.tree_state(state)
            status = case.run(("agent", "status", "--json"), home, tmp / "home")
            found = case.run(("agent", "sessions", "--query", "backup", "--json"), home, tmp / "home")
            lost = _changed(before, case.tree_state(state))  # type: ignore[arg-type]
            ok = (
                status.returncode == 0
                and json.loads(status.stdout)["index"]["available"]
                and found.returncode == 0
                and bool(json.loads(found.stdout)["results"])
            )
            return ok and lost == 0, lost

        cat.run(check, note=name)
    return cat


def permissions_umask_000(tmp: Path) -> Category:
    """Under umask 000 every file memdesk creates in its data dir is 0600 and every
    folder 0700 (the index, the OpenClaw vectors, the log, the preferences, models/),
    and a new note gets its neighbours' bits."""
    cat = Category()
    import logging

    import numpy as np

    from memdesk.core import paths as paths_mod
    from memdesk.core.index import notes, recipe_cache
    from memdesk.qt import logs, preferences

    data = tmp / "umask-home"
    root = fresh_workspace(tmp, "umask-ws")
    made: list[Path] = []

    def index() -> None:
        paths_mod.models_dir()
        eng = engine.Engine.open(root, model=None)
        eng.sync()
        vectors = recipe_cache.RecipeCache(recipe_cache.path_for(eng.db_path))
        vectors.put("k", {"h": ("v", np.ones(4, dtype=np.float32))}, keep=["h"])
        vectors.close()
        eng.close()

    def log() -> None:
        count = len(logging.getLogger().handlers)
        logs.setup_logging(data)
        logging.getLogger("memdesk.reliability").warning("a line")
        for handler in logging.getLogger().handlers[count:]:
            handler.close()
            logging.getLogger().removeHandler(handler)

    def prefs() -> None:
        kept = preferences.Preferences(data / "memdesk.ini")
        kept.remember_workspace(root)
        kept.sync()

    def note() -> None:
        rel = notes.new_note_path(root, "memory/projects", "Q1 budget ideas")  # type: ignore[attr-defined]
        made.append(notes.create_note(root, rel, "# Q1 budget ideas\n"))

    saved_home = os.environ["MEMDESK_HOME"]
    os.environ["MEMDESK_HOME"] = str(data)
    old = os.umask(0)
    try:
        for name, action in (("index", index), ("log", log), ("preferences", prefs), ("new note", note)):
            cat.run(lambda action=action: (action(), (True, 0))[1], note=name)  # type: ignore[misc]
    finally:
        os.umask(old)
        os.environ["MEMDESK_HOME"] = saved_home
    for dirpath, dirnames, filenames in os.walk(data):
        for entry in [*dirnames, *filenames]:
            path = Path(dirpath) / entry
            mode = stat.S_IMODE(path.lstat().st_mode)
            want = 0o700 if path.is_dir() else 0o600
            cat.case(mode == want, note=f"{path.relative_to(data)} {mode:o}")
    neighbour = stat.S_IMODE((root / "memory" / "projects" / "atlas.md").stat().st_mode)
    for path in made:
        cat.case(
            path.name == "q1-budget-ideas.md" and stat.S_IMODE(path.stat().st_mode) == neighbour,
            note=f"new note {path.name} {stat.S_IMODE(path.stat().st_mode):o}",
        )
    return cat


def _big_json5(*, rare: bool) -> str:
    """About a megabyte of JSON5 (comments, unquoted keys); with a hex number if ``rare``."""
    plugins = ",".join(f'"p{i:06d}": {{enabled: true, note: "n{i:06d}"}}' for i in range(22_000))
    return f"// big\n{{{'port: 0x1F, ' if rare else ''}plugins: {{entries: {{{plugins}}}}}}}"


def _hostile_configs(base: Path, *, quick: bool) -> list[tuple[str, Path, str]]:
    """(case, config file, what the one line must say) for each hostile openclaw.json."""
    cases: list[tuple[str, Path, str]] = []

    def config(name: str, body: bytes) -> Path:
        folder = base / name
        folder.mkdir(parents=True)
        (folder / "openclaw.json").write_bytes(body)
        return folder / "openclaw.json"

    cases.append(
        ("min_score_string", config("a", b'{memory: {search: {query: {minScore: "high"}}}}'), "minScore")
    )
    cases.append(
        ("max_results_list", config("b", b"{memory: {search: {query: {maxResults: [1]}}}}"), "maxResults")
    )
    cases.append(
        ("nested_5000", config("c", b'{"x": ' + b'{"a":' * 5000 + b"1" + b"}" * 5001), "levels deep")
    )
    fifo_dir = base / "d"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / "pipe.json5")
    (fifo_dir / "openclaw.json").write_text('{"memory": {"$include": "./pipe.json5"}}')
    cases.append(("include_fifo", fifo_dir / "openclaw.json", "FIFO"))
    cases.append(
        ("include_dev_zero", config("e", b'{"memory": {"$include": "/dev/zero"}}'), "character device")
    )
    (base / "f").mkdir()
    os.mkfifo(base / "f" / "openclaw.json")
    cases.append(("config_is_fifo", base / "f" / "openclaw.json", "FIFO"))
    (base / "g").mkdir()
    (base / "g" / "a.json").write_text('{"$include": "./b.json"}')
    (base / "g" / "b.json").write_text('{"$include": "./a.json"}')
    (base / "g" / "openclaw.json").write_text('{"x": {"$include": "./a.json"}}')
    cases.append(("include_cycle", base / "g" / "openclaw.json", "circle"))
    # A megabyte of JSON5 with a hex number: only the json5 package reads that (11-21 s a MB).
    cases.append(("rare_json5_1mb", config("h", _big_json5(rare=True).encode()), "json5 package"))
    for mb in (5,) if quick else (5, 50):
        path = config(f"size{mb}", b"")
        with path.open("wb") as handle:
            handle.write(b'{"pad": "' + b"x" * (mb * 1_000_000) + b'"}')
        cases.append((f"size_{mb}mb", path, "limit"))
    return cases


def hostile_config(tmp: Path, *, quick: bool) -> Category:
    """Each hostile openclaw.json: one line naming the file, exit 1, well within the guard
    (a hang or minutes of parsing is a failure); a Latin-1 byte is read as OpenClaw reads
    it (U+FFFD) with one warning line."""
    cat = Category()
    home = tmp / "hostile-config-home"
    base = tmp / "hostile-config"
    for name, path, needle in _hostile_configs(base, quick=quick):
        t0 = time.perf_counter()
        try:
            out = cli("agent", "status", "--config", str(path), home=home, timeout=60)
        except subprocess.TimeoutExpired:
            cat.case(False, note=f"{name}: hung")
            continue
        elapsed = time.perf_counter() - t0
        line = out.stderr.decode("utf-8", "replace").strip()
        ok = one_line_error(out) and str(path) in line and needle in line and elapsed < 10
        cat.case(ok, note=f"{name} ({elapsed:.1f}s): rc {out.returncode} {line[:150]}")
    # The same megabyte in everyday JSON5 is read, fast.
    big = base / "json5-1mb"
    big.mkdir()
    (big / "openclaw.json").write_text(_big_json5(rare=False))
    t0 = time.perf_counter()
    out = cli("agent", "status", "--config", str(big / "openclaw.json"), home=home, timeout=60)
    elapsed = time.perf_counter() - t0
    cat.case(out.returncode == 0 and elapsed < 10, note=f"json5_1mb ({elapsed:.1f}s): rc {out.returncode}")
    latin1 = base / "latin1"
    latin1.mkdir()
    (latin1 / "openclaw.json").write_bytes(
        b"{\n  // caf\xe9\n  memory: {search: {query: {maxResults: 4}}},\n}\n"
    )
    out = cli("agent", "status", "--config", str(latin1 / "openclaw.json"), "--json", home=home, timeout=60)
    warned = out.returncode == 0 and "not valid UTF-8 at byte 10" in out.stdout.decode("utf-8", "replace")
    cat.case(warned, note=f"latin1: rc {out.returncode} {out.stderr.decode('utf-8', 'replace')[:150]}")
    return cat


def same_size_rewrite(tmp: Path, trials: int) -> Category:
    """A note rewritten with the same byte count and its mtime put back (cp -p / touch -r in
    place, rsync -t by rename), or written twice at once: status must show it dirty and
    the next sync must make the new text findable (a miss is a silent wrong answer)."""
    cat = Category()
    root = tmp / "same-size"
    (root / "memory").mkdir(parents=True)
    note = root / "memory" / "2026-07-01.md"
    rng = random.Random(22)
    settings = SearchSettings.defaults("memdesk")
    eng = engine.Engine.open(root, model=None, db_path=tmp / "same-size.sqlite")

    def word() -> str:
        return "w" + "".join(rng.choice("bcdfghjklmnpqrstvz") for _ in range(9))

    def trial(style: str) -> tuple[bool, int]:
        old, new = word(), word()
        note.write_text(f"# Log\n\nThe token today is {old}.\n")
        eng.sync()
        st = note.stat()
        text = f"# Log\n\nThe token today is {new}.\n"
        if style == "in_place":  # cp -p, touch -r, a restore over the file
            note.write_text(text)
            os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
        elif style == "rename":  # rsync -t: a temporary file renamed over the note
            temp = note.with_name(".2026-07-01.md.tmp")
            temp.write_text(text)
            os.utime(temp, ns=(st.st_atime_ns, st.st_mtime_ns))
            os.replace(temp, note)
        else:  # written again at once, in the same timestamp tick where the clock is coarse
            note.write_text(text)
        same = (note.stat().st_mtime_ns, note.stat().st_size) == (st.st_mtime_ns, st.st_size)
        dirty = "memory/2026-07-01.md" in eng.status().dirty_files
        eng.sync()
        found = any(new in h.text for h in eng.search(new, settings).hits)
        gone = not any(old in h.text for h in eng.search(old, settings).hits)
        return (same or style == "again") and dirty and found and gone, 0

    try:
        for i in range(trials):
            style = ("in_place", "rename", "again")[i % 3]
            cat.run(lambda style=style: trial(style), note=style)  # type: ignore[misc]
    finally:
        eng.close()
    return cat


_CHILD_PRELUDE = """
import os, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # an endless read fails, not the machine
from pathlib import Path
from memdesk.core import errors
"""


def _child(code: str, *, home: Path, timeout: float = 30) -> tuple[bool, str]:
    """Run ``code`` in a fresh interpreter (memory capped, a timeout): the cases that
    hung or read /dev/zero without end cannot take the benchmark down with them."""
    env = dict(os.environ, MEMDESK_HOME=str(home), PYTHONPATH=str(REPO))
    try:
        out = subprocess.run(
            [sys.executable, "-c", _CHILD_PRELUDE + code],
            capture_output=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False, f"hung past {timeout:.0f} s"
    lines = out.stdout.decode("utf-8", "replace").strip().splitlines()
    last = lines[-1] if lines else ""
    if out.returncode != 0:
        err = out.stderr.decode("utf-8", "replace").strip().splitlines()
        return False, f"rc {out.returncode}: {err[-1] if err else ''}"
    return last.startswith("OK"), last


def hostile_workspace_settings(tmp: Path) -> Category:
    """The workspace's own settings (``.memdesk/tuned.json``) and golden set, hostile: every
    MCP search reads the first, the lab and ``memdesk eval`` the second. A search answers
    at once with the defaults; the set is one error naming the file; neither changes."""
    cat = Category()
    bodies: dict[str, bytes | None] = {
        "fifo": None,
        "dev_zero": None,
        "nested_100k": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
        "int_400_digits": b'{"profiles": {"memdesk": {"settings": {"max_results": 1' + b"0" * 400 + b"}}}}",
        "weight_400_digits": b'{"profiles": {"memdesk": {"settings": {"vector_weight": 9'
        + b"9" * 400
        + b"}}}}",
        "latin1": b'{"profile": "caf\xe9"}',
        "2mb": b'{"pad": "' + b"x" * 2_000_000 + b'"}',
        "wrong_types": b'{"profile": 5, "profiles": {"memdesk": {"settings": {"decay": [1], "max_results": "7"}}}}',
    }
    for which in ("tuned.json", "golden.jsonl"):
        for name, body in bodies.items():
            if which == "golden.jsonl" and name in ("int_400_digits", "weight_400_digits", "wrong_types"):
                continue
            root = fresh_workspace(tmp, f"settings-{which}-{name}")
            target = root / ".memdesk" / which
            target.parent.mkdir()
            if name == "fifo":
                os.mkfifo(target)
            elif name == "dev_zero":
                target.symlink_to("/dev/zero")
            else:
                target.write_bytes(body or b"")
            before = digest_tree(root)
            if which == "tuned.json":
                code = f"""
from memdesk.mcp.tools import MemoryTools
tools = MemoryTools(Path({str(root)!r}), model="none", sync_on_start=False)
tools.wait_for_sync(60)
t0 = time.monotonic()
hits = tools.memory_search("Atlas database")["results"]
tools.close()
print("OK" if hits and time.monotonic() - t0 < 10 else "slow or empty")
"""
            else:
                code = f"""
from memdesk.core.eval.golden import GoldenSet
labels = GoldenSet(Path({str(root)!r}) / ".memdesk" / "golden.jsonl")
try:
    labels.load()
    print("loaded")
except errors.EvalError as exc:
    print("OK" if "golden.jsonl" in str(exc) and "\\n" not in str(exc) and not labels.writable else str(exc))
"""

            def check(
                code: str = code, root: Path = root, before: dict[str, str] = before
            ) -> tuple[bool, int]:
                ok, why = _child(code, home=tmp / "settings-home")
                if not ok:
                    raise RuntimeError(why)
                return ok, lost_files(before, root)

            cat.run(check, note=f"{which} {name}")
    return cat


def hostile_mcp_arguments(tmp: Path) -> Category:
    """memory_get, memory_append and memory_search_as_of with paths and text no client
    should send (NUL, control characters, names past 255 bytes, lone surrogates, an empty
    or first day): each answers or is one line naming the problem (a MemdeskError, which
    the server returns as the tool's error), never a bare "Error executing tool"; no note
    becomes unreadable and nothing is written outside ``memory/``."""
    cat = Category()
    from memdesk.mcp.tools import MemoryTools

    root = fresh_workspace(tmp, "mcp-args")
    tools = MemoryTools(root, model=None, allow_write=True, sync_on_start=False)
    tools.engine()  # its data dir made: what changes outside the workspace after this is a stray write
    outside = sorted(os.listdir(tmp))
    calls: list[tuple[str, Callable[[], object]]] = []
    for path in (
        "memory/\x00.md",
        "MEMORY.md\x00.txt",
        "a" * 5000,
        "memory/" + "b" * 300 + ".md",
        "memory/\ud800.md",
        "../../etc/passwd",
        "/etc/passwd",
        "memory\\..\\..\\etc\\passwd",
    ):
        calls.append((f"get {path[:24]!r}", lambda path=path: tools.memory_get(path)))  # type: ignore[misc]
    for text, path in (
        ("a\x00b", None),
        ("a\x00b", "memory/2026-05-01.md"),
        ("x \ud800", None),
        ("x", "memory/\x00.md"),
        ("x", "memory/a\nb.md"),
        ("x", "memory/tab\there.md"),
        ("x", "memory/\udcff.md"),
        ("x", "memory/" + "c" * 300 + ".md"),
        ("x", "../../evil.md"),
        ("x", "memory/../../evil.md"),
    ):
        calls.append(
            (f"append {text[:6]!r} {str(path)[:24]!r}", lambda t=text, p=path: tools.memory_append(t, p))  # type: ignore[misc]
        )
    for day in ("0001-01-01", "", "9999-12-31", "2026-02-30"):
        calls.append((f"as_of {day!r}", lambda day=day: tools.memory_search_as_of("Atlas", day)))  # type: ignore[misc]
    for query in ("\x00", "\u202e", "(((" * 1000, "漢" * 4096):
        calls.append((f"search {query[:8]!r}", lambda q=query: tools.memory_search(q)))  # type: ignore[misc]

    def unreadable() -> set[Path]:
        bad = set()
        for note in workspace.list_memory_files(root):
            try:
                workspace.decode_note(workspace.read_bytes(note), name=str(note))
            except errors.MemdeskError:
                bad.add(note)
        return bad

    try:
        for name, call in calls:

            def check(call: Callable[[], object] = call) -> tuple[bool, int]:
                before = unreadable()
                try:
                    call()
                except errors.MemdeskError as exc:
                    if "\n" in str(exc):
                        return False, 0
                spoiled = len(unreadable() - before)  # notes this call left unreadable
                return spoiled == 0, spoiled

            cat.run(check, note=name)
    finally:
        tools.close()
    cat.case(sorted(os.listdir(tmp)) == outside, note="wrote outside the workspace")
    return cat


def folder_swapped_during_save(tmp: Path, saves: int) -> Category:
    """A thread keeps renaming a note's folder and putting a symlink to a folder outside
    in its place while notes are saved there (an agent moving folders, or an attacker
    racing the save). Each save is written inside or refused; the file outside, which
    holds the same bytes so a write through the link would pass the compare, must
    never change. A case is one save; lost counts writes that landed outside."""
    cat = Category()
    root = tmp / "swap-save"
    folder = root / "memory" / "projects"
    folder.mkdir(parents=True)
    held = root / "memory" / ".projects-held"
    outside = tmp / "swap-save-outside"
    outside.mkdir()
    note = folder / "atlas.md"
    for where in (note, outside / "atlas.md"):
        where.write_bytes(b"v0\n")
    stop = threading.Event()

    def swapper() -> None:
        while not stop.is_set():
            try:
                os.rename(folder, held)
                os.symlink(outside, folder)
                time.sleep(0.0002)
                os.unlink(folder)
                os.rename(held, folder)
            except OSError:
                pass
            time.sleep(0.0001)

    thread = threading.Thread(target=swapper)
    thread.start()
    try:
        for i in range(saves):
            try:
                current = (held if held.is_dir() else folder).joinpath("atlas.md").read_bytes()
            except OSError:
                current = b"v0\n"
            # Refused, or the folder was gone at that instant: one line in the app and the CLI.
            with contextlib.suppress(errors.MemdeskError, OSError):
                workspace.save_note(
                    note, b"v%d\n" % (i + 1), expected=workspace.sha256(current), base=current, root=root
                )
            escaped = (outside / "atlas.md").read_bytes() != b"v0\n" or len(os.listdir(outside)) != 1
            if escaped:
                (outside / "atlas.md").write_bytes(b"v0\n")
                for extra in os.listdir(outside):
                    if extra != "atlas.md":
                        os.unlink(outside / extra)
            cat.case(not escaped, lost=int(escaped), note=f"save {i} wrote outside the workspace")
    finally:
        stop.set()
        thread.join()
    return cat


_APPENDER = """
from memdesk.mcp.tools import MemoryTools
tools = MemoryTools(Path(sys.argv[1]), model="none", allow_write=True, sync_on_start=False)
for i in range(150):
    try:
        tools.memory_append(f"- {sys.argv[2]} line {i}", "memory/shared.md")
    except errors.MemdeskError:
        print("refused", i)  # told: the client knows this line was not written
tools.close()
"""

_AGENT = """
import sys, time
for i in range(150):
    with open(sys.argv[1] + "/memory/shared.md", "a") as handle:
        handle.write(f"- agent line {i}\\n")
    time.sleep(0.002)
"""


def appenders_and_agent(tmp: Path, trials: int) -> Category:
    """Two ``memdesk mcp`` processes append to one note (150 lines each) while the agent
    appends to it in place and ``memdesk index`` runs. A line memdesk refused is told to
    its client; a line that vanished is lost (the agent's, above all: nobody is told).
    A case is one writer in one trial."""
    cat = Category()
    for trial in range(trials):
        root = fresh_workspace(tmp, f"appenders-{trial}")
        note = root / "memory" / "shared.md"
        note.write_text("# shared\n")
        env = dict(os.environ, MEMDESK_HOME=str(tmp / "appenders-home"), PYTHONPATH=str(REPO))
        procs = {
            name: subprocess.Popen(
                [sys.executable, "-c", _CHILD_PRELUDE + _APPENDER, str(root), name],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            for name in ("A", "B")
        }
        procs["agent"] = subprocess.Popen([sys.executable, "-c", _AGENT, str(root)], env=env)
        index = subprocess.Popen(
            [sys.executable, "-m", "memdesk", "index", "--workspace", str(root), "--model", "none"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        told = {name: proc.communicate(timeout=600)[0] or b"" for name, proc in procs.items()}
        index.wait(timeout=600)
        text = note.read_text(encoding="utf-8")
        for name, out in told.items():
            refused = {
                int(line.split()[1]) for line in out.decode().splitlines() if line.startswith("refused")
            }
            lost = [i for i in range(150) if f"- {name} line {i}\n" not in text and i not in refused]
            cat.case(not lost, lost=len(lost), note=f"trial {trial}: {name}'s lines {lost[:5]} vanished")
    return cat


def agent_session_store(tmp: Path) -> Category:
    """The agent's ``sessions.json`` as a FIFO or a link to /dev/zero: ``memdesk agent
    sessions`` (what the Agent view reads) answers within the guard, from the transcripts,
    and the agent's state stays byte-identical."""
    cat = Category()
    from tests.cli import test_agent_state_untouched as case

    for kind in ("fifo", "dev_zero"):
        home = tmp / f"session-store-{kind}"
        home.mkdir()
        state = case.make_state(home, "DELETE")
        store = state / "agents" / "main" / "sessions" / "sessions.json"
        store.unlink()
        if kind == "fifo":
            os.mkfifo(store)
        else:
            store.symlink_to("/dev/zero")

        def check(home: Path = home, state: Path = state) -> tuple[bool, int]:
            before = case.tree_state(state)
            env = dict(os.environ, HOME=str(home), MEMDESK_HOME=str(tmp / "home"), PYTHONPATH=str(REPO))
            env.pop("OPENCLAW_STATE_DIR", None)
            env.pop("OPENCLAW_CONFIG_PATH", None)
            try:
                out = subprocess.run(
                    [
                        sys.executable,
                        "-c",
                        _CHILD_PRELUDE + "from memdesk.cli.main import main; sys.exit(main())",
                        "agent",
                        "sessions",
                        "--query",
                        "backup",
                        "--json",
                    ],
                    capture_output=True,
                    env=env,
                    timeout=60,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                raise RuntimeError("hung past 60 s") from None
            lost = _changed(before, case.tree_state(state))  # type: ignore[arg-type]
            ok = out.returncode == 0 and bool(json.loads(out.stdout)["results"])
            return ok and lost == 0, lost

        cat.run(check, note=kind)
    return cat


def index_row_types(tmp: Path) -> Category:
    """An index whose rows hold values of the wrong type (SQLite keeps any value in any
    column): found as damage and rebuilt from the notes, as a damaged page is."""
    cat = Category()
    import apsw

    root = fresh_workspace(tmp, "row-types")
    for n, damage in enumerate(
        (
            "UPDATE meta SET value = x'00ff00'",
            "UPDATE meta SET value = 42",
            "UPDATE files SET reason = x'ff', status = 'failed'",
            "UPDATE files SET path = x'ff' WHERE rowid = (SELECT MIN(rowid) FROM files)",
            "UPDATE files SET mtime = 'yesterday', size = x'00'",
            "UPDATE files SET hash = NULL",
        )
    ):
        db = tmp / f"row-types-{n}.sqlite"

        def check(db: Path = db, damage: str = damage) -> tuple[bool, int]:
            eng = engine.Engine.open(root, model=None, db_path=db)
            eng.sync()
            eng.close()
            conn = apsw.Connection(str(db))
            try:
                conn.execute(damage)
            except apsw.ConstraintError:
                return True, 0  # the schema refuses this one itself
            finally:
                conn.close()
            eng = engine.Engine.open(root, model=None, db_path=db)
            try:
                eng.status()
                eng.sync()
                found = bool(eng.search("Atlas database", SearchSettings()).hits)
                healthy = eng.status(verify=True).damage is None
            finally:
                eng.close()
            return found and healthy, 0

        cat.run(check, note=damage)
    return cat


def cli_hostile_arguments(tmp: Path) -> Category:
    """Command-line arguments past the edges: year 1, names past 255 bytes, a workspace
    that is a device: each runs or is one line, never a traceback."""
    cat = Category()
    root = fresh_workspace(tmp, "cli-args")
    with open(os.path.join(os.fsencode(root / "memory"), b"bad-\xff\xfe.md"), "wb") as handle:
        handle.write(b"Atlas too\n")  # a name that is not UTF-8: every profile must skip it
    home = tmp / "cli-args-home"
    ws = ["--workspace", str(root)]
    for args in (
        ("changes", "--since", "0001-01-01", *ws),
        ("search", "Atlas", "--as-of", "0001-01-01", "--model", "none", *ws),
        ("get", "memory/" + "y" * 300 + ".md", *ws),
        ("get", "memory/" + "/".join(["d" * 200] * 30) + ".md", *ws),
        ("new", "é" * 400, *ws),
        ("index", "--workspace", "/dev/null", "--model", "none"),
        ("search", "Atlas", "--now", "0001-01-01", "--model", "none", *ws),
        ("search", "Atlas", "--profile", "openclaw-2026.9", "--model", "none", *ws),
        ("search", "Atlas", "--profile", "openclaw-2026.4", "--model", "none", *ws),
    ):

        def check(args: tuple[str, ...] = args) -> tuple[bool, int]:
            out = cli(*args, home=home, timeout=120)
            return out.returncode == 0 or one_line_error(out), 0

        cat.run(check, note=" ".join(a[:30] for a in args[:3]))
    return cat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer trials (a smoke run)")
    parser.add_argument("--only", metavar="NAME[,NAME]", help="run only these categories")
    args = parser.parse_args()
    scale = 4 if args.quick else 1
    tmp = Path(tempfile.mkdtemp(prefix="memdesk-reliability-"))
    from memdesk.core import paths as paths_mod

    models = paths_mod.models_dir()  # the built models, before the data dir moves to tmp
    os.environ["MEMDESK_HOME"] = str(tmp / "home")
    app = qt_app()
    started = time.perf_counter()
    runs: dict[str, Callable[[], Category]] = {
        "non_utf8_file_names": lambda: hostile_names(tmp, 60 // scale),
        "surrogate_at_chunk_cut": lambda: chunk_cut_emoji(tmp),
        "index_damage": lambda: index_damage(tmp, 10 // scale),
        "save_over_undecodable_change": lambda: saves_over_undecodable(tmp),
        "save_race": lambda: save_race(tmp, 200 // scale),
        "byte_preserving_save": lambda: byte_preserving(tmp, 100 // scale),
        "fifo_never_blocks": lambda: fifo(tmp),
        "two_writers": lambda: two_writers(tmp, 3 // scale or 1),
        "rebuild_swap_noticed": lambda: rebuild_swap(tmp),
        "nan_model_falls_back": lambda: nan_model(tmp, models),
        "read_only_or_full_data_dir": lambda: bad_data_dir(tmp),
        "deep_nesting": lambda: deep_nesting(tmp),
        "skips_with_reasons": lambda: skips_with_reasons(tmp),
        "leftovers": lambda: leftovers(tmp),
        "output_hygiene": lambda: output_hygiene(tmp),
        "preview_loads_no_images": lambda: preview_images(tmp),
        "read_only_note": lambda: read_only_note(tmp),
        "agent_state_untouched": lambda: agent_state_untouched(tmp),
        "writes_confined": lambda: writes_confined(tmp),
        "uri_characters": lambda: uri_characters(tmp),
        "permissions_umask_000": lambda: permissions_umask_000(tmp),
        "hostile_config": lambda: hostile_config(tmp, quick=args.quick),
        "same_size_rewrite": lambda: same_size_rewrite(tmp, 30 // scale),
        "hostile_workspace_settings": lambda: hostile_workspace_settings(tmp),
        "hostile_mcp_arguments": lambda: hostile_mcp_arguments(tmp),
        "index_row_types": lambda: index_row_types(tmp),
        "folder_swapped_during_save": lambda: folder_swapped_during_save(tmp, 2000 // scale),
        "appenders_and_agent": lambda: appenders_and_agent(tmp, 4 // scale or 1),
        "agent_session_store": lambda: agent_session_store(tmp),
        "cli_hostile_arguments": lambda: cli_hostile_arguments(tmp),
    }
    if args.only:
        runs = {name: run for name, run in runs.items() if name in args.only.split(",")}
    results: dict[str, dict[str, object]] = {}
    for name, run in runs.items():
        t0 = time.perf_counter()
        cat = run()
        results[name] = cat.to_json()
        print(
            f"{name:<30} {cat.cases:>4} cases {cat.failures:>3} failures {cat.data_lost:>3} lost "
            f"({time.perf_counter() - t0:.1f}s)",
            file=sys.stderr,
        )
    del app
    subprocess.run(["rm", "-rf", str(tmp)], check=False)
    totals = {k: sum(int(r[k]) for r in results.values()) for k in ("cases", "failures", "data_lost")}  # type: ignore[call-overload]
    print(
        json.dumps(
            {"categories": results, "totals": totals, "seconds": round(time.perf_counter() - started, 1)}
        )
    )


if __name__ == "__main__":
    main()
