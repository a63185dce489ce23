"""Command line of the lab: `python -m lab --help` lists the commands."""

import sys

from lab.cli import main

sys.exit(main())
