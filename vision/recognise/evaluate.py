"""Moved to :mod:`vision.evaluate.recognition` (issue 38): only ``fudaba calibrate`` in
:mod:`vision.recognise.cli` still imports it from here; delete this module when it imports
``vision.evaluate.recognition``."""

from vision.evaluate.recognition import render_scenes

__all__ = ["render_scenes"]
