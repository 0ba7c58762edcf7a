"""Game records: the schema, corrections, malformed input, export and replay for every game."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import typing
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from scorer import record
from scorer.errors import RecordError, ScorerError
from scorer.events import Event
from scorer.games import all_games, game
from scorer.match import Player
from scorer.record_schema import dumps as schema_text
from scorer.simulate import play_match, play_round

SCHEMA = json.loads(resources.files("scorer").joinpath("data", "record.schema.json").read_text())
SHORT = {"hachi-hachi": {"rounds": 3}, "bagaji": {"end-after-rounds": 2}, "poka": {"stones-to-win": 3}}


def simulated(name: str, seed: int = 1):
    spec = game(name)
    options = spec.options(None, SHORT[name])
    match = spec.match([f"P{i + 1}" for i in range(spec.min_players)], options)
    play_match(match, random.Random(seed))
    return spec, match


def test_committed_schema_is_current():
    """`python -m scorer.record_schema > scorer/data/record.schema.json` regenerates it."""
    assert resources.files("scorer").joinpath("data", "record.schema.json").read_text() == schema_text()


@pytest.mark.parametrize("name", ["hachi-hachi", "bagaji", "poka"])
def test_exported_records_validate_and_replay(name):
    spec, match = simulated(name)
    text = record.export(match, spec.default_ruleset).dumps()
    validator = jsonschema.Draft202012Validator(SCHEMA)
    lines = text.splitlines()
    for line in lines:
        validator.validate(json.loads(line))
    header_only = jsonschema.Draft202012Validator({"$ref": "#/$defs/header", "$defs": SCHEMA["$defs"]})
    header_only.validate(json.loads(lines[0]))
    again = record.loads(text).replay()
    assert again.results == match.results and again.totals == match.totals


def test_undo_and_replace_corrections():
    spec, match = simulated("hachi-hachi", 3)
    rec = record.export(match, "seed-1910")
    entries = list(rec.entries)
    # take back the 5th event, then re-apply it through 'replace' of a wrong one
    idx = next(i for i, (_, obj) in enumerate(entries) if obj["type"] == "play")
    wrong = dict(entries[idx][1])
    lines = [json.dumps(rec.header.to_json())]
    lines += [json.dumps(obj) for _, obj in entries[:idx]]
    lines.append(json.dumps(entries[idx][1]))
    lines.append(json.dumps({"type": "undo"}))
    lines.append(json.dumps(wrong))
    lines.append(json.dumps({"type": "replace", "event": entries[idx][1]}))
    lines += [json.dumps(obj) for _, obj in entries[idx + 1 :]]
    again = record.loads("\n".join(lines)).replay()
    assert again.results == match.results


def test_undo_count_too_large_names_the_line():
    spec, match = simulated("poka")
    rec = record.export(match, "seed")
    text = json.dumps(rec.header.to_json()) + "\n" + json.dumps({"type": "undo", "count": 3}) + "\n"
    with pytest.raises(RecordError) as info:
        record.loads(text, "x.jsonl").replay()
    assert str(info.value).startswith("x.jsonl:2: undo")


@pytest.mark.parametrize(
    "mutate,where,words",
    [
        (lambda h: {**h, "format": "other"}, 1, "not a fudaba record"),
        (lambda h: {**h, "version": 9}, 1, "unsupported record version"),
        (lambda h: {**h, "game": "chess"}, 1, "unknown game"),
        (lambda h: {**h, "ruleset": "nope"}, 1, "unknown hachi-hachi ruleset"),
        (lambda h: {**h, "options": {"kan-size": 7}}, 1, "kan-size"),
        (lambda h: {**h, "players": [{"seat": 2, "name": "x"}]}, 1, "player 1"),
    ],
)
def test_bad_headers(mutate, where, words):
    _spec, match = simulated("hachi-hachi")
    rec = record.export(match, "seed-1910")
    text = json.dumps(mutate(rec.header.to_json())) + "\n"
    with pytest.raises(RecordError) as info:
        record.loads(text, "r.jsonl").replay()
    assert str(info.value).startswith(f"r.jsonl:{where}:") and words in str(info.value)


def test_bad_event_lines_name_their_line():
    _spec, match = simulated("hachi-hachi")
    rec = record.export(match, "seed-1910")
    head = json.dumps(rec.header.to_json())
    first = rec.entries[0][1]
    cases = [
        ("[1, 2]", "each event must be a JSON object"),
        (json.dumps({"type": "teleport"}), "unknown hachi-hachi event type"),
        (json.dumps({**first, "dealer": "one"}), "expected an integer"),
        (json.dumps({**first, "extra": 1}), "unknown field"),
        (json.dumps({"type": "play", "seat": 1, "card": "01-crane"}), "a round starts with a deal"),
    ]
    for line, words in cases:
        with pytest.raises(RecordError) as info:
            record.loads(head + "\n" + line + "\n", "g.jsonl").replay()
        assert str(info.value).startswith("g.jsonl:2: "), str(info.value)
        assert words in str(info.value)


def test_every_game_registered():
    assert [g.name for g in all_games()] == ["hachi-hachi", "bagaji", "poka"]
    for g in all_games():
        assert g.default_ruleset in g.rulesets
        assert g.summary


def test_undo_whole_round_for_every_game():
    for g in all_games():
        options = g.options(None, SHORT[g.name])
        match = g.match([f"P{i + 1}" for i in range(g.min_players)], options)
        rng = random.Random(9)
        before = match.state
        played = play_round(match, rng)
        for _ in played:
            match.undo()
        assert match.state == before


# --------------------------------------------------------------------------- record-level keys
def _with_meta(rec):
    """Every line of ``rec`` with a source, a seq (gaps allowed) and evidence on every other one."""
    sources = list(record.SOURCES)
    entries = []
    for i, (lineno, obj) in enumerate(rec.entries):
        line = {**obj, "source": sources[i % len(sources)], "seq": 2 * i + 1}
        if i % 2:
            line["evidence"] = {"frames": [i * 1.5, i * 1.5 + 0.4], "confidence": 0.97, "note": "seen"}
        entries.append((lineno, line))
    return record.Record(rec.header, entries)


@pytest.mark.parametrize("name", ["hachi-hachi", "bagaji", "poka"])
def test_source_seq_evidence_are_kept_validated_and_not_seen_by_the_engines(name):
    spec, match = simulated(name)
    rec = _with_meta(record.export(match, spec.default_ruleset))
    text = rec.dumps()
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for line in text.splitlines():
        validator.validate(json.loads(line))
    again = record.loads(text)
    assert again.dumps() == text
    assert [obj for _, obj in again.entries] == [obj for _, obj in rec.entries]
    replayed = again.replay()
    assert replayed.events == match.events and replayed.results == match.results
    bare, meta = record.split_line(again.entries[1][1])
    assert set(bare) & set(record.META_KEYS) == set()
    assert meta == record.LineMeta("button", 3, rec.entries[1][1]["evidence"])
    assert meta.to_json() == {k: rec.entries[1][1][k] for k in record.META_KEYS}


def test_corrections_carry_record_level_keys_and_confirm_changes_nothing():
    _spec, match = simulated("poka", 2)
    rec = record.export(match, "seed")
    first, second = rec.entries[0][1], rec.entries[1][1]
    lines = [
        rec.header.to_json(),
        {**first, "source": "import", "seq": 1},
        {"type": "confirm", "source": "button", "seq": 2},
        {**second, "source": "guess", "seq": 3, "evidence": {"question": "who played?", "p": 0.6}},
        {"type": "undo", "source": "dashboard", "seq": 4},
        {**second, "source": "answer", "seq": 5},
        {"type": "replace", "event": second, "source": "camera", "seq": 6, "evidence": {}},
        {"type": "confirm", "seq": 7},
    ]
    text = "\n".join(json.dumps(obj) for obj in lines) + "\n"
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for obj in lines:
        validator.validate(obj)
    assert record.loads(text).replay().events == match.events[:2]
    one = record.loads("\n".join(json.dumps(obj) for obj in lines[:2]) + "\n").replay()
    two = record.loads("\n".join(json.dumps(obj) for obj in lines[:3]) + "\n").replay()
    assert one.state == two.state and one.events == two.events


@pytest.mark.parametrize(
    "extra,words",
    [
        ({"source": "robot"}, "'source' must be one of camera, button, dashboard, import, answer, guess, table, resync; got \"robot\""),
        ({"source": 3}, "'source' must be one of camera, button, dashboard, import, answer, guess, table, resync; got 3"),
        ({"source": None}, "'source' must be one of camera, button, dashboard, import, answer, guess, table, resync; got null"),
        ({"seq": 0}, "'seq' must be a positive integer; got 0"),
        ({"seq": -2}, "'seq' must be a positive integer; got -2"),
        ({"seq": "4"}, "'seq' must be a positive integer; got \"4\""),
        ({"seq": 1.5}, "'seq' must be a positive integer; got 1.5"),
        ({"seq": True}, "'seq' must be a positive integer; got true"),
        ({"evidence": [0.9]}, "'evidence' must be a JSON object; got a list"),
        ({"evidence": "seen"}, "'evidence' must be a JSON object; got \"seen\""),
        ({"evidence": None}, "'evidence' must be a JSON object; got null"),
    ],
)
def test_bad_record_level_keys_name_their_line_and_fail_the_schema(extra, words):
    _spec, match = simulated("hachi-hachi")
    rec = record.export(match, "seed-1910")
    lines = [json.dumps(rec.header.to_json()), json.dumps(rec.entries[0][1]), json.dumps({**rec.entries[1][1], **extra})]
    with pytest.raises(RecordError) as info:
        record.loads("\n".join(lines) + "\n", "m.jsonl")
    assert str(info.value) == f"m.jsonl:3: {words}"
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid({**rec.entries[1][1], **extra})
    with pytest.raises(RecordError, match=r"^m\.jsonl:3: "):  # apply_line checks them as well
        record.Record(rec.header, [(2, rec.entries[0][1]), (3, {**rec.entries[1][1], **extra})], "m.jsonl").replay()


def test_seq_must_increase_and_keys_stay_out_of_a_replaced_event():
    _spec, match = simulated("hachi-hachi")
    rec = record.export(match, "seed-1910")
    head, first, second = (json.dumps(rec.header.to_json()), rec.entries[0][1], rec.entries[1][1])
    text = "\n".join([head, json.dumps({**first, "seq": 5}), json.dumps({"type": "confirm"}),
                      json.dumps({**second, "seq": 5})]) + "\n"
    with pytest.raises(RecordError) as info:
        record.loads(text, "s.jsonl")
    assert str(info.value) == "s.jsonl:4: 'seq' 5 does not follow 5 (line 2): sequence numbers must increase"
    text = "\n".join([head, json.dumps(first), json.dumps({"type": "replace", "event": {**first, "seq": 1}})]) + "\n"
    with pytest.raises(RecordError) as info:
        record.loads(text, "s.jsonl").replay()
    assert str(info.value).startswith("s.jsonl:3: deal: unknown field(s) seq")


def test_confirm_needs_an_event_and_takes_no_fields():
    _spec, match = simulated("bagaji")
    rec = record.export(match, "seed")
    head = json.dumps(rec.header.to_json())
    for line, words in [({"type": "confirm"}, "confirm: there is no event to confirm"),
                        ({"type": "confirm", "event": 3}, "confirm: unknown field(s) event")]:
        with pytest.raises(RecordError) as info:
            record.loads(head + "\n" + json.dumps(line) + "\n", "c.jsonl").replay()
        assert str(info.value) == f"c.jsonl:2: {words}"


# --------------------------------------------------------------------------- observer and full records
@pytest.mark.parametrize("name", ["hachi-hachi", "bagaji", "poka"])
def test_observer_and_full_records_stay_distinct_and_score_alike(name):
    """A simulation writes full deals (ids); the same game written as an observer sees it (hands and
    stock as counts) replays to the same settlements, and stays an observer record on dumping."""
    spec, match = simulated(name)
    full = record.export(match, spec.default_ruleset)
    deals = [obj for _, obj in full.entries if obj["type"] == "deal"]
    assert deals and all(all(isinstance(h, list) for h in d["hands"]) for d in deals)
    observer_lines = []
    for lineno, obj in full.entries:
        if obj["type"] == "deal":
            obj = {**obj, "hands": [len(h) for h in obj["hands"]]}
            obj["stock"] = None if name == "poka" else len(obj["stock"])
        observer_lines.append((lineno, obj))
    observer = record.Record(full.header, observer_lines)
    text = observer.dumps()
    again = record.loads(text)
    assert again.dumps() == text
    assert all(isinstance(h, int) for _, obj in again.entries if obj["type"] == "deal" for h in obj["hands"])
    assert again.replay().results == match.results


# --------------------------------------------------------------------------- hardening
def test_deep_nesting_is_a_record_error_at_its_line():
    _spec, match = simulated("poka")
    head = json.dumps(record.export(match, "seed").header.to_json())
    for line in ("[" * 50_000 + "]" * 50_000, '{"type": "play", "seat": ' + "[" * 50_000 + "]" * 50_000 + "}"):
        with pytest.raises(RecordError) as info:
            record.loads(head + "\n\n" + line + "\n", "deep.jsonl")
        assert str(info.value) == "deep.jsonl:3: not valid JSON: nested too deeply to read"


def test_undecodable_bytes_are_reported_at_their_line(tmp_path):
    _spec, match = simulated("poka")
    text = record.export(match, "seed").dumps().encode()
    lines = text.split(b"\n")
    lines[3] = lines[3].replace(b'"type"', b'"ty\xe9pe"')
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(RecordError) as info:
        record.load(path)
    assert str(info.value) == f"{path}:4: not UTF-8 text: byte 0xe9 at byte column 5"


def test_only_newline_ends_a_line():
    """A player named with U+2028 (written raw by ensure_ascii=False) does not split the header."""
    spec, match = simulated("poka")
    rec = record.export(match, "seed")
    named = record.Header(rec.header.game, rec.header.ruleset, rec.header.options,
                          (Player(1, "A\u2028B"), Player(2, "C\x1cD")), rec.header.deck, rec.header.start)
    text = record.Record(named, rec.entries).dumps().replace("\n", "\r\n")
    again = record.loads(text)
    assert again.header.players[0].name == "A\u2028B" and again.replay().totals == match.totals


def test_replay_resolves_type_hints_once_per_event_class(monkeypatch):
    spec, match = simulated("hachi-hachi")
    text = record.export(match, spec.default_ruleset).dumps()
    record.loads(text).replay()

    resolved = []
    real = typing.get_type_hints

    def counted(obj, *args, **kwargs):
        resolved.append(obj)
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(typing, "get_type_hints", counted)
    assert record.loads(text).replay().results == match.results
    assert [c for c in resolved if isinstance(c, type) and issubclass(c, Event)] == []


def test_corrections_do_not_copy_the_event_list(monkeypatch):
    spec, match = simulated("bagaji")
    rec = record.export(match, spec.default_ruleset)
    lines = []
    for lineno, obj in rec.entries:
        lines += [(lineno, obj), (lineno, {"type": "undo"}), (lineno, obj), (lineno, {"type": "replace", "event": obj}),
                  (lineno, {"type": "confirm"})]

    def copied(_self):
        raise AssertionError("a correction read Match.events (a copy of every event)")

    monkeypatch.setattr(type(match), "events", property(copied))
    replayed = record.Record(rec.header, lines).replay()
    assert replayed.event_count == len(rec.entries) and replayed.results == match.results


# --------------------------------------------------------------------------- the writer
def test_writer_puts_every_line_on_disk_before_append_returns(tmp_path):
    spec, match = simulated("poka", 5)
    header = record.Header.for_match(match, "seed", "2026-01-01T00:00:00+00:00")
    path = tmp_path / "live.jsonl"
    with record.RecordWriter(path, header) as writer:
        assert path.read_text(encoding="utf-8") == json.dumps(header.to_json(), ensure_ascii=False) + "\n"
        for i, event in enumerate(match.events):
            evidence = {"frames": [i, i + 0.5], "confidence": 0.9} if i % 3 == 0 else None
            seq = writer.append(event, source="camera", evidence=evidence)
            assert seq == i + 1 == writer.seq
            with open(path, "rb") as fh:  # a separate reader sees the whole line already
                last = fh.read().split(b"\n")[-2]
            assert json.loads(last) == {**event.to_json(), "source": "camera", "seq": seq,
                                        **({"evidence": evidence} if evidence else {})}
        writer.append({"type": "confirm"}, source="button")
    with pytest.raises(ValueError, match="closed"):
        writer.append({"type": "confirm"})
    rec = record.load(path)
    assert rec.dumps() == writer.record.dumps() == path.read_text(encoding="utf-8")
    for line in path.read_text(encoding="utf-8").splitlines():
        jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(line))
    assert rec.replay().results == match.results == writer.record.replay().results


def test_writer_refuses_bad_lines_and_existing_files(tmp_path):
    spec, match = simulated("poka")
    header = record.Header.for_match(match, "seed")
    path = tmp_path / "r.jsonl"
    with record.RecordWriter(path, header, fsync=True) as writer:
        with pytest.raises(ScorerError, match="'source' must be one of"):
            writer.append(match.events[0], source="robot")
        with pytest.raises(ScorerError, match="'evidence' must be a JSON object; got a list"):
            writer.append(match.events[0], evidence=[1])  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="carries seq"):
            writer.append({**match.events[0].to_json(), "seq": 9})
        with pytest.raises(ValueError, match="string 'type'"):
            writer.append({"seat": 1})
        with pytest.raises(ValueError, match="cannot be written as JSON"):
            writer.append(match.events[0], evidence={"confidence": float("nan")})
        assert writer.append(match.events[0]) == 1
    assert len(path.read_text().splitlines()) == 2
    with pytest.raises(RecordError) as info:
        record.RecordWriter(path, header)
    assert str(info.value).startswith(f"{path}: already exists")


def test_writer_continues_a_record(tmp_path):
    spec, match = simulated("hachi-hachi", 4)
    header = record.Header.for_match(match, "seed-1910")
    path = tmp_path / "live.jsonl"
    events = match.events
    with record.RecordWriter(path, header) as writer:
        for event in events[:10]:
            writer.append(event, source="camera")
    with open(path, "ab") as fh:  # a writer killed inside its write left half a line
        fh.write(json.dumps(events[10].to_json()).encode()[:17])
    later = record.Header.for_match(match, "seed-1910", "2027-05-05T10:00:00+00:00")
    with record.RecordWriter(path, later, append=True) as writer:
        assert writer.discarded == json.dumps(events[10].to_json()).encode()[:17]
        assert writer.seq == 10 and writer.record.header.start == header.start
        for event in events[10:]:
            writer.append(event)
    rec = record.load(path)
    assert [obj["seq"] for _, obj in rec.entries] == list(range(1, len(events) + 1))
    assert [lineno for lineno, _ in rec.entries] == [lineno for lineno, _ in writer.record.entries]
    assert rec.replay().results == match.results
    other = record.Header.for_match(match, "standard")
    with pytest.raises(RecordError) as info:
        record.RecordWriter(path, other, append=True)
    assert str(info.value) == f"{path}:1: the record is of another game setup (ruleset differ)"
    with record.RecordWriter(tmp_path / "new.jsonl", header, append=True) as fresh:  # absent: created
        assert fresh.append(events[0]) == 1
    with record.RecordWriter(path, append=True) as same:  # the file's own header
        assert same.seq == len(events)


WRITER_CHILD = """
import random, sys, time
from scorer import record
from scorer.games import game
from scorer.simulate import play_match
spec = game("hachi-hachi")
match = spec.match(["A", "B", "C"], spec.options(None, {}))
play_match(match, random.Random(11))
header = record.Header.for_match(match, "seed-1910", "2026-01-01T00:00:00+00:00")
with record.RecordWriter(sys.argv[1], header) as writer:
    for event in match.events:
        print(writer.append(event, source="camera", evidence={"confidence": 0.9}), flush=True)
    time.sleep(60)
"""


def test_writer_loses_nothing_when_killed(tmp_path):
    path = tmp_path / "killed.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", WRITER_CHILD, str(path)], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[1])
    try:
        committed = 0
        while committed < 40:
            line = proc.stdout.readline()
            assert line, "the writer process ended early"
            committed = int(line)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
        proc.stdout.close()
    spec = game("hachi-hachi")
    match = spec.match(["A", "B", "C"], spec.options(None, {}))
    play_match(match, random.Random(11))
    with record.RecordWriter(path, append=True) as writer:  # cuts a line the kill left unfinished
        rec = writer.record
        assert writer.seq >= committed and len(rec.entries) == writer.seq
    replayed = record.load(path).replay()
    assert replayed.events == match.events[: writer.seq]
