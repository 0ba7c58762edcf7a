"""Moved to :mod:`vision.evaluate.calibration` (issue 38): only ``fudaba calibrate`` in
:mod:`vision.recognise.cli` still imports it from here; delete this module when it imports
``vision.evaluate.calibration``."""

from vision.evaluate.calibration import collect, fit, val_seeds, write

__all__ = ["collect", "fit", "val_seeds", "write"]
