"""Bad input is a 4xx with its reason, never a 500; an import is all or nothing; ``at`` is checked;
one server per history (issue 51, points 4 and 5)."""

from __future__ import annotations

import gc
import json
import os
import signal
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from fudaba.history_lock import HistoryInUse, HistoryLock
from fudaba.store import Store
from scorer import record as records
from scorer.errors import RecordError
from scorer.simulate import long_record
from tests.helpers import Browser, make_app, sigint_default

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def browser(tmp_path: Path) -> Browser:
    return Browser(make_app(tmp_path).test_client())


def start(b: Browser, game: str = "poka", players: list[str] | None = None) -> int:
    r = b.post("/api/sessions", {"game": game, "players": players or ["Aki", "Ben"]})
    assert r.status_code == 201, r.json
    return r.json["id"]


def post_raw(b: Browser, url: str, text: str):  # noqa: ANN201
    return b.c.post(url, data=text, headers={"X-CSRF-Token": b.token, "Content-Type": "application/json"})


def stored(path: Path) -> tuple[int, int]:
    """(sessions, lines) in the history file ``path``, read by a connection of its own."""
    with sqlite3.connect(path) as db:
        return (db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0],
                db.execute("SELECT COUNT(*) FROM lines").fetchone()[0])


# ---------------------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1" + "0" * 400])
def test_a_number_that_is_not_finite_is_refused_with_its_reason_anywhere_in_a_body(browser: Browser,
                                                                                  number: str) -> None:
    sid = start(browser)
    for url, text in [(f"/api/sessions/{sid}/event", '{"event": {"type": "deal", "at": N}}'),
                      (f"/api/sessions/{sid}/event", '{"event": {"type": "pass", "seat": N}}'),
                      (f"/api/sessions/{sid}/deal", '{"dealer": N, "face_up": {}}'),
                      (f"/api/sessions/{sid}/edit", '{"index": N, "event": {}}'),
                      ("/api/sessions", '{"game": "poka", "players": ["a", "b"], "options": {"stones-to-win": N}}'),
                      ("/api/counter", '{"session": N}')]:
        text = text.replace("N", number)
        r = post_raw(browser, url, text)
        assert r.status_code == 400, (url, text, r.status_code)
        assert "not JSON" in r.json["error"] and number[:5].lstrip("-") in r.json["error"], r.json
    assert browser.get(f"/api/sessions/{sid}/state").json["seq"] == 0


def test_a_body_nested_100000_deep_is_a_400(browser: Browser) -> None:
    sid = start(browser)
    for text in ["[" * 100_000, '{"event": ' * 100_000, '{"a": [' * 50_000]:
        r = post_raw(browser, f"/api/sessions/{sid}/event", text)
        assert r.status_code == 400 and "nested too deeply" in r.json["error"], r.json


def test_a_body_that_is_not_utf8_or_not_an_object_is_a_400(browser: Browser) -> None:
    sid = start(browser)
    r = browser.c.post(f"/api/sessions/{sid}/event", data=b'{"event": "\xff"}',
                       headers={"X-CSRF-Token": browser.token, "Content-Type": "application/json"})
    assert r.status_code == 400 and "UTF-8" in r.json["error"]
    for text in ["[]", '"x"', "3"]:
        r = post_raw(browser, f"/api/sessions/{sid}/event", text)
        assert r.status_code == 400 and "JSON object" in r.json["error"]


@pytest.mark.parametrize("sid", ["9" * 20, str(2**63), str(2**63 - 1), "0", "1" * 100])
def test_a_session_id_beyond_what_the_history_holds_is_a_404(browser: Browser, sid: str) -> None:
    start(browser)
    for path in ["state", "stream", "record", "frame.jpg", "video.mjpeg", "events/0/alternatives"]:
        r = browser.get(f"/api/sessions/{sid}/{path}")
        assert r.status_code == 404 and "no session" in r.json["error"], (path, r.status_code)
    for path in ["event", "undo", "confirm", "deal", "edit", "answer", "table", "corners", "pick"]:
        r = browser.post(f"/api/sessions/{sid}/{path}", {"event": {"type": "pass", "seat": 1}})
        assert r.status_code in (400, 404), (path, r.status_code)
    assert browser.get(f"/session/{sid}").status_code == 404


def test_an_index_beyond_any_event_is_a_400(browser: Browser) -> None:
    sid = start(browser)
    r = browser.get(f"/api/sessions/{sid}/events/{'9' * 25}/alternatives")
    assert r.status_code == 400 and "no event" in r.json["error"]
    r = browser.post(f"/api/sessions/{sid}/edit", {"index": 2**62, "event": {"type": "pass", "seat": 1}})
    assert r.status_code == 400 and "no event" in r.json["error"]


