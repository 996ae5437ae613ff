"""``python -m lbpe`` runs the command line."""

import sys

from lbpe.cli import main

sys.exit(main())
