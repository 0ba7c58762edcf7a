"""The ``fudaba`` command: wires the scorer, vision, web and device parts together."""

__version__ = "0.1.0"
