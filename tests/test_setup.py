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
from tests.helpers import Browser  # noqa: E402
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
    from vision.evaluate.recognition import rendered_grid_photo

    setup = TableSetup(tmp_path / "profiles", practice_scenes=0)
    app = create_app(WebConfig(secret_key=b"k" * 32, setup=setup), Sessions(Store(tmp_path / "h.sqlite3")))
    b = Browser(app.test_client())
    try:
        assert b.get("/api/profiles").json == {"profiles": [], "enrolments": {}, "offered": True,
                                                "fine_tune": TableSetup.fine_tune_available()}
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


def test_the_live_preview_finds_the_mat_and_names_the_cards_in_each_zone(setup_browser: Browser,
                                                                          base_clip: Path) -> None:
    """The zone check: before the game, the camera's picture goes live, the mat is found, the
    game's zones are listed, and a card lying in one is named there (the clip's table card on the pile)."""
    from tests.waiting import wait_until

    r = setup_browser.post("/api/camera/preview", {"source": str(base_clip), "game": "poka", "players": 2})
    assert r.status_code == 201, r.json
    assert r.json["game"] == "poka" and r.json["players"] == 2

    def pile_named() -> dict | None:
        st = setup_browser.get("/api/camera/preview").json
        return st if st["calibrated"] and st["zones"].get("pile", {}).get("up") else None

    assert wait_until(lambda: pile_named() is not None, 30.0, 0.2), setup_browser.get("/api/camera/preview").json
    status = pile_named()
    assert status["markers"] and len(status["markers"]) + len(status["missing"]) == 4
    assert {"pile", "stock", "seat:1", "seat:2"} <= set(status["zones"])
    name, p = status["zones"]["pile"]["up"][0]
    assert isinstance(name, str) and 0 < p <= 1
    # the picture is a live MJPEG stream of JPEGs
    video = setup_browser.c.get("/api/camera/preview.mjpeg", buffered=False)
    assert video.status_code == 200 and video.mimetype == "multipart/x-mixed-replace"
    first = next(iter(video.response))
    assert b"Content-Type: image/jpeg" in first and b"\xff\xd8" in first
    video.close()
    # a game started on the camera takes it: the preview stops
    preview = setup_browser.c.application.extensions["fudaba"]["config"].setup.current_preview
    r = setup_browser.post("/api/sessions", {"game": "poka", "players": ["Aki", "Ben"], "camera": str(base_clip)})
    assert r.status_code == 201 and not preview.running
    assert setup_browser.get("/api/camera/preview").status_code == 404


