"""The ``fudaba`` command: wires the scorer, vision, web and device parts together."""
