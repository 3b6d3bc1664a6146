"""llama.cpp's CPU backend variant, chosen when llama.cpp loads (runtime dispatch).

scripts/setup.sh builds llama-cpp-python with every x86-64 CPU variant
(libggml-cpu-<variant>.so), as the bundle ships it. A variant is chosen once per
process, so forcing one (MEMDESK_LLAMA_CPU) runs in a fresh process. On a native
build (one libggml-cpu.so) the dispatch tests skip: there is nothing to choose.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memdesk.core.embed import cpu_backend

pytestmark = pytest.mark.model

REPO = Path(__file__).resolve().parents[3]
TEXTS = [
    "I drink coffee every morning.",
    "The quarterly budget meeting moved to Friday.",
    "用户偏好：会议改到周五下午。",
    "",
]
_EMBED = """
import json, sys
from memdesk.core.embed import cpu_backend
from memdesk.core.embed.gguf_embedder import GgufEmbedder

embedder = GgufEmbedder(sys.argv[1])
vectors = embedder.embed_documents(json.loads(sys.argv[2]))
backend = cpu_backend.loaded()
print(json.dumps({"variant": backend.variant, "best": backend.best, "forced": backend.forced,
                  "vectors": vectors.tolist()}))
"""


def _variants() -> dict[str, Path]:
    llama_cpp = pytest.importorskip("llama_cpp")
    return cpu_backend.variant_libraries(cpu_backend.library_dir(llama_cpp))


@pytest.fixture(scope="module")
def variants() -> dict[str, Path]:
    found = _variants()
    if not found:
        pytest.skip("llama-cpp-python is a native build, without CPU variants (scripts/setup.sh builds them)")
    return found


def _best(variants: dict[str, Path]) -> str:
    """This CPU's best variant, from the libraries' own scores."""
    scores = {name: cpu_backend.score(path) for name, path in variants.items()}
    top = max(scores.values())
    assert top > 0
    (best,) = [name for name, value in scores.items() if value == top]
    return best


def _run(
    args: list[str], forced: str | None, tmp_path: Path, wrap: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    # The child imports what this process imports: this checkout, and its llama_cpp.
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, MEMDESK_HOME=str(tmp_path / "home"))
    env.pop(cpu_backend.FORCE_ENV, None)
    if forced is not None:
        env[cpu_backend.FORCE_ENV] = forced
    return subprocess.run(
        [*(wrap or []), sys.executable, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_default_is_the_best_variant_and_forced_baseline_agrees(
    variants: dict[str, Path], gguf_embedder: object, minilm_gguf: Path, tmp_path: Path
) -> None:
    """Unforced, the CPU's best variant runs; forced, x64 does, with the same vectors."""
    assert cpu_backend.BASELINE in variants
    default = gguf_embedder.embed_documents(TEXTS)  # type: ignore[attr-defined]
    backend = cpu_backend.loaded()
    assert backend is not None and not backend.forced
    assert backend.variant == backend.best == _best(variants)

    proc = _run(["-c", _EMBED, str(minilm_gguf), json.dumps(TEXTS)], "x64", tmp_path)
    assert proc.returncode == 0, proc.stderr
    forced = json.loads(proc.stdout.splitlines()[-1])
    assert (forced["variant"], forced["forced"], forced["best"]) == ("x64", True, backend.variant)
    cosines = np.sum(default * np.asarray(forced["vectors"], dtype=np.float32), axis=1)
    assert cosines.min() >= 0.9999, cosines


def test_unknown_forced_variant_fails_in_one_line(variants: dict[str, Path], tmp_path: Path) -> None:
    proc = _run(["-m", "memdesk.cli.main", "model", "list"], "pentium4", tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "memdesk: error: MEMDESK_LLAMA_CPU=pentium4: llama.cpp has no such CPU backend "
        f"(it has: {', '.join(sorted(variants))})"
    ]


def test_forced_variant_this_cpu_cannot_run_is_refused(
    variants: dict[str, Path], minilm_gguf: Path, tmp_path: Path
) -> None:
    unsupported = sorted(name for name, path in variants.items() if cpu_backend.score(path) == 0)
    if not unsupported:
        pytest.skip("this CPU runs every variant the build has")
    name = unsupported[-1]
    proc = _run(
        ["-m", "memdesk.cli.main", "model", "embed", "--model", str(minilm_gguf), "hello"], name, tmp_path
    )
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"memdesk: error: MEMDESK_LLAMA_CPU={name}: this CPU lacks the instructions llama.cpp's {name} backend needs"
    ]


def test_model_list_names_the_cpu_backend(tmp_path: Path) -> None:
    """`memdesk model list` says which variant runs here (or that the build is native)."""
    variants = _variants()
    proc = _run(["-m", "memdesk.cli.main", "model", "list"], None, tmp_path)
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.splitlines()[-1]
    if variants:
        assert line == f"llama.cpp CPU backend: {_best(variants)} (runtime dispatch; baseline x64 available)"
    else:
        assert line == "llama.cpp CPU backend: native build (not portable)"
    forced = _run(["-m", "memdesk.cli.main", "model", "list"], "x64", tmp_path)
    if variants:
        assert forced.stdout.splitlines()[-1] == (
            f"llama.cpp CPU backend: x64 (forced by MEMDESK_LLAMA_CPU; this CPU's best: {_best(variants)})"
        )
    else:
        assert forced.returncode == 1 and "native build" in forced.stderr


@pytest.mark.parametrize(("cpu", "variant"), [("Nehalem", "sse42"), ("Haswell", "haswell")])
def test_an_older_cpu_runs_its_own_variant(
    variants: dict[str, Path],
    gguf_embedder: object,
    minilm_gguf: Path,
    tmp_path: Path,
    cpu: str,
    variant: str,
) -> None:
    """On an emulated CPU without AVX-512 (qemu-user), memdesk picks that CPU's variant and
    embeds as here; a native build of this machine dies there with "Illegal instruction"."""
    qemu = shutil.which("qemu-x86_64")
    if qemu is None or platform.machine() != "x86_64":
        pytest.skip("needs qemu-user on x86-64 (scripts/setup.sh installs it as root)")
    default = gguf_embedder.embed_documents(TEXTS)  # type: ignore[attr-defined]
    proc = _run(["-c", _EMBED, str(minilm_gguf), json.dumps(TEXTS)], None, tmp_path, wrap=[qemu, "-cpu", cpu])
    assert proc.returncode == 0, proc.stderr[-2000:]
    emulated = json.loads(proc.stdout.splitlines()[-1])
    assert (emulated["variant"], emulated["forced"]) == (variant, False)
    cosines = np.sum(default * np.asarray(emulated["vectors"], dtype=np.float32), axis=1)
    assert cosines.min() >= 0.9999, cosines
