"""The session runtime and its SQLite history: check, commit, publish; resume after a kill."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fudaba.session import QUEUE_SIZE, Session, SessionError, Sessions
from fudaba.store import Store, StoreError
from scorer import record as records
from tests.helpers import enter_deal

REPO = Path(__file__).resolve().parent.parent


def new(tmp_path: Path, game: str = "poka", players: tuple[str, ...] = ("Aki", "Ben")) -> Session:
    return Sessions(Store(tmp_path / "h.sqlite3")).create(game, players)


def play_round(s: Session, rng: random.Random, limit: int = 3000) -> None:
    """Play the session by tapping legal events at random until one more round is settled."""
    settled = len(s.match.results)
    for _ in range(limit):
        if len(s.match.results) > settled or s.match.is_over:
            return
        manual = s.snapshot()["manual"]
        if manual["deal"] is not None:
            enter_deal(s, rng)
        else:
            assert manual["legal"], s.match.expecting()
            s.play(rng.choice(manual["legal"])["event"])
    raise AssertionError(f"no settlement after {limit} events")


@pytest.mark.parametrize("game,players", [("poka", ("Aki", "Ben")), ("hachi-hachi", ("A", "B", "C")),
                                          ("bagaji", ("A", "B", "C"))])
def test_a_manual_round_of_each_game_reaches_its_settlement_and_replays_from_the_store(
        tmp_path: Path, game: str, players: tuple[str, ...]) -> None:
    s = new(tmp_path, game, players)
    play_round(s, random.Random(7))
    snap = s.snapshot()
    assert snap["results"] and snap["status"]["totals"] == list(s.match.totals)
    # the stored lines are a record that replays to the same settlement
    rec = records.loads(s.store.export(s.id), "export")
    assert [r.changes for r in rec.replay().results] == [r.changes for r in s.match.results]
    assert [line["seq"] for _, line in rec.entries] == list(range(1, len(rec.entries) + 1))
    assert all(line["source"] == "dashboard" for _, line in rec.entries)


def test_an_illegal_event_is_refused_with_its_reason_and_nothing_is_stored(tmp_path: Path) -> None:
    s = new(tmp_path)
    with pytest.raises(SessionError) as exc:
        s.play({"type": "play", "seat": 1, "card": "01-crane"})
    assert exc.value.status == 409 and "deal" in str(exc.value)
    with pytest.raises(SessionError) as exc:
        s.play({"type": "no-such-event"})
    assert exc.value.status == 409
    with pytest.raises(SessionError) as exc:
        s.submit({"type": "undo", "seq": 4})
    assert exc.value.status == 400
    assert s.seq == 0 and s.store.lines(s.id) == [] and s.match.event_count == 0


def test_a_deal_with_the_wrong_number_of_face_up_cards_is_refused(tmp_path: Path) -> None:
    s = new(tmp_path, "hachi-hachi", ("A", "B", "C"))
    with pytest.raises(SessionError, match="6 cards face up"):
        s.deal(1, {"field": ["01-crane"]})
    with pytest.raises(SessionError, match="lays no cards as table"):
        s.deal(1, {"field": ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"],
                   "table": ["08-moon"]})
    with pytest.raises(SessionError, match="dealt: a seat from 1 to 3"):
        s.deal(9, {"field": ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"]})
    assert s.seq == 0


def test_subscribers_get_every_change_in_order_after_it_is_stored(tmp_path: Path) -> None:
    s = new(tmp_path)
    sub = s.subscribe()
    enter_deal(s, random.Random(1))
    ev = s.snapshot()["manual"]["legal"][0]["event"]
    s.play(ev)
    s.undo()
    got = [sub.get(1.0) for _ in range(3)]
    assert [g["seq"] for g in got] == [1, 2, 3]
    # each was in the store when it was published
    assert [line["seq"] for line in s.store.lines(s.id)] == [1, 2, 3]
    assert got[2]["log"][-1]["text"] == "undo" and got[2]["status"]["events"] == 1
    assert sub.get(0.05) is None
    s.unsubscribe(sub)
    assert s.watchers == 0


def test_a_subscriber_that_falls_behind_is_dropped_not_waited_for(tmp_path: Path) -> None:
    s = new(tmp_path)
    slow, fast = s.subscribe(), s.subscribe()
    enter_deal(s, random.Random(1))
    for _ in range(QUEUE_SIZE + 2):
        s.confirm()
        fast.get(1.0)
    assert slow.dropped and not fast.dropped
    assert s.watchers == 1


def test_editing_a_past_event_applies_the_later_ones_again_or_refuses(tmp_path: Path) -> None:
    s = new(tmp_path, "hachi-hachi", ("A", "B", "C"))
    s.deal(1, {"field": ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"]})
    for seat in (1, 2, 3):
        s.play({"type": "declare", "seat": seat, "play": True})
    # declare seat 2 retires instead: the later declare (seat 3) still applies
    s.edit(2, {"type": "declare", "seat": 2, "play": False})
    assert [getattr(e, "play", None) for e in s.match.events] == [None, True, False, True]
    assert records.loads(s.store.export(s.id)).replay().events == s.match.events
    # an edit after which a later event is illegal changes nothing
    before = (s.seq, s.match.events)
    with pytest.raises(SessionError):
        s.edit(1, {"type": "declare", "seat": 2, "play": True})
    assert (s.seq, s.match.events) == before
    with pytest.raises(SessionError, match="no event 9"):
        s.edit(9, {"type": "declare", "seat": 2, "play": True})


def test_a_session_resumes_from_the_history_as_it_was(tmp_path: Path) -> None:
    s = new(tmp_path, "hachi-hachi", ("A", "B", "C"))
    play_round(s, random.Random(3))
    snap = s.snapshot()
    s.store.close()
    again = Sessions(Store(tmp_path / "h.sqlite3")).get(s.id)
    assert {**again.snapshot(), "rev": 0} == {**snap, "rev": 0}


def test_a_killed_runtime_loses_nothing_it_committed(tmp_path: Path) -> None:
    """A process that commits lines and is killed with SIGKILL: every line it reported stored is
    there when the history is opened again, and the session resumes from it."""
    db = tmp_path / "h.sqlite3"
    script = textwrap.dedent(f"""
        import random, sys, time
        sys.path.insert(0, {str(REPO)!r})
        from fudaba.session import Sessions
        from fudaba.store import Store
        from tests.helpers import enter_deal
        s = Sessions(Store({str(db)!r})).create("poka", ["Aki", "Ben"])
        rng = random.Random(5)
        enter_deal(s, rng)
        while True:
            legal = s.snapshot()["manual"]["legal"]
            if not legal:
                break
            seq = s.play(rng.choice(legal)["event"])
            print(seq, flush=True)
            if seq >= 6:
                time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=REPO)
    told = []
    assert proc.stdout is not None
    for line in proc.stdout:
        told.append(int(line))
        if told[-1] >= 6:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert told and told[-1] >= 6, told  # killed while running, after committing six lines
    s = Sessions(Store(db)).get(1)
    assert s.seq >= told[-1] and [line["seq"] for line in s.lines][:len(told) + 1] == list(range(1, len(told) + 2))
    assert s.match.event_count == s.seq


