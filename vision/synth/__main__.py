"""``python -m vision.synth …``: the synth command line (see :mod:`vision.synth.cli`)."""

import sys

from vision.synth.cli import main

sys.exit(main())
