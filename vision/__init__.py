"""Camera side of fudaba: capture, calibration, detection, stabilisation and the synthetic renderer."""
