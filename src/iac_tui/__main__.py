"""`python -m iac_tui`: run the terminal app."""

import sys

from iac_tui.cli import main

sys.exit(main())
