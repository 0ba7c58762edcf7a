"""Setting up a camera table from the browser: a look through the camera (the mat's markers and a
picture), a camera game started from the home page's form, the printable mat."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

pytest.importorskip("cv2")

from fudaba.session import Sessions  # noqa: E402
from fudaba.setup import TableSetup  # noqa: E402
from fudaba.store import Store  # noqa: E402
from tests.test_web import Browser  # noqa: E402
from web import WebConfig, create_app  # noqa: E402


@pytest.fixture
def setup_browser(tmp_path: Path):  # noqa: ANN201
    setup = TableSetup()
    app = create_app(WebConfig(secret_key=b"k" * 32, setup=setup), Sessions(Store(tmp_path / "h.sqlite3")))
    yield Browser(app.test_client())
    setup.close()


def test_a_look_through_the_camera_finds_the_mat_s_markers(setup_browser: Browser, base_clip: Path) -> None:
    r = setup_browser.post("/api/camera/look", {"source": str(base_clip)})
    assert r.status_code == 200, r.json
    look = r.json
    assert look["ok"] and look["markers"] == [0, 1, 2, 3] and look["missing"] == [] and look["size"] == [1280, 720]
    assert look["picture"].startswith("data:image/jpeg;base64,")
    assert base64.b64decode(look["picture"].split(",", 1)[1])[:2] == b"\xff\xd8"


def test_a_source_that_shows_nothing_is_said_so(setup_browser: Browser, tmp_path: Path) -> None:
    r = setup_browser.post("/api/camera/look", {"source": str(tmp_path / "none.mp4")})
    assert r.status_code == 200 and not r.json["ok"] and "none.mp4" in r.json["message"]
    assert setup_browser.post("/api/camera/look", {"source": " "}).status_code == 400
    blank = tmp_path / "frames"
    blank.mkdir()
    import cv2
    import numpy as np

    cv2.imwrite(str(blank / "f1.png"), np.full((480, 640, 3), 200, np.uint8))
    r = setup_browser.post("/api/camera/look", {"source": str(blank)})
    assert r.json["ok"] and r.json["markers"] == [] and r.json["missing"] == [0, 1, 2, 3]
    assert "markers 0, 1, 2, 3 not seen" in r.json["message"]


def test_a_camera_game_started_from_the_form(setup_browser: Browser, base_clip: Path) -> None:
    r = setup_browser.post("/api/sessions", {"game": "poka", "players": ["Aki", "Ben"], "camera": str(base_clip)})
    assert r.status_code == 201, r.json
    state = setup_browser.get(f"/api/sessions/{r.json['id']}/state").json
    assert state["live"] is not None and state["session"]["players"][0]["name"] == "Aki"
    r = setup_browser.post("/api/sessions", {"game": "poka", "players": ["a", "b"], "camera": "/no/such/video.mp4"})
    assert r.status_code == 400 and "/no/such/video.mp4" in r.json["error"]
    r = setup_browser.post("/api/sessions", {"game": "poka", "players": ["a", "b"], "camera": 3})
    assert r.status_code == 400


def test_the_printable_mat(setup_browser: Browser) -> None:
    r = setup_browser.get("/api/mat.pdf?game=poka&players=2&paper=a4x4")
    assert r.status_code == 200 and r.mimetype == "application/pdf" and r.data[:5] == b"%PDF-"
    assert "fudaba-mat-poka-2p-a4x4.pdf" in r.headers["Content-Disposition"]
    assert setup_browser.get("/api/mat.pdf?game=poka&players=2&paper=a0").status_code == 400
    assert setup_browser.get("/api/mat.pdf?game=poka&players=9").status_code == 400
    assert setup_browser.get("/api/mat.pdf?game=poka&players=two").status_code == 400


def test_without_cameras_the_setup_says_so(tmp_path: Path) -> None:
    b = Browser(create_app(WebConfig(secret_key=b"k" * 32), Sessions(Store(tmp_path / "h.sqlite3"))).test_client())
    r = b.post("/api/camera/look", {"source": "0"})
    assert r.status_code == 409 and "cannot use cameras" in r.json["error"]
    assert b.post("/api/sessions", {"game": "poka", "players": ["a", "b"], "camera": "0"}).status_code == 409
