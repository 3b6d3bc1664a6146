"""Entry point of the PyInstaller bundle: the same ``memdesk`` command as pip installs."""

import sys

from memdesk.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
