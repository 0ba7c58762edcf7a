"""Measuring recognition, outside the runtime package: scoring against rendered truth and the scenes
measured (:mod:`.recognition`), fitting the classifier's confidence calibration (:mod:`.calibration`).

Used by ``fudaba calibrate``, ``bench/``, the tests and training (``vision/train``); recognising a
frame (:mod:`vision.recognise`) never imports it.
"""
