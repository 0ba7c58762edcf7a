"""Game records: the schema, corrections, malformed input, export and replay for every game."""

from __future__ import annotations

import json
import random
from importlib import resources

import jsonschema
import pytest

from scorer import record
from scorer.errors import RecordError
from scorer.games import all_games, game
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
