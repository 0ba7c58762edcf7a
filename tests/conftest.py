"""Test-wide settings: ``HYPOTHESIS_PROFILE=ci`` (set by ``.ci/run``) makes property tests draw the
same examples on every run, so a CI failure is reproducible; locally they explore new examples."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
