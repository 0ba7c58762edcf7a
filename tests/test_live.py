"""The live feed: a camera following a session's game, through the session (its record, its
watchers) — the same events ``fudaba replay`` finds, with corrections and answers in one record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")
pytest.importorskip("cv2")
pytest.importorskip("onnxruntime")

from fudaba.serve import start_camera  # noqa: E402
from fudaba.session import SessionError, Sessions  # noqa: E402
from fudaba.store import Store  # noqa: E402
from scorer import record as records  # noqa: E402
from vision.follow_settings import FollowSettings  # noqa: E402


@pytest.fixture
def clip(base_clip: Path) -> Path:
    return base_clip


def follow(tmp_path: Path, clip: Path, confirm: bool = False) -> tuple[Any, Any]:
    sessions = Sessions(Store(tmp_path / "h.sqlite3"))
    settings = FollowSettings("poka", 2, names=("Aki", "Ben"), confirm=confirm)
    session, feed = start_camera(sessions, str(clip), settings, pace=False)
    return session, feed


def test_the_feed_commits_what_fudaba_replay_finds_into_the_session(tmp_path: Path, clip: Path) -> None:
    from vision.replay import replay_video

    session, feed = follow(tmp_path, clip)
    sub = session.subscribe()
    feed._thread.join(300)
    assert not feed._thread.is_alive()
    summary = replay_video(clip, "poka", players=2)
    want = [c["event"] for c in summary["committed"]]
    assert want, "the clip shows events"
    got = [{k: v for k, v in line.items() if k not in (*records.META_KEYS, "at")} for line in session.lines]
    assert got == want
    assert {line["source"] for line in session.lines} == {"camera"}
    # stamped with the match's time, as the dashboard's events are (Bagaji's clock runs on it)
    ats = [line["at"] for line in session.lines]
    assert all(isinstance(a, float) and a >= 0 for a in ats) and ats == sorted(ats)
    assert all("t" in line["evidence"] for line in session.lines)
    # the record in the history replays to the same game
    assert records.loads(session.store.export(session.id)).replay().events == session.match.events
    view = session.snapshot()["live"]
    assert view["camera"] == "ended" and view["calibrated"] and view["frames"] > 0
    # watchers were told of every line
    seqs = []
    while (snap := sub.get(0.01)) is not None:
        seqs.append(snap["seq"])
    assert seqs and seqs[-1] == session.seq


def test_a_correction_on_the_dashboard_goes_to_the_session_and_the_trackers_fork(tmp_path: Path, clip: Path) -> None:
    session, feed = follow(tmp_path, clip)
    feed._thread.join(300)
    events = session.match.event_count
    assert feed.tracker.match.events == session.match.events
    session.undo()
    # the tracker follows its own fork of the session's match, taken afresh after a correction
    assert feed.tracker.match is not session.match and session.match.event_count == events - 1
    assert feed.tracker.match.events == session.match.events
    assert session.lines[-1]["source"] == "dashboard"
    with pytest.raises(SessionError, match="no open question"):
        session.answer(0)
    # "the table is like this": the last table seen is explained again from the corrected game; the
    # clip's last play (seat 1's 10-deer) could also be seat 1 passing and seat 2 playing it: asked
    session.table_is_right()
    view = session.snapshot()["live"]
    assert view["state"] == "question", view
    assert view["question"]["candidates"][0] == "seat 1 plays 10-deer"
    # and as events, for a page to say them in its language
    first = view["question"]["options"][0]
    assert first["retract"] == 0 and [{k: v for k, v in e.items() if k != "at"} for e in first["events"]] == [
        {"type": "play", "seat": 1, "card": "10-deer"}]
    # the question as data: each candidate's steps (kind, seat, cards), and "something else"
    assert view["question"]["choices"][0]["steps"] == [{"kind": "play", "seat": 1, "cards": ["10-deer"], "detail": {}}]
    assert view["question"]["something_else"] == "something-else"
    session.answer(0)
    assert session.lines[-1]["source"] == "answer" and session.match.event_count == events
    assert session.lines[-1]["evidence"]["choice"] == 0
    assert session.snapshot()["live"]["state"] == "following"
    # asked again, a player says "something else": the camera commits nothing until the game entered by hand
    session.undo()
    session.table_is_right()
    asked = session.snapshot()["live"]
    assert asked["state"] == "question"
    lines = len(session.lines)
    session.answer(len(asked["question"]["candidates"]))
    assert session.snapshot()["live"]["state"] == "entry" and len(session.lines) == lines
    session.play({"type": "play", "seat": 1, "card": "10-deer"})  # entered by hand: followed from it
    assert session.snapshot()["live"]["state"] == "following" and session.lines[-1]["source"] == "dashboard"


def test_a_source_that_cannot_be_opened_is_said_so(tmp_path: Path) -> None:
    sessions = Sessions(Store(tmp_path / "h.sqlite3"))
    with pytest.raises(ValueError, match="nothing.mp4"):
        start_camera(sessions, str(tmp_path / "nothing.mp4"), FollowSettings("poka", 2))
    with pytest.raises(ValueError, match="3 names for 2 players"):
        start_camera(sessions, "0", FollowSettings("poka", 2, names=("a", "b", "c")))
    assert sessions.store.sessions() == []


def test_the_table_picture_and_its_video_stream(tmp_path: Path, clip: Path) -> None:
    import cv2
    import numpy as np

    from web import WebConfig, create_app

    session, feed = follow(tmp_path, clip)
    feed._thread.join(300)
    data = feed.picture()
    assert data is not None and data[:2] == b"\xff\xd8"
    picture = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    w_mm, h_mm = feed.layout.area_mm
    assert abs(picture.shape[1] - 0.8 * w_mm) <= 1 and abs(picture.shape[0] - 0.8 * h_mm) <= 1
    assert feed.stabiliser.cards  # there are cards to draw
    app = create_app(WebConfig(secret_key=b"k" * 32), Sessions(session.store))
    app.extensions["fudaba"]["sessions"]._open[session.id] = session
    r = app.test_client().get(f"/api/sessions/{session.id}/video.mjpeg", buffered=False)
    assert r.mimetype == "multipart/x-mixed-replace"
    chunk = next(iter(r.response))
    r.close()
    assert chunk.startswith(b"--fudabaframe\r\nContent-Type: image/jpeg\r\n") and b"\xff\xd8" in chunk
    other = Sessions(session.store).create("poka", ["a", "b"])
    assert app.test_client().get(f"/api/sessions/{other.id}/video.mjpeg").status_code == 404


def test_corners_set_by_hand_calibrate_a_table_without_markers(tmp_path: Path) -> None:
    """A camera that sees no markers: a player taps the play area's corners on its picture."""
    import time

    from tests.conftest import write_plain_table
    from tests.helpers import Browser
    from web import WebConfig, create_app

    frames = write_plain_table(tmp_path / "frames", 90)  # six seconds at 15 fps, no markers
    sessions = Sessions(Store(tmp_path / "h.sqlite3"))
    session, feed = start_camera(sessions, str(frames), FollowSettings("poka", 2, markers_within_s=None))
    try:
        app = create_app(WebConfig(secret_key=b"k" * 32), sessions)
        b = Browser(app.test_client())
        end = time.monotonic() + 20
        while feed.frames < 3 and time.monotonic() < end:
            time.sleep(0.05)
        r = b.get(f"/api/sessions/{session.id}/frame.jpg")
        assert r.status_code == 200 and r.data[:2] == b"\xff\xd8" and r.headers["X-Frame-Size"] == "640x480"
        assert not session.snapshot()["live"]["calibrated"]
        assert b.post(f"/api/sessions/{session.id}/corners", {"corners": [[1, 2]]}).status_code == 400
        r = b.post(f"/api/sessions/{session.id}/corners", {"corners": [[0, 0], [900, 0], [900, 480], [0, 480]]})
        assert r.status_code == 400 and "inside the 640 x 480 frame" in r.json["error"]
        r = b.post(f"/api/sessions/{session.id}/corners", {"corners": [[100, 80], [540, 80], [540, 400], [100, 400]]})
        assert r.status_code == 200
        while not feed.calibrated and time.monotonic() < end:
            time.sleep(0.05)
        view = session.snapshot()["live"]
        assert view["calibrated"] and view["calibration"] == "manual"
        other = sessions.create("poka", ["a", "b"])
        assert b.post(f"/api/sessions/{other.id}/corners", {"corners": [[0, 0]] * 4}).status_code == 409
        assert b.get(f"/api/sessions/{other.id}/frame.jpg").status_code == 404
    finally:
        feed.stop()
