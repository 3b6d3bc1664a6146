"""``python -m memdesk.parity FILE...``: the OpenClaw parity runner.

The runner lives in :mod:`memdesk.core.openclaw.parity`, next to the port it checks.
"""

from __future__ import annotations

import sys

from memdesk.core.openclaw.parity import main

if __name__ == "__main__":
    sys.exit(main())