# ---------------------------------------------------------------------------------------- at
def test_at_is_checked_or_set_by_the_server(browser: Browser) -> None:
    sid = start(browser, "bagaji", ["Aki", "Ben", "Chie"])
    first = {"type": "first-player", "seat": 1}
    for at, why in [(-5, "before the game's start"), (-0.1, "before the game's start"),
                    (3600, "ahead of the server's clock"), (1e300, "ahead of the server's clock"),
                    ("soon", "a number"), (True, "a number"), ([1], "a number")]:
        r = browser.post(f"/api/sessions/{sid}/event", {"event": {**first, "at": at}})
        assert r.status_code == 400 and why in r.json["error"], (at, r.json)
    assert browser.get(f"/api/sessions/{sid}/state").json["seq"] == 0
    assert browser.post(f"/api/sessions/{sid}/event", {"event": {**first, "at": 30}}).json == {"seq": 1}
    record = browser.get(f"/api/sessions/{sid}/record").get_data(as_text=True).splitlines()
    assert json.loads(record[1])["at"] == 30
    assert browser.get(f"/api/sessions/{sid}/state").json["clock"]["elapsed_s"] == 30.0  # Bagaji's clock reads it
    r = browser.post(f"/api/sessions/{sid}/undo")
    assert r.status_code == 200
    assert browser.post(f"/api/sessions/{sid}/event", {"event": {**first, "at": None}}).status_code == 200
    line = json.loads(browser.get(f"/api/sessions/{sid}/record").get_data(as_text=True).splitlines()[-1])
    assert isinstance(line["at"], float) and 0 <= line["at"] < 60  # set by the server: seconds since the start
    r = browser.post(f"/api/sessions/{sid}/event",
                     {"event": {"type": "replace", "event": {**first, "at": -5}}})
    assert r.status_code == 400 and "before the game's start" in r.json["error"]


# ---------------------------------------------------------------------------------------- imports
def test_an_import_that_fails_at_line_7_leaves_nothing(browser: Browser, tmp_path: Path) -> None:
    text = long_record(40)
    lines = text.splitlines()
    bad = "\n".join([*lines[:6], '{"type": "discard", "seat": 9, "card": "AS"}', *lines[6:]]) + "\n"
    r = browser.c.post("/api/import", data=bad.encode(), headers={"X-CSRF-Token": browser.token})
    assert r.status_code == 400 and r.json["error"].startswith("upload:7: "), r.json
    assert browser.get("/api/sessions").json == []
    assert stored(tmp_path / "h.sqlite3") == (0, 0)
    for tail, why in [('{"type": "draw", "seat": 1, "card": "AS", "at": NaN}', "NaN"),
                      ('{"type": "draw", "seat": 1, "card": "AS", "at": 1e400}', "1e400"),
                      ('{"type": "draw", "seat": 1, "card": "AS", "at": -5}', "'at'"),
                      ("[" * 100_000, "nested too deeply"),
                      ('{"type": "undo", "count": ' + "9" * 30 + "}", "larger than any integer")]:
        r = browser.c.post("/api/import", data=("\n".join(lines[:6]) + "\n" + tail + "\n").encode(),
                           headers={"X-CSRF-Token": browser.token})
        assert r.status_code == 400 and r.json["error"].startswith("upload:7: ") and why in r.json["error"], r.json
    assert stored(tmp_path / "h.sqlite3") == (0, 0)
    r = browser.c.post("/api/import", data=text.encode(), headers={"X-CSRF-Token": browser.token})
    assert r.status_code == 201 and stored(tmp_path / "h.sqlite3") == (1, 40)