def test_the_live_preview_refuses_bad_input_and_stops_when_asked_or_unwatched(setup_browser: Browser, tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from fudaba import preview as preview_module
    from tests.conftest import write_plain_table
    from tests.waiting import wait_until

    assert setup_browser.get("/api/camera/preview").status_code == 404
    assert setup_browser.c.get("/api/camera/preview.mjpeg").status_code == 404
    assert setup_browser.post("/api/camera/preview", {"game": "poka", "players": 2}).status_code == 400
    assert setup_browser.post("/api/camera/preview", {"source": "0", "game": "poka"}).status_code == 400
    r = setup_browser.post("/api/camera/preview", {"source": "0", "game": "chess", "players": 2})
    assert r.status_code == 400 and "chess" in r.json["error"]
    r = setup_browser.post("/api/camera/preview", {"source": str(tmp_path / "none.mp4"), "game": "poka", "players": 2})
    assert r.status_code == 400 and "none.mp4" in r.json["error"]
    # a table without the mat: the markers are said to be missing
    folder = write_plain_table(tmp_path / "plain", 400)
    r = setup_browser.post("/api/camera/preview", {"source": str(folder), "game": "poka", "players": 2})
    assert r.status_code == 201
    assert wait_until(lambda: setup_browser.get("/api/camera/preview").json["state"] == "looking", 20.0, 0.1)
    st = setup_browser.get("/api/camera/preview").json
    assert not st["calibrated"] and st["missing"] == [0, 1, 2, 3] and "markers 0, 1, 2, 3 not seen" in st["message"]
    assert setup_browser.post("/api/camera/preview/stop", {}).json == {"stopped": True}
    assert setup_browser.get("/api/camera/preview").status_code == 404
    # nobody watching: it stops by itself and frees the camera
    monkeypatch.setattr(preview_module, "IDLE_S", 0.5)
    setup_browser.post("/api/camera/preview", {"source": str(folder), "game": "poka", "players": 2})
    preview = setup_browser.c.application.extensions["fudaba"]["config"].setup.current_preview
    assert wait_until(lambda: not preview.running, 10.0, 0.1)
    assert preview.status()["state"] == "stopped"


def _png() -> bytes:
    import cv2
    import numpy as np

    return cv2.imencode(".png", np.full((40, 60, 3), 128, np.uint8))[1].tobytes()


def test_a_fine_tune_from_the_page_needs_the_training_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    setup = TableSetup(tmp_path / "p")
    b = Browser(create_app(WebConfig(secret_key=b"k" * 32, setup=setup), Sessions(Store(tmp_path / "h.sqlite3")))
                .test_client())
    monkeypatch.setattr(TableSetup, "fine_tune_available", staticmethod(lambda: False))
    assert b.get("/api/profiles").json["fine_tune"] is False
    form = {"name": "mine", "deck": "hanafuda", "fine_tune": "1", "photo": (io.BytesIO(_png()), "p.png")}
    r = b.post("/api/profiles", data=form, content_type="multipart/form-data")
    assert r.status_code == 400 and "pip install 'fudaba[train]'" in r.json["error"]
    monkeypatch.setattr(TableSetup, "fine_tune_available", staticmethod(lambda: True))
    for minutes in ("soon", "0", "500"):
        form = {"name": "mine", "deck": "hanafuda", "fine_tune": "1", "minutes": minutes,
                "photo": (io.BytesIO(_png()), "p.png")}
        r = b.post("/api/profiles", data=form, content_type="multipart/form-data")
        assert r.status_code == 400 and "min" in r.json["error"], (minutes, r.json)


def test_a_fine_tune_from_the_page_runs_fudaba_enrol_and_reports_its_progress(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's fine-tune is ``fudaba enrol --fine-tune`` in its own process: its output is the
    enrolment's message, a clean exit with the profile written makes it ready, a failure says why.
    (The fine-tune itself is tested with the training extra, tests/test_recognise_torch.py.)"""
    import io
    import sys

    from tests.waiting import wait_until

    setup = TableSetup(tmp_path / "p", practice_scenes=5)
    cmd = setup.fine_tune_command("hanafuda", tmp_path / "p" / "mine.png", tmp_path / "p" / "mine.npz", 3)
    assert cmd[:3] == [sys.executable, "-m", "fudaba"] and cmd[3:6] == ["enrol", "--deck", "hanafuda"]
    assert cmd[-6:] == ["--out", str(tmp_path / "p" / "mine.npz"), "--minutes", "3", "--practice", "5"]
    assert "--fine-tune" in cmd
    # the command as a stand-in that writes the profile (or fails) the way `fudaba enrol` would
    script = ("import sys, time; out = sys.argv[sys.argv.index('--out') + 1]\n"
              "print('reading the grid, fine-tuning…', flush=True); time.sleep(0.3)\n"
              "if 'fail' in out: print('fudaba enrol: the photo does not show the grid', flush=True); sys.exit(2)\n"
              "open(out, 'wb').write(b'profile'); print('wrote ' + out, flush=True)\n")
    monkeypatch.setattr(TableSetup, "fine_tune_available", staticmethod(lambda: True))
    monkeypatch.setattr(TableSetup, "fine_tune_command",
                        lambda self, deck, photo, out, minutes: [sys.executable, "-c", script, "--out", str(out)])
    b = Browser(create_app(WebConfig(secret_key=b"k" * 32, setup=setup), Sessions(Store(tmp_path / "h.sqlite3")))
                .test_client())
    for name in ("mine", "fail"):
        form = {"name": name, "deck": "hanafuda", "fine_tune": "on", "photo": (io.BytesIO(_png()), "p.png")}
        assert b.post("/api/profiles", data=form, content_type="multipart/form-data").status_code == 202
    assert wait_until(lambda: all(j["state"] != "running" for j in b.get("/api/profiles").json["enrolments"].values()),
                      20.0, 0.05)
    r = b.get("/api/profiles").json
    assert r["enrolments"]["mine"] == {"state": "done", "deck": "hanafuda",
                                       "message": "profile mine ready, with its own classifier"}
    assert r["enrolments"]["fail"]["state"] == "failed"
    assert r["enrolments"]["fail"]["message"] == "fudaba enrol: the photo does not show the grid"
    assert {"name": "mine", "deck": "hanafuda"} in r["profiles"] and r["fine_tune"] is True


def _mat_frames(folder: Path, size: tuple[int, int], area_mm: tuple[float, float], frames: int = 40) -> Path:
    """``frames`` copies of a ``size`` (w, h) picture of a grey table whose mat (play area
    ``area_mm``, 50-mm markers on its corners) fills 90 % of the picture's height, seen from above."""
    import cv2
    import numpy as np

    from vision.markers import marker_corners_mm, marker_image

    w, h = size
    s = 0.9 * h / (area_mm[1] + 60)  # px per mm, the markers' halves beyond the area in view
    off = np.array([(w - s * area_mm[0]) / 2, (h - s * area_mm[1]) / 2])
    image = np.full((h, w), 150, np.uint8)
    quiet = marker_corners_mm(area_mm, 50.0, quiet=True)
    for k in range(4):
        side = int(round(np.ptp(quiet[k][:, 0]) * s))
        x0, y0 = (quiet[k][0] * s + off).round().astype(int)
        image[y0:y0 + side, x0:x0 + side] = cv2.resize(np.asarray(marker_image(k, 16)), (side, side),
                                                       interpolation=cv2.INTER_NEAREST)
    folder.mkdir()
    for k in range(frames):
        cv2.imwrite(str(folder / f"f{k:03d}.png"), cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    return folder


@pytest.mark.parametrize(("size", "small"), [((1280, 720), True), ((1920, 1080), False)])
def test_the_zone_check_says_when_a_playing_card_s_index_is_too_small_to_read(
        setup_browser: Browser, tmp_path: Path, size: tuple[int, int], small: bool) -> None:
    """Bagaji with playing cards on its mat filmed at 720p shows a corner index under the reader's
    need (about 19 px of 24); at 1080p above it."""
    from fudaba.preview import index_px
    from tests.waiting import wait_until
    from vision.recognise.index_reader import INDEX_PX_NEEDED
    from vision.replay import resolve

    area = resolve("bagaji", 3, None, {}, None).layout.area_mm
    folder = _mat_frames(tmp_path / "mat", size, area)
    r = setup_browser.post("/api/camera/preview", {"source": str(folder), "game": "bagaji", "players": 3})
    assert r.status_code == 201, r.json
    assert wait_until(lambda: setup_browser.get("/api/camera/preview").json["index_px"] is not None, 30.0, 0.1), \
        setup_browser.get("/api/camera/preview").json
    st = setup_browser.get("/api/camera/preview").json
    expected = 0.2 * 88 * 0.9 * size[1] / (area[1] + 60)
    assert st["calibrated"] and st["deck"] == "playing"
    assert st["index_px"] == pytest.approx(expected, rel=0.05)
    assert st["index_px_needed"] == INDEX_PX_NEEDED and st["index_small"] is small
    setup_browser.post("/api/camera/preview/stop", {})
    # hanafuda games say nothing of it; a tilted camera is judged where it sees the mat in least detail
    assert "index_px" not in setup_browser.post("/api/camera/preview", {"source": str(folder), "game": "poka",
                                                                           "players": 2}).json
    setup_browser.post("/api/camera/preview/stop", {})
    tilted = [[1.6, 0.1, 100.0], [0.0, 1.5, 50.0], [0.0, 0.0004, 1.0]]
    assert index_px(tilted, [(0, 0), (700, 500)]) < 0.2 * 88 * 1.5 / (1 + 0.0004 * 500) * 1.01
