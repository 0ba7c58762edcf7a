"""Synthetic table renderer: still scenes of cards on tables, with exact labels.

A scene is a frozen description (:class:`vision.synth.scene.Scene`: table, light, camera pose, card
placements in table millimetres, occluders, markers) sampled from a seed by
:func:`vision.synth.scene.sample_scene`; :func:`vision.synth.scene.render` turns it into an image
and its labels as a pure function, so a video renderer can move cards and arms between frames and
render each frame the same way. :mod:`vision.synth.export` writes ultralytics datasets;
:mod:`vision.synth.cli` is the ``synth`` command line.
"""
