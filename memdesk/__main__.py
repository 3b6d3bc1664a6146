"""``python -m memdesk``: the command line (``memdesk gui`` starts the app)."""

import sys

from memdesk.cli.main import main

sys.exit(main())
