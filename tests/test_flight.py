"""vision.flight, the flight recorder: frames kept within the time and byte bounds, in order with
their times; a saved clip's layout, its evidence round-tripping as JSON, its frames re-read by
vision.capture with the saved times; and its wiring into vision.replay (clips saved at a question,
a desync, a typed answer and, when asked for, a commit, on a short rendered Poka clip)."""

from __future__ import annotations

import json
import queue

import pytest

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")

from scorer.table import SeenCard, TableState, ZoneState  # noqa: E402
from tests.game_clips import write_clip  # noqa: E402
from vision.capture import open_source  # noqa: E402
from vision.flight import KINDS, FlightRecorder, jsonable, load_evidence  # noqa: E402


def _frame(i: int, size: tuple[int, int] = (320, 240)) -> np.ndarray:
    """A frame whose mean grey level tells ``i`` apart (after JPEG), with some texture."""
    w, h = size
    img = np.full((h, w, 3), (37 * i) % 200 + 20, np.uint8)
    cv2.putText(img, str(i), (10, h // 2), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (255, 255, 255), 3)
    return img


def _noise(rng: np.random.Generator, size: tuple[int, int] = (160, 120)) -> np.ndarray:
    w, h = size
    return rng.integers(0, 256, (h, w, 3), dtype=np.uint8)


# --------------------------------------------------------------------------- keeping frames
def test_frames_older_than_the_window_are_dropped_and_order_and_times_kept():
    rec = FlightRecorder(2.0, scale=1.0)
    for i in range(160):  # 20 s at 8 fps (times exact in binary)
        rec.push(_frame(i), i / 8)
    times = [f.t for f in rec.frames]
    assert times == [i / 8 for i in range(143, 160)]  # 17.875 … 19.875 s: the last 2 s, both ends kept
    assert rec.pushes == 160 and rec.push_s > 0
    assert rec.nbytes == sum(len(f.jpeg) for f in rec.frames)
    first = cv2.imdecode(np.frombuffer(rec.frames[0].jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert first.shape == (240, 320, 3)
    assert abs(float(first[5:40, 250:310].mean()) - ((37 * 143) % 200 + 20)) < 4  # the frame of t = 17.875 s


def test_the_byte_bound_drops_the_oldest_frames():
    rng = np.random.default_rng(1)
    one = len(cv2.imencode(".jpg", _noise(rng), (cv2.IMWRITE_JPEG_QUALITY, 80))[1])
    limit = int(3.5 * one)
    rec = FlightRecorder(60.0, max_bytes=limit, scale=1.0)
    for i in range(40):
        rec.push(_noise(rng), i / 10)
        assert rec.nbytes <= limit
        assert rec.nbytes == sum(len(f.jpeg) for f in rec.frames)
        assert rec.frames[-1].t == i / 10  # the newest is always kept
    n = len(rec.frames)
    assert 2 <= n <= 4 and [f.t for f in rec.frames] == [i / 10 for i in range(40 - n, 40)]
    tiny = FlightRecorder(60.0, max_bytes=100, scale=1.0)
    tiny.push(_noise(rng), 0.0)  # one frame over the whole bound is not kept
    assert tiny.frames == () and tiny.nbytes == 0


def test_frames_are_shrunk_by_scale_and_a_time_going_back_starts_afresh():
    rec = FlightRecorder(8.0, scale=0.5)
    rec.push(_frame(0, (1280, 720)), 5.0)
    rec.push(np.zeros((720, 1280), np.uint8), 5.1)  # grey frames too
    kept = cv2.imdecode(np.frombuffer(rec.frames[0].jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert kept.shape == (360, 640, 3)
    rec.push(_frame(1, (1280, 720)), 0.5)  # a new source
    assert [f.t for f in rec.frames] == [0.5]
    rec.clear()
    assert rec.frames == () and rec.nbytes == 0


@pytest.mark.parametrize("kwargs", [{"seconds": 0}, {"seconds": float("nan")}, {"max_bytes": 0}, {"scale": 0},
                                    {"scale": 1.5}, {"jpeg_quality": 0}, {"jpeg_quality": 101}])
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        FlightRecorder(**kwargs)


def test_commits_are_saved_only_when_asked_for(tmp_path):
    assert [FlightRecorder().wants(k) for k in KINDS] == [True, True, True, False]
    assert all(FlightRecorder(save_commits=True).wants(k) for k in KINDS)
    with pytest.raises(ValueError, match="unknown clip kind"):
        FlightRecorder().wants("crash")
    with pytest.raises(ValueError, match="unknown clip kind"):
        FlightRecorder().save(tmp_path, "crash", 1.0, {})
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- saving clips
def test_a_saved_clip_has_its_frames_times_and_evidence(tmp_path):
    rec = FlightRecorder(8.0, scale=0.5)
    times = [10.0 + 0.07 * i + (0.01 if i % 3 == 0 else 0.0) for i in range(12)]  # uneven, not index / fps
    for i, t in enumerate(times):
        rec.push(_frame(i, (640, 480)), t)
    table = TableState({"field": ZoneState((SeenCard((("08-moon", 0.9), ("08-geese", 0.1))),), 0)}, t=10.5)
    evidence = {
        "table": table, "expected": TableState(),
        "cost": np.float32(1.5), "count": np.int64(3), "ok": np.bool_(True), "vector": np.arange(3),
        "pair": (1, 2), "seats": {2, 1}, "never": float("inf"), "where": tmp_path / "x", 7: "seven",
        "best": "seat 1 plays 08-moon",
    }
    clip = rec.save(tmp_path / "clips", "desync", times[-1], evidence)
    assert clip == tmp_path / "clips" / f"0001-desync-{times[-1]:.2f}s" and clip.name == "0001-desync-10.77s"
    names = sorted(p.name for p in (clip / "frames").iterdir())
    assert names == [f"{i:06d}.jpg" for i in range(12)] + ["times.txt"]
    lines = (clip / "frames" / "times.txt").read_text().splitlines()
    assert [ln.split()[0] for ln in lines] == [f"{i:06d}.jpg" for i in range(12)]
    assert [float(ln.split()[1]) for ln in lines] == pytest.approx(times, abs=1e-6)
    assert (clip / "frames" / "000003.jpg").read_bytes() == rec.frames[3].jpeg

    doc = json.loads((clip / "evidence.json").read_text())
    assert doc == load_evidence(clip)
    assert (doc["kind"], doc["frames"], doc["scale"]) == ("desync", 12, 0.5)
    assert doc["t"] == pytest.approx(times[-1]) and doc["first_t"] == pytest.approx(times[0])
    assert doc["last_t"] == pytest.approx(times[-1])
    ev = doc["evidence"]
    assert TableState.from_json(ev["table"]).same_as(table) and ev["table"] == table.to_json()
    assert ev["expected"] == {"zones": {}}
    assert (ev["cost"], ev["count"], ev["ok"], ev["vector"], ev["pair"], ev["seats"]) == (1.5, 3, True, [0, 1, 2], [1, 2], [1, 2])
    assert ev["never"] is None and ev["where"] == str(tmp_path / "x") and ev["7"] == "seven"
    assert type(ev["count"]) is int and type(ev["cost"]) is float

    second = rec.save(tmp_path / "clips", "question", 11.0, {})
    assert second.name == "0002-question-11.00s"
    third = FlightRecorder().save(tmp_path / "clips", "commit", 12.5, {})  # another run: numbers go on
    assert third.name == "0003-commit-12.50s"
    assert json.loads((third / "evidence.json").read_text())["frames"] == 0
    assert rec.saved == [clip, second]
    assert not any(p.name.endswith(".partial") for p in (tmp_path / "clips").iterdir())


def test_evidence_that_is_not_json_leaves_no_clip(tmp_path):
    rec = FlightRecorder()
    rec.push(_frame(0), 0.0)
    with pytest.raises(TypeError, match=r"evidence\['bad'\]\[1\]: object"):
        rec.save(tmp_path, "question", 0.0, {"bad": [1, object()]})
    assert list(tmp_path.iterdir()) == [] and rec.saved == []
    with pytest.raises(TypeError):
        jsonable({"f": lambda: 1})


def test_a_clip_reads_back_as_an_image_folder_with_its_times(tmp_path):
    rec = FlightRecorder(1.0, scale=0.5)
    times = [3.0 + 0.066 * i for i in range(40)]
    for i, t in enumerate(times):
        rec.push(_frame(i, (640, 480)), t)
    clip = rec.save(tmp_path, "correction", times[-1], {"answer": 1})
    kept = [f.t for f in rec.frames]
    assert len(kept) == 16 and kept == times[-16:]  # 1 s at 15 fps, both ends
    source = open_source(str(clip / "frames"))
    got = []
    while (frame := source.read()) is not None:
        got.append(frame)
    source.close()
    assert len(got) == len(kept)
    assert [f.t for f in got] == pytest.approx(kept, abs=1e-6)
    assert all(f.image.shape == (240, 320, 3) for f in got)
    first = cv2.imdecode(np.frombuffer(rec.frames[0].jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(got[0].image, first)


# --------------------------------------------------------------------------- wiring into vision.replay
FPS = 10.0
FRAMES = 81  # 8.0 s of Poka seed 101: the deal settles at 7.8 s


@pytest.fixture(scope="module")
def poka(tmp_path_factory):
    pytest.importorskip("onnxruntime")
    from vision.recognise.recogniser import Recogniser

    path = tmp_path_factory.mktemp("flightclip") / "poka.mp4"
    write_clip(path, "poka", 2, 101, FRAMES, FPS)
    return path, Recogniser("hanafuda")


def _clip_times(clip):
    source = open_source(str(clip / "frames"))
    out = []
    while (frame := source.read()) is not None:
        out.append(frame.t)
    source.close()
    return out


def test_replay_saves_a_clip_at_a_guessed_question(poka, tmp_path):
    from scorer.tracker import TrackerOptions
    from vision.replay import replay_video

    path, recogniser = poka
    asking = TrackerOptions(margin=50.0, ask_after_s=0.0)  # every rival is close, asked at once
    s = replay_video(path, "poka", 2, recogniser=recogniser, tracker_options=asking, flight_dir=tmp_path / "fl")
    assert s["questions"] == 1 and s["guesses"] == 1
    clips = sorted((tmp_path / "fl").iterdir())
    assert [str(c) for c in clips] == s["flight_clips"] and len(clips) == 1
    clip = clips[0]
    doc = load_evidence(clip)
    assert clip.name.startswith("0001-question-") and doc["kind"] == "question"
    ev = doc["evidence"]
    assert ev["question"]["text"].startswith("Which happened?") and ev["question"]["choice"] == 0
    assert ev["question"]["source"] == "guess" and len(ev["question"]["candidates"]) >= 2
    assert [e["type"] for e in ev["events"]] == ["deal"] and ev["best"] == ev["question"]["candidates"][0]["events"]
    assert ev["committed"] == [] and ev["expected"] == {"zones": {}}  # as it stood before the answer
    assert "pile" in TableState.from_json(ev["table"]).zones and ev["state"] == "question"
    assert ev["header"]["game"] == "poka" and len(ev["header"]["players"]) == 2
    times = _clip_times(clip)
    assert len(times) == doc["frames"] == 79  # 0.0 … 7.8 s: every frame up to the question
    assert times[0] == pytest.approx(0.0) and times[-1] == pytest.approx(doc["t"]) == pytest.approx(7.8)
    assert s["stage_ms_per_frame"]["flight"] > 0


def test_replay_saves_a_clip_at_a_desync_and_the_clip_replays(poka, tmp_path, capsys):
    from fudaba.cli import main
    from scorer.tracker import TrackerOptions
    from vision.replay import replay_video

    path, recogniser = poka
    strict = TrackerOptions(max_cost=-1.0, desync_after_s=0.0)  # no table fits well enough after the deal
    s = replay_video(path, "poka", 2, recogniser=recogniser, tracker_options=strict, flight_dir=tmp_path / "fl")
    assert s["desyncs"] == 1 and len(s["flight_clips"]) == 1
    doc = load_evidence(s["flight_clips"][0])
    ev = doc["evidence"]
    assert doc["kind"] == "desync" and ev["state"] == "out-of-sync"
    assert ev["desync"]["text"].startswith("Out of sync") and ev["desync"]["differences"]
    assert ev["best"] is not None and ev["table"]["zones"]
    # the clip's frames replay through the command as an image folder with their times
    out = tmp_path / "again.jsonl"
    frames = s["flight_clips"][0] + "/frames"
    assert main(["replay", frames, "--game", "poka", "-o", str(out), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["frames"] == doc["frames"] and again["seconds"] == pytest.approx(doc["last_t"] - doc["first_t"], abs=1e-3)


def test_commit_clips_only_with_flight_commits(poka, tmp_path, capsys):
    from fudaba.cli import main
    from vision.replay import replay_video

    path, recogniser = poka
    s = replay_video(path, "poka", 2, recogniser=recogniser, flight_dir=tmp_path / "none")
    assert s["events"] == 1 and s["flight_clips"] == [] and s["questions"] == s["desyncs"] == 0
    assert main(["replay", str(path), "--game", "poka", "-o", str(tmp_path / "r.jsonl"), "--flight", str(tmp_path / "fl"),
                 "--flight-commits", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert len(summary["flight_clips"]) == summary["events"] == 1
    doc = load_evidence(summary["flight_clips"][0])
    assert doc["kind"] == "commit" and [e["type"] for e in doc["evidence"]["events"]] == ["deal"]
    assert [c["event"] for c in doc["evidence"]["committed"]] == doc["evidence"]["events"]
    assert doc["evidence"]["expected"]["zones"]  # the table after the deal


def test_a_typed_answer_saves_a_question_then_a_correction(poka, tmp_path):
    from scorer.tracker import TrackerOptions
    from vision.replay import follow, resolve

    path, recogniser = poka
    typed: queue.Queue[int] = queue.Queue()
    typed.put(1)  # waits until the question is open
    s = follow(open_source(str(path)), resolve("poka", 2), recogniser=recogniser, typed=typed,
               tracker_options=TrackerOptions(margin=50.0, ask_after_s=0.0), flight_dir=tmp_path / "fl")
    kinds = [load_evidence(c)["kind"] for c in s["flight_clips"]]
    assert kinds == ["question", "correction"] and s["answered"] == 1
    asked, answered = (load_evidence(c)["evidence"] for c in s["flight_clips"])
    assert "choice" not in asked["question"]
    assert answered["question"]["choice"] == 1 and answered["question"]["source"] == "answer"
    assert answered["events"] == [s["committed"][0]["event"]]
