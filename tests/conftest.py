"""Test-wide settings: ``HYPOTHESIS_PROFILE=ci`` (set by ``.ci/run``) makes property tests draw the
same examples on every run, so a CI failure is reproducible; locally they explore new examples."""

import os
import threading
from collections.abc import Iterator

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

SLOW_MODULES = frozenset({
    # rendered video, the camera path and recognition on rendered scenes
    "test_tracker_camera", "test_tracking_clips", "test_tracker_showdown", "test_synth_video",
    "test_stabilise", "test_stabilise_reread", "test_bagaji_hanafuda_video", "test_live", "test_flight",
    "test_replay_cli", "test_calibrate", "test_corners", "test_recognise", "test_recognise_cli", "test_setup",
    "test_careful_read",
    # a real browser
    "test_browser", "test_phone_rounds", "test_new_game_and_howto",
    # the stone counter's serial link under faults, and its firmware on a simulated AVR
    "test_device_client", "test_device_cli", "test_device_ports", "test_firmware_sim", "test_counter_firmware",
    # thousands of lines and threads
    "test_session_stress",
})
"""Modules left out of the quick tier (``pytest -m "not slow"``): each of their tests is marked
``slow``. The README's test command runs them all."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test of :data:`SLOW_MODULES` ``slow``."""
    for item in items:
        if item.module is not None and item.module.__name__.rsplit(".", 1)[-1] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def base_clip(tmp_path_factory):
    """The first 21 s of a rendered Poka game (tests/clip_scenes.py, clip ``base``), rendered once
    per test run for the tests that follow a camera."""
    pytest.importorskip("cv2")
    pytest.importorskip("onnxruntime")
    from tests import clip_scenes

    return clip_scenes.write_clips(tmp_path_factory.mktemp("base_clip"), ["base"])["base"].path


def write_plain_table(folder, frames: int):
    """``frames`` images (640 × 480) of a plain table with no calibration markers: a grey cloth and
    a green play area from (100, 80) to (540, 400) px. The folder's path."""
    import cv2
    import numpy as np

    folder.mkdir()
    image = np.full((480, 640, 3), 170, np.uint8)
    cv2.rectangle(image, (100, 80), (540, 400), (120, 140, 120), -1)
    for k in range(frames):
        cv2.imwrite(str(folder / f"f{k:03d}.png"), image)
    return folder


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``fudaba run`` server (waitress, as :func:`fudaba.serve.http_server` makes it) over a fresh
    history, for browser tests: its base URL."""
    from fudaba.counter import CounterControl
    from fudaba.serve import build, http_server

    app = build(tmp_path_factory.mktemp("history") / "h.sqlite3", None, (), CounterControl())
    srv = http_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.effective_port}"  # the server's daemon thread ends with the test run
    app.extensions["fudaba"]["config"].setup.close()  # camera games started from a page: stop following
    app.extensions["fudaba"]["config"].counter.close()
    srv.task_dispatcher.shutdown(timeout=2)  # its worker threads end (the pages' streams are closed)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's Chromium, headless, through Playwright (skips where either is missing)."""
    playwright = pytest.importorskip("playwright.sync_api")
    from tests.browser_kit import CHROMIUM, FLAGS

    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def built() -> None:
    """The stone counter firmware and its simavr harness, built (tests/firmware_kit.py)."""
    from tests.firmware_kit import build_firmware

    build_firmware()


@pytest.fixture
def sim(built: None):  # noqa: ANN201
    """A simulated stone counter running the real firmware (tests/firmware_kit.py)."""
    from tests.firmware_kit import Sim

    s = Sim()
    yield s
    s.close()
    assert not s.ws_errors, s.ws_errors