def test_an_import_of_thousands_of_lines_is_one_transaction(tmp_path: Path) -> None:
    text = long_record(3000)
    store = Store(tmp_path / "h.sqlite3")
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    sid = store.import_record(text, "long.jsonl")
    assert [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")] == ["BEGIN IMMEDIATE", "COMMIT"]
    assert stored(tmp_path / "h.sqlite3") == (1, 3000)
    lines = store.lines(sid)
    assert [line["seq"] for line in lines] == list(range(1, 3001))
    assert all(line["source"] == "import" for line in lines)
    assert store.export(sid).splitlines()[1:] == [json.dumps({**json.loads(raw), "seq": k, "source": "import"})
                                                 for k, raw in enumerate(text.splitlines()[1:], start=1)]
    compact = "\r\n".join(json.dumps(json.loads(raw), separators=(",", ":")) + " " for raw in text.splitlines())
    other = Store(tmp_path / "c.sqlite3")
    assert other.export(other.import_record(compact, "compact.jsonl")) == store.export(sid)  # stored as written
    statements.clear()
    with pytest.raises(RecordError, match=r"^bad\.jsonl:3002: "):
        store.import_record(text + '{"type": "discard", "seat": 9, "card": "AS"}\n', "bad.jsonl")
    assert statements == []  # refused while replaying: nothing was written at all
    assert stored(tmp_path / "h.sqlite3") == (1, 3000)
    empty = Store(tmp_path / "e.sqlite3")
    with pytest.raises(RecordError, match=r"^bad\.jsonl:3002: "):
        empty.import_record(text + '{"type": "draw", "seat": 1, "card": "AS", "at": Infinity}\n', "bad.jsonl")
    assert stored(tmp_path / "e.sqlite3") == (0, 0)
    assert gc.isenabled()  # paused while replaying only


def test_an_imported_record_is_replayed_once_import_and_first_open_together(browser: Browser,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    text = long_record(300)
    applied: list[int] = []
    real = records.apply_line

    def counting(match, spec, obj):  # noqa: ANN001, ANN202
        applied.append(1)
        return real(match, spec, obj)

    monkeypatch.setattr(records, "apply_line", counting)
    r = browser.c.post("/api/import", data=text.encode(), headers={"X-CSRF-Token": browser.token})
    assert r.status_code == 201
    state = browser.get(f"/api/sessions/{r.json['id']}/state").json
    assert state["seq"] == 300 and state["status"]["events"] == 300
    assert len(applied) == 300


def test_an_insert_that_fails_midway_rolls_the_whole_import_back(tmp_path: Path) -> None:
    text = long_record(500)
    store = Store(tmp_path / "h.sqlite3")
    store._db.execute("CREATE TRIGGER no_400 BEFORE INSERT ON lines WHEN NEW.seq = 400 "
                      "BEGIN SELECT RAISE(ABORT, 'disk full, say'); END")
    with pytest.raises(sqlite3.IntegrityError, match="disk full"):
        store.import_record(text, "long.jsonl")
    assert stored(tmp_path / "h.sqlite3") == (0, 0)


# ---------------------------------------------------------------------------------------- one server
def test_the_lock_refuses_a_second_holder_naming_the_first(tmp_path: Path) -> None:
    history = tmp_path / "h.sqlite3"
    with HistoryLock(history, "fudaba run"):
        with pytest.raises(HistoryInUse) as info:
            HistoryLock(history, "fudaba run").acquire()
        assert f"the history {history} is in use by fudaba run (pid {os.getpid()}), started " in str(info.value)
        assert str(info.value).endswith("; stop it first")
    with HistoryLock(history):  # let go on leaving: the next one takes it
        pass


def test_two_apps_over_one_history_in_one_process_still_build(tmp_path: Path) -> None:
    from fudaba.serve import build

    a, b = build(tmp_path / "h.sqlite3", None), build(tmp_path / "h.sqlite3", None)
    assert a.test_client().get("/api/sessions").status_code == 200
    assert b.test_client().get("/api/sessions").status_code == 200


def test_a_second_server_on_the_same_history_refuses_to_start_saying_which_process_holds_it(tmp_path: Path) -> None:
    data = str(tmp_path / "h.sqlite3")
    args = [sys.executable, "-m", "fudaba", "run", "--data", data, "--port", "0", "--no-browser"]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO,
                             preexec_fn=sigint_default)
    try:
        assert first.stdout is not None
        assert first.stdout.readline().startswith("fudaba: history in ")
        assert first.stdout.readline().startswith("fudaba: dashboard at ")
        second = subprocess.run(args, capture_output=True, text=True, cwd=REPO, timeout=30)
        assert second.returncode != 0
        assert f"is in use by fudaba run (pid {first.pid}), started " in second.stderr, second.stderr
        assert "stop it first" in second.stderr
    finally:
        os.kill(first.pid, signal.SIGINT)
        assert first.wait(20) == 0
    again = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO,
                             preexec_fn=sigint_default)
    try:
        assert again.stdout is not None
        assert again.stdout.readline().startswith("fudaba: history in ")  # the lock went with the first
        url = again.stdout.readline().split("dashboard at ", 1)[1].strip()
        with urllib.request.urlopen(url + "api/sessions", timeout=10) as r:  # serving (SIGINT now stops it)
            assert json.load(r) == []
    finally:
        os.kill(again.pid, signal.SIGINT)
        assert again.wait(20) == 0
