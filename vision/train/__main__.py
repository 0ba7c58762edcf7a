"""``python -m vision.train …``: the train command line (see :mod:`vision.train.cli`)."""

import sys

from vision.train.cli import main

sys.exit(main())
