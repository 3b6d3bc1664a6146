"""Import the SDK's server side alone, for a server process's start-up.

``import mcp.server.mcpserver`` first runs ``mcp/__init__.py``, which imports the
SDK's whole client side (sessions, the stdio and HTTP clients, ``Client``) to re-export
it, and ``mcp/server/__init__.py``: about 0.1 s of CPU a server never uses, out of the
1 s it has to answer its first ``memory_status``. The two packages are registered
without running their ``__init__`` (their submodules import as usual), then the server
modules are imported. If that fails (an SDK whose server code imports from the package
front door), the packages are dropped again and the normal import follows.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import sys

log = logging.getLogger(__name__)

FRONT_DOORS = ("mcp", "mcp.server")
SERVER_MODULES = ("mcp.server.mcpserver", "mcp.server.stdio")


def import_server_side() -> None:
    """Import ``SERVER_MODULES`` without ``FRONT_DOORS``' ``__init__`` (once per process;
    nothing to do when the SDK is already imported)."""
    if "mcp" in sys.modules:
        return
    try:
        for name in FRONT_DOORS:
            spec = importlib.util.find_spec(name)
            if spec is None or spec.submodule_search_locations is None:
                raise ImportError(f"{name} is not a package")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, module)
        for name in SERVER_MODULES:
            importlib.import_module(name)
    except ImportError as exc:
        log.info("importing the MCP SDK as a whole (%s)", exc)
        for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
            del sys.modules[name]
