"""The ``local_server`` check: 2026.9's ``local`` provider with no llama-server on this machine."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.messages import QT_TRANSLATE_NOOP, msg

from ..config import AgentSearch, OpenClawSetup, get, resolve_user_path
from .findings import DoctorReport, Finding

# The llama.cpp build @openclaw/llama-cpp-provider 2026.9.5 installs (LLAMA_SERVER_RELEASE).
LLAMA_SERVER_RELEASE = "b10809"


def _check_local_server(report: DoctorReport, setup: OpenClawSetup, search: AgentSearch) -> None:
    """2026.9's ``local`` provider runs the llama.cpp plugin's managed ``llama-server``.

    ``@openclaw/llama-cpp-provider`` (2026.9.5) installs build ``b10809`` on first use,
    downloaded from github.com/ggml-org/llama.cpp into ``<state>/tools/llama.cpp/b10809/
    <platform>-<arch>/``, unless ``models.providers.llama-cpp.localService.command``
    names a server already there.
    """
    if search.provider != "local":
        return
    configured = get(setup.config, "models", "providers", "llama-cpp", "localService", "command")
    if isinstance(configured, str) and configured.strip() and Path(resolve_user_path(configured)).is_file():
        return
    install_dir = setup.state_dir / "tools" / "llama.cpp" / LLAMA_SERVER_RELEASE
    if any(install_dir.glob("*/llama-server")) or any(install_dir.glob("*/llama-server.exe")):
        return
    report.add(
        Finding(
            "warning",
            "local_server",
            msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    'your agent embeds with provider "local", and no llama-server is on this machine yet: '
                    "OpenClaw downloads llama.cpp {release} from GitHub the first time it embeds; offline "
                    "that download fails, and with it the agent's memory index",
                ),
                release=LLAMA_SERVER_RELEASE,
            ),
            str(install_dir),
            fix=msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "run openclaw memory index once while online, or point "
                    "models.providers.llama-cpp.localService.command at a llama-server {release} you have",
                ),
                release=LLAMA_SERVER_RELEASE,
            ),
        )
    )
