"""``fudaba replay`` / ``fudaba track`` and vision.replay: a short rendered Poka clip followed into a
record that ``fudaba score`` reads; answers files; Ctrl-C; bad input (exit 2 with a message)."""

from __future__ import annotations

import json
import queue

import pytest

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")
pytest.importorskip("onnxruntime")

from fudaba.cli import main  # noqa: E402
from scorer import record as records  # noqa: E402
from tests.game_clips import write_clip  # noqa: E402
from vision.answers import Answer, AnswerBook, load_answers  # noqa: E402
from vision.replay import ReplayError, follow, resolve  # noqa: E402

FPS = 10.0
FRAMES = 110  # 11 s: the deal and the table card of Poka seed 101


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("clip") / "poka.mp4"
    return path, write_clip(path, "poka", 2, 101, FRAMES, FPS)


@pytest.fixture(scope="module")
def recogniser():
    from vision.recognise.recogniser import Recogniser

    return Recogniser("hanafuda")


def test_replay_writes_a_record_that_score_reads(clip, tmp_path, capsys):
    path, video = clip
    out = tmp_path / "tracked.jsonl"
    assert main(["replay", str(path), "--game", "poka", "-o", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    assert "poka.mp4: 10 s in" in captured.err  # progress every 10 s of video
    s = json.loads(captured.out)
    assert s["record"] == str(out) and s["frames"] == FRAMES and not s["interrupted"]
    assert s["seconds"] == pytest.approx((FRAMES - 1) / FPS, abs=0.01)
    assert 0 < s["recognitions"] < FRAMES / 5 and s["states"] > s["recognitions"]
    assert s["speed_x_real_time"] == pytest.approx(s["seconds"] / s["wall_seconds"], rel=0.02)
    assert s["gate_ms_per_frame"] > 0 and s["recognise_ms_per_reading"] > 0
    rec = records.load(str(out))
    assert (rec.header.game, rec.header.ruleset, rec.header.deck) == ("poka", "seed", "hanafuda")
    assert [p.seat for p in rec.header.players] == [1, 2]
    lines = [obj for _, obj in rec.entries]
    assert len(lines) == s["events"] >= 1 and all(obj["source"] == "camera" for obj in lines)
    assert [obj["seq"] for obj in lines] == list(range(1, len(lines) + 1))
    assert all(0.0 < obj["evidence"]["t"] < FRAMES / FPS for obj in lines)
    deal = lines[0]
    assert deal["type"] == "deal" and deal["table"] == video.playout.events[0].table  # the table card dealt
    assert main(["score", str(out)]) == 0
    assert f"record: {out} ({len(lines)} events)" in capsys.readouterr().out
    assert main(["replay", str(path), "--game", "poka", "-o", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err and records.load(str(out)).entries == rec.entries


class _Interrupting:
    """A source that raises KeyboardInterrupt (Ctrl-C) after ``n`` frames."""

    def __init__(self, source, n: int) -> None:
        self.source, self.n, self.closed = source, n, False

    def read(self, timeout=None):
        if self.n == 0:
            raise KeyboardInterrupt
        self.n -= 1
        return self.source.read(timeout)

    def close(self) -> None:
        self.closed = True
        self.source.close()


def test_ctrl_c_ends_cleanly_with_the_record_intact(clip, recogniser, tmp_path):
    from vision.capture import open_source

    path, _ = clip
    out = tmp_path / "cut.jsonl"
    source = _Interrupting(open_source(str(path)), 90)
    s = follow(source, resolve("poka", 2), recogniser=recogniser, out=out)
    assert s["interrupted"] and source.closed and s["frames"] == 90
    rec = records.load(str(out))  # every line whole: the record reads
    assert len(rec.entries) == s["events"]
    rec.replay()


def test_answers_files(tmp_path):
    good = tmp_path / "answers.jsonl"
    good.write_text('# answers\n{"choice": 1}\n\n{"t": 30.5, "choice": 0}\n{"choice": 2}\n')
    assert load_answers(good) == [Answer(1), Answer(0, 30.5), Answer(2)]
    book = AnswerBook(load_answers(good))
    assert book.for_question(3.0) == 1
    assert book.for_question(10.0) is None  # the next line waits for 30.5 s: this one is guessed
    assert book.for_question(31.0) == 0
    assert book.for_question(32.0) == 2
    assert book.for_question(40.0) is None
    for text in ('{"choice": -1}', '{"pick": 1}', "not json", '{"t": "soon", "choice": 1}', '{"choice": true}'):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text + "\n")
        with pytest.raises(ReplayError, match=r"bad\.jsonl:1"):
            load_answers(bad)


def test_typed_answers_count_from_one():
    from vision.answers import typed_numbers

    class Lines:
        def __iter__(self):
            return iter(["2\n", "x\n", "1\n"])

    q = typed_numbers(Lines())
    assert q.get(timeout=2) == 1 and q.get(timeout=2) == 0
    with pytest.raises(queue.Empty):
        q.get(timeout=0.2)


def test_typed_t_says_the_table_is_right():
    from vision.answers import ASSERT_TABLE, typed_numbers

    q = typed_numbers(iter(["t\n", "Table\n", "3\n"]))
    assert [q.get(timeout=2) for _ in range(3)] == [ASSERT_TABLE, ASSERT_TABLE, 2]


def test_track_runs_a_paced_file_and_stops_after_seconds(clip, capsys):
    path, _ = clip
    assert main(["track", str(path), "--game", "poka", "--seconds", "2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["game"] == "poka" and 1.5 <= summary["seconds"] <= 2.2 and not summary["interrupted"]


@pytest.fixture(scope="module")
def no_markers(tmp_path_factory):
    path = tmp_path_factory.mktemp("plain") / "plain.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (320, 240))
    for k in range(30):
        writer.write(np.full((240, 320, 3), 90 + k, np.uint8))
    writer.release()
    return path


@pytest.mark.parametrize("argv, message", [
    (["replay", "missing.mp4", "--game", "poka", "-o", "x.jsonl"], "no such video: missing.mp4"),
    (["replay", "{clip}", "--game", "chess", "-o", "x.jsonl"], "unknown game 'chess'"),
    (["replay", "{clip}", "--game", "poka", "--players", "5", "-o", "x.jsonl"], "Poka seats 2 players, not 5"),
    (["replay", "{clip}", "--game", "poka", "--ruleset", "nope", "-o", "x.jsonl"], "unknown poka ruleset 'nope'"),
    (["replay", "{clip}", "--game", "poka", "--deck", "playing", "-o", "x.jsonl"], "uses the hanafuda deck"),
    (["replay", "{clip}", "--game", "poka", "--option", "oops", "-o", "x.jsonl"], "--option needs KEY=VALUE"),
    (["replay", "{clip}", "--game", "poka", "--answers", "none.jsonl", "-o", "x.jsonl"], "cannot read the answers file"),
    (["replay", "{plain}", "--game", "poka", "--markers-within", "1", "-o", "x.jsonl"],
     "no calibration markers seen in the first 1 s of"),
    (["track", "{plain}", "--game", "poka", "--markers-within", "0.5"], "print the mat with `fudaba mat --game poka --players 2`"),
])
def test_bad_input_exits_2_with_a_message(argv, message, clip, no_markers, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = [a.format(clip=clip[0], plain=no_markers) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fudaba {argv[0]}: ") and message in err
    assert not (tmp_path / "x.jsonl").exists()  # nothing followed: no record left behind
