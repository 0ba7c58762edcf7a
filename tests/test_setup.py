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


def test_a_deck_enrolled_from_a_photo_sent_by_the_page(tmp_path: Path, base_clip: Path) -> None:
    import io
    import time

    pytest.importorskip("onnxruntime")
    from vision.recognise.evaluate import rendered_grid_photo

    setup = TableSetup(tmp_path / "profiles", practice_scenes=0)
    app = create_app(WebConfig(secret_key=b"k" * 32, setup=setup), Sessions(Store(tmp_path / "h.sqlite3")))
    b = Browser(app.test_client())
    try:
        assert b.get("/api/profiles").json == {"profiles": [], "enrolments": {}, "offered": True}
        photo = rendered_grid_photo("hanafuda", "mantia", 5, folder=str(tmp_path)).read_bytes()
        form = {"name": "our deck", "deck": "hanafuda", "photo": (io.BytesIO(photo), "grid.png")}
        r = b.post("/api/profiles", data=form, content_type="multipart/form-data")
        assert r.status_code == 202, r.json
        end = time.monotonic() + 240
        while b.get("/api/profiles").json["enrolments"]["our deck"]["state"] == "running" and time.monotonic() < end:
            time.sleep(0.5)
        listing = b.get("/api/profiles").json
        assert listing["enrolments"]["our deck"]["state"] == "done", listing
        assert listing["profiles"] == [{"name": "our deck", "deck": "hanafuda"}]
        assert (tmp_path / "profiles" / "our deck.npz").is_file()
        # a camera game recognised with it
        r = b.post("/api/sessions", {"game": "poka", "players": ["a", "b"], "camera": str(base_clip),
                                     "profile": "our deck"})
        assert r.status_code == 201, r.json
        r = b.post("/api/sessions", {"game": "poka", "players": ["a", "b"], "camera": str(base_clip),
                                     "profile": "their deck"})
        assert r.status_code == 400 and "no deck profile 'their deck'" in r.json["error"]
    finally:
        setup.close()


def test_an_enrolment_with_bad_input_is_refused(setup_browser: Browser, tmp_path: Path) -> None:
    import io

    def send(name: str, deck: str, data: bytes):  # noqa: ANN202
        form = {"name": name, "deck": deck, "photo": (io.BytesIO(data), "p.png")}
        return setup_browser.post("/api/profiles", data=form, content_type="multipart/form-data")

    assert setup_browser.get("/api/profiles").json["offered"] is False
    r = send("deck", "hanafuda", b"not a picture")
    assert r.status_code == 400 and "not kept on this server" in r.json["error"]
    setup = TableSetup(tmp_path / "p")
    b = Browser(create_app(WebConfig(secret_key=b"k" * 32, setup=setup), Sessions(Store(tmp_path / "h2.sqlite3")))
                .test_client())
    form = {"name": "../etc", "deck": "hanafuda", "photo": (io.BytesIO(b"x"), "p.png")}
    r = b.post("/api/profiles", data=form, content_type="multipart/form-data")
    assert r.status_code == 400 and "letters, digits" in r.json["error"]
    form = {"name": "ok", "deck": "tarot", "photo": (io.BytesIO(b"x"), "p.png")}
    assert "unknown deck" in b.post("/api/profiles", data=form, content_type="multipart/form-data").json["error"]
    form = {"name": "ok", "deck": "hanafuda", "photo": (io.BytesIO(b"x"), "p.png")}
    assert "not a picture" in b.post("/api/profiles", data=form, content_type="multipart/form-data").json["error"]
    assert b.post("/api/profiles", data={"name": "ok"}, content_type="multipart/form-data").status_code == 400