def test_the_store_exports_and_imports_records(tmp_path: Path) -> None:
    store = Store(tmp_path / "h.sqlite3")
    sample = (REPO / "fudaba" / "samples" / "hachi-hachi-seed-1910.jsonl").read_text(encoding="utf-8")
    sid = store.import_record(sample, "sample.jsonl")
    rec = records.loads(store.export(sid), "export")
    assert [r.changes for r in rec.replay().results] == [r.changes for r in records.loads(sample).replay().results]
    info = store.sessions()[0]
    assert info.id == sid and info.game == "hachi-hachi" and info.lines == len(rec.entries)
    with pytest.raises(records.RecordError, match=r"bad\.jsonl:2:"):
        store.import_record(sample.splitlines()[0] + "\n{\"type\": \"play\", \"seat\": 1}\n", "bad.jsonl")
    assert len(store.sessions()) == 1
    with pytest.raises(StoreError, match="no session 99"):
        store.lines(99)


def test_a_file_that_is_not_a_history_is_said_so(tmp_path: Path) -> None:
    bad = tmp_path / "not.sqlite3"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a fudaba history"):
        Store(bad)


def test_a_store_line_the_rules_refuse_is_reported_with_its_seq(tmp_path: Path) -> None:
    s = new(tmp_path)
    enter_deal(s, random.Random(2))
    s.store.close()
    db = sqlite3.connect(tmp_path / "h.sqlite3")
    db.execute("INSERT INTO lines VALUES (1, 2, ?)", (json.dumps({"type": "play", "seat": 2, "card": "XX", "seq": 2}),))
    db.commit()
    with pytest.raises(SessionError, match="line seq 2"):
        Sessions(Store(tmp_path / "h.sqlite3")).get(1)


