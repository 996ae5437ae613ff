"""``python -m lbpe.cli`` runs the command line, as ``python -m lbpe`` does."""

import sys

from lbpe.cli import main

sys.exit(main())
