"""`python -m generator.simulation --results FILE [--seeds N] [--out FILE]`: the simulator
checked against a built results.json, alone (generator/simulation/validate.py)."""

import sys

from generator.simulation.validate import main

sys.exit(main())