def test_events_get_the_time_since_the_match_started_and_bagaji_s_clock_ends_the_session(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from scorer.games import game

    spec = game("bagaji")
    match = spec.match(["A", "B", "C"], spec.options())
    started = (datetime.now(UTC) - timedelta(minutes=121)).isoformat(timespec="seconds")
    sessions = Sessions(Store(tmp_path / "h.sqlite3"))
    s = sessions.create_from(records.Header.for_match(match, spec.default_ruleset, start=started))
    clock = s.snapshot()["clock"]
    assert clock == {"start": started, "elapsed_s": 0.0, "limit_s": 7200}
    play_round(s, random.Random(7))
    assert all(line["at"] >= 121 * 60 for line in s.lines if line["type"] not in records.CORRECTIONS)
    assert s.snapshot()["clock"]["elapsed_s"] >= 121 * 60
    assert s.match.is_over  # the round that passed the two hours ended the session
    assert new(tmp_path / "x", "poka").snapshot()["clock"] is None


def test_a_reader_without_the_lock_never_sees_a_change_before_it_is_stored(tmp_path: Path, monkeypatch) -> None:
    """Issue 49: a change is staged on a fork of the match and put in place only once stored (lines
    and seq first, the match last); the published match and lines are never changed in place."""
    import threading

    from tests.waiting import LONG

    s = new(tmp_path)
    enter_deal(s, random.Random(1))
    old_match, old_lines, old_seq = s.match, s.lines, s.seq
    old_events = old_match.events
    storing, go_on = threading.Event(), threading.Event()
    append = s.store.append

    def paused_append(*args, **kwargs) -> None:
        storing.set()
        assert go_on.wait(LONG)
        append(*args, **kwargs)

    monkeypatch.setattr(s.store, "append", paused_append)
    outcome: list[object] = []
    ev = s.snapshot()["manual"]["legal"][0]["event"]
    t = threading.Thread(target=lambda: outcome.append(s.play(ev)))
    t.start()
    assert storing.wait(LONG)  # being stored, the lock held: a reader of the bare attributes sees the old game
    assert s.match is old_match and s.match.events == old_events and s.lines is old_lines and s.seq == old_seq
    go_on.set()
    t.join(LONG)
    assert outcome == [old_seq + 1] and s.seq == old_seq + 1 and s.lines[-1]["seq"] == s.seq
    assert s.match.event_count == len(old_events) + 1 and s.store.lines(s.id) == s.lines
    assert old_match.events == old_events and len(old_lines) == old_seq  # never changed in place


def test_a_refused_change_never_touches_the_session(tmp_path: Path) -> None:
    s = new(tmp_path, "hachi-hachi", ("A", "B", "C"))
    s.deal(1, {"field": ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"]})
    match, lines, snap = s.match, s.lines, s.snapshot()
    # the first line is legal, the second is not: neither is taken, and nothing is even republished
    with pytest.raises(SessionError):
        s.submit_many([{"type": "declare", "seat": 1, "play": True}, {"type": "declare", "seat": 1, "play": True}])
    with pytest.raises(SessionError):
        s.submit_many([{"type": "declare", "seat": 1, "play": True}, "not a line"])
    assert s.match is match and s.lines is lines and s.snapshot() is snap and s.seq == 1
    assert s.match.event_count == 1 and s.store.lines(s.id) == lines


def test_a_store_that_fails_mid_change_leaves_the_session_as_the_store_holds_it(tmp_path: Path, monkeypatch) -> None:
    s = new(tmp_path, "hachi-hachi", ("A", "B", "C"))
    s.deal(1, {"field": ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"]})
    append, calls = s.store.append, []

    def failing(session: int, line: dict, finished: bool = False) -> None:
        calls.append(line["seq"])
        if len(calls) == 2:
            raise sqlite3.OperationalError("disk I/O error")
        append(session, line, finished)

    monkeypatch.setattr(s.store, "append", failing)
    with pytest.raises(sqlite3.OperationalError):
        s.submit_many([{"type": "declare", "seat": 1, "play": True}, {"type": "declare", "seat": 2, "play": True}])
    assert calls == [2, 3] and s.seq == 2 and [line["seq"] for line in s.lines] == [1, 2]
    assert s.match.event_count == 2 and s.store.lines(s.id) == s.lines and s.snapshot()["seq"] == 2


def test_a_subscription_starts_from_its_own_snapshot_and_its_queue_only_goes_forward(tmp_path: Path) -> None:
    s = new(tmp_path)
    enter_deal(s, random.Random(1))
    sub = s.subscribe()
    assert sub.first is s.snapshot() and sub.first["seq"] == 1
    s.confirm()
    s.refresh()
    got = [sub.get(1.0), sub.get(1.0)]
    assert [g["seq"] for g in got] == [2, 2] and sub.first["rev"] < got[0]["rev"] < got[1]["rev"]
