"""Training and export of the card models with ultralytics, fully offline (docs/training.md).

Needs the ``train`` extra (torch, ultralytics, ONNX, OpenVINO) in its own virtual environment;
running fudaba itself never imports this package. Modules: :mod:`offline` (no network, ever),
:mod:`datasets` (rendered and real data for a run), :mod:`recipe` (model, hyper-parameters, train,
resume, export), :mod:`record` (``config.json``), :mod:`cli` (``fudaba train``).
"""
