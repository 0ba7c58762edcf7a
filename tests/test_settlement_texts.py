"""A round's settlement in the players' language (issue 50, point 3): every ``RoundResult`` line has
a note (:class:`scorer.match.Note`: a key and the values it names), and each game's ``texts.json``
says every key in English, Japanese and Russian under ``settlement.lines`` (ids said by
``settlement.names``). ``web/static/gametext.js`` (``settlementLines``) fills the templates as
:func:`say` does here, a seat by the player's name; the English template filled as the engine names
seats gives the engine's line exactly."""

from __future__ import annotations

import functools
import json
import random
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from scorer.bagaji import hands as bagaji_hands
from scorer.cards import Card, all_cards, card, deck
from scorer.games import game
from scorer.hachihachi import teyaku as hh_teyaku
from scorer.hachihachi.settlement import Ending, RoundFacts, captured_points, header, settlement
from scorer.hachihachi.teyaku import plain_class
from scorer.match import Match, Note, RoundResult
from scorer.poka import hands as poka_hands
from scorer.simulate import play_round

ROOT = Path(__file__).resolve().parent.parent
GAMETEXT = ROOT / "web" / "static" / "gametext.js"
LANGUAGES = ("en", "ja", "ru")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")  # as gametext.js fills them
CITATION = re.compile(r"\(rules [A-Z]\d+(?:\.\d+)*(?:, [A-Z]\d+(?:\.\d+)*)*\)")
PLAYERS = ("Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus")


def texts(name: str) -> dict[str, Any]:
    data: dict[str, Any] = game(name).description.texts["settlement"]
    return data


SeatWord = Callable[[int], str]
SeatsWord = Callable[[Sequence[int]], str]


def engine_seats(name: str, match: Match) -> tuple[SeatWord, SeatsWord]:
    """How the game's engine names seats in its lines: Hachi-hachi "seat 2" and "seats 1, 2, 3",
    the others by the player's name."""
    if name == "hachi-hachi":
        return (lambda s: f"seat {s}"), (lambda ss: "seats " + ", ".join(map(str, ss)))
    names = [p.name for p in match.players]
    return (lambda s: names[s - 1]), (lambda ss: ", ".join(names[s - 1] for s in ss))


def say(value: Any, section: dict[str, Any], seats: tuple[SeatWord, SeatsWord], lang: str = "en") -> str:
    """A note's value (its JSON) in words, as gametext.js says it with ``seats`` for seatName."""
    if isinstance(value, bool) or value is None:
        raise AssertionError(f"a note's value is a number, text, list or object, not {value!r}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ("、" if lang == "ja" else ", ").join(say(v, section, seats, lang) for v in value)
    if "key" in value:
        return fill(value, section, seats, lang)
    (kind, v), = value.items()
    if kind == "seat":
        return seats[0](v)
    if kind == "seats":
        return seats[1](v)
    if kind == "signed":
        return f"{v:+d}"
    assert kind == "name", value
    return str(section["names"][v][lang])


def fill(note: dict[str, Any], section: dict[str, Any], seats: tuple[SeatWord, SeatsWord], lang: str = "en") -> str:
    """A note (its JSON) as its template in ``lang`` says it."""
    template: str = section["lines"][note["key"]][lang]
    values = note["values"]
    return PLACEHOLDER.sub(lambda m: say(values[m.group(1)], section, seats, lang), template)


def nested(note: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The note and every note among its values."""
    yield note
    for v in note["values"].values():
        for item in v if isinstance(v, list) else [v]:
            if isinstance(item, dict) and "key" in item:
                yield from nested(item)


def names_used(note: dict[str, Any]) -> Iterator[str]:
    for v in note["values"].values():
        for item in v if isinstance(v, list) else [v]:
            if isinstance(item, dict) and "name" in item:
                yield item["name"]


# ---------------------------------------------------------------------------------- simulation
def configurations(name: str) -> Iterator[tuple[int, str, dict[str, Any], int]]:
    """(seats, ruleset, overrides, matches) covering what changes a game's lines."""
    if name == "hachi-hachi":
        for seats in range(3, 8):
            yield seats, "seed-1910", {}, 1
            yield seats, "standard", {"rounds": 12}, 4
        yield 4, "standard", {"who-pays": "split", "rounds": 6}, 3
        yield 4, "standard", {"two-players": "split", "rounds": 6}, 2
        yield 3, "standard", {"who-pays": "split", "rounds": 6}, 3
        yield 5, "seed-1910", {"who-pays": "split"}, 1
    elif name == "poka":
        yield 2, "seed", {}, 60
        yield 2, "seed", {"extra-jokers": True, "stones-to-win": 3}, 60
        yield 2, "seed", {"all-out-first-turn-only": True}, 20
    else:
        for deck in ("playing-2x", "hanafuda-1x", "hanafuda-2x"):
            for seats in (2, 3, 4, 6):
                yield seats, "seed", {"deck": deck, "end-after-rounds": 6}, 1
        yield 3, "seed", {"stock-exhausted": "no-winner", "end-after-rounds": 10}, 2
        yield 3, "seed", {"failed-stop-others-score": "nothing", "stop-limit": 25, "end-after-rounds": 10}, 2
        yield 3, "seed", {"four-and-pair-score": -50, "ready-required": False, "end-after-rounds": 10}, 2


@functools.cache
def simulated(name: str) -> tuple[tuple[RoundResult, tuple[SeatWord, SeatsWord]], ...]:
    """Every settled round of random matches in each configuration, with how the engine names seats."""
    spec = game(name)
    out = []
    seed = 0
    for seats, ruleset, overrides, matches in configurations(name):
        if not spec.min_players <= seats <= spec.max_players:
            continue
        for _ in range(matches):
            seed += 1
            match = spec.match(list(PLAYERS[:seats]), spec.options(ruleset, overrides))
            rng = random.Random(seed)
            while not match.is_over and len(match.results) < 12:
                play_round(match, rng)
            style = engine_seats(name, match)
            out.extend((r, style) for r in match.results)
    return tuple(out)


# ---------------------------------------------------------------------------------- rare lines
Said_line = tuple[str, Note]


def _hh_facts(**kw: Any) -> RoundFacts:
    base: dict[str, Any] = dict(n_seats=3, dealer=1, active=(1, 2, 3), retired=(), multiplier=1, captured={},
                                dealt={}, claims=(), buyouts=(), sage=(), yaku={})
    base.update(kw)
    return RoundFacts(**base)


def _hanafuda() -> list[Card]:
    return [c for c in all_cards("hanafuda").values() if c.kind in ("bright", "animal", "ribbon", "plain")]


def _all_eights() -> dict[int, tuple[str, ...]]:
    """Captures of exactly 88 points each: 4 brights + 8 plains; a bright, 6 animals, a ribbon and
    3 plains; 3 animals, 9 ribbons and 13 plains."""
    by_kind: dict[str, list[str]] = {}
    for c in _hanafuda():
        by_kind.setdefault(c.kind, []).append(c.id)
    b, a, r, p = by_kind["bright"], by_kind["animal"], by_kind["ribbon"], by_kind["plain"]
    piles = {1: (*b[:4], *p[:8]), 2: (b[4], *a[:6], r[0], *p[8:11]), 3: (*a[6:], *r[1:], *p[11:])}
    assert all(captured_points(pile) == 88 for pile in piles.values())
    return piles


def rare_hachihachi() -> list[Said_line]:
    """Hand-built rounds for the Hachi-hachi lines random play reaches seldom or never: the special
    cases, sage interplay, claims the dealt hand does not bear out, a round nobody plays."""
    spec = game("hachi-hachi")
    cards = [c.id for c in _hanafuda()]
    plains = [c for c in cards if captured_points([c]) == 1]
    by_points = sorted(cards, key=lambda c: -captured_points([c]))
    teshi = ("01-crane", "01-ribbon", "01-plain-1", "01-plain-2", "02-warbler", "03-curtain", "04-plain-1")
    sanbon = ("01-crane", "01-ribbon", "01-plain-1", "02-warbler", "03-curtain", "04-plain-1", "05-plain-1")
    january = tuple(c for c in cards if card(c).month == 1)
    sixteen = tuple(c for c in cards if plain_class(c) == "plain")
    rest = [c for c in cards if c not in sixteen]
    rounds = [
        (_hh_facts(captured={1: tuple(c for c in cards if c not in plains[:2]), 2: (plains[0],), 3: (plains[1],)}),
         Ending("exhausted")),
        (_hh_facts(captured={1: tuple(rest[::2]), 2: sixteen, 3: tuple(rest[1::2])}), Ending("exhausted")),
        (_hh_facts(captured=_all_eights()), Ending("exhausted")),
        (_hh_facts(captured={1: (), 2: (), 3: ()}, sage=(2,), yaku={1: 7, 2: 5, 3: 0}), Ending("shobu", 1)),
        (_hh_facts(captured={1: (), 2: (), 3: ()}, sage=(2,), yaku={1: 7, 2: 5, 3: 0}), Ending("cancel", 2)),
        (_hh_facts(captured={1: (), 2: (), 3: ()}, sage=(2,), yaku={1: 7, 2: 5, 3: 0}), Ending("exhausted")),
        (_hh_facts(captured={1: (), 2: (), 3: ()}, dealt={1: teshi}, claims=((1, "karasu"), (1, "kuttsuki"))),
         Ending("exhausted")),
        (_hh_facts(captured={1: january, 2: (), 3: ()}, dealt={1: sanbon}, claims=((1, "sanbon"),)),
         Ending("exhausted")),
        (_hh_facts(captured={1: tuple(by_points[:8]), 2: tuple(by_points[8::2]), 3: tuple(by_points[9::2])},
                   claims=((1, "tan-ichi"),)), Ending("exhausted")),
        (_hh_facts(n_seats=5, retired=(4,), multiplier=2, captured={1: (), 2: (), 3: ()}, buyouts=((5, sanbon),)),
         Ending("exhausted")),
    ]
    out: list[Said_line] = []
    for who_pays in ("each", "split"):
        opts = spec.options("standard", {"who-pays": who_pays})
        for facts, ending in rounds:
            done = settlement(facts, ending, opts)
            out.extend(zip(done.lines, done.notes, strict=True))
    for active in ((1, 2, 3), ()):
        for ending in (Ending("exhausted"), Ending("shobu", 2)):
            out.append(header(active, ending))
    return out


def rare_poka() -> list[Said_line]:
    """Both players show a starting hand: of equal value (both void, the round played out at
    random), or one higher (the other outvalued; buttakuri, the highest, never is)."""
    spec = game("poka")
    ids = [c.id for c in _hanafuda()]
    month = {m: [c for c in ids if card(c).month == m] for m in range(1, 13)}
    four = (*month[3], month[4][0], month[5][0])
    pairs_a = (*month[6][:2], *month[7][:2], *month[8][:2])
    pairs_b = (*month[9][:2], *month[10][:2], *month[12][:2])
    wild = ("01-crane", "01-ribbon", "02-warbler", month[6][0], month[7][0], month[8][0])
    january = ("01-ribbon", "01-plain-1", "01-plain-2", month[6][0], month[7][0], month[8][0])
    out: list[Said_line] = []
    deals = ((pairs_a, pairs_b), (four, pairs_a), (wild, four), (four, january))
    for seed, (h1, h2) in enumerate(deals):
        match = spec.match(list(PLAYERS[:2]), spec.options())
        table = month[11][0]
        stock = tuple(c for c in ids if c not in (*h1, *h2, table))
        for ev in ({"type": "deal", "dealer": 1, "hands": [h1, h2], "table": table, "stock": stock},
                   {"type": "claim", "seat": 1, "cards": h1}, {"type": "claim", "seat": 2, "cards": h2}):
            match.apply(match.EVENTS.from_json(ev))
        if not match.results:
            play_round(match, random.Random(seed))
        out.extend(zip(match.results[0].lines, match.results[0].notes, strict=True))
    return out


def rare_bagaji() -> list[Said_line]:
    """A win by drawing four of a kind and a pair (scored only with ``four-and-pair-score``)."""
    spec = game("bagaji")
    match = spec.match(list(PLAYERS[:2]), spec.options("seed", {"four-and-pair-score": -50}))
    h1, h2 = ("5H", "5S", "5D", "5C", "9H"), ("2H", "3S", "7D", "JC", "QH")
    stock = Counter(deck(match.deck).cards)
    stock.subtract(h1 + h2)
    for ev in ({"type": "first-player", "seat": 1}, {"type": "deal", "hands": [h1, h2], "stock": sorted(stock.elements())},
               {"type": "draw", "seat": 1, "card": "9S"}, {"type": "win", "seat": 1}):
        match.apply(match.EVENTS.from_json(ev))
    return list(zip(match.results[0].lines, match.results[0].notes, strict=True))


RARE: dict[str, Callable[[], list[Said_line]]] = {"hachi-hachi": rare_hachihachi, "poka": rare_poka,
                                                   "bagaji": rare_bagaji}
"""Hand-built rounds for lines random play seldom gives, checked like the simulated ones."""


@functools.cache
def rare(name: str) -> tuple[Said_line, ...]:
    return tuple(RARE[name]()) if name in RARE else ()


def all_notes(name: str) -> list[dict[str, Any]]:
    """Every note of the simulated and hand-built rounds, as JSON."""
    return [n for r, _ in simulated(name) for n in r.to_json()["notes"]] + [n.to_json() for _, n in rare(name)]


# ---------------------------------------------------------------------------------- tests
GAMES = ("hachi-hachi", "poka", "bagaji")


@pytest.mark.parametrize("name", GAMES)
def test_every_line_has_its_note_and_english_gives_the_line(name: str) -> None:
    section = texts(name)
    results = simulated(name)
    assert len(results) >= 40
    for result, seats in results:
        data = result.to_json()
        assert len(data["notes"]) == len(data["lines"]), data
        assert json.loads(json.dumps(data)) == data
        for line, note in zip(data["lines"], data["notes"], strict=True):
            assert note["key"] in section["lines"], (name, note)
            assert fill(note, section, seats) == line, (name, note)


@pytest.mark.parametrize("name", GAMES)
def test_templates_name_exactly_their_values_in_every_language(name: str) -> None:
    section = texts(name)
    notes = all_notes(name)
    seen: set[str] = set()
    for top in notes:
        for note in nested(top):
            if note["key"] in seen:
                continue
            seen.add(note["key"])
            templates = section["lines"][note["key"]]
            assert set(templates) == set(LANGUAGES), note["key"]
            for lang in LANGUAGES:
                assert set(PLACEHOLDER.findall(templates[lang])) == set(note["values"]), (note["key"], lang)
            for n in names_used(note):
                assert set(section["names"][n]) == set(LANGUAGES), n


def engine_names(name: str) -> set[str]:
    """Every id the engine may give as a name: the game's hands and teyaku, Hachi-hachi's endings."""
    if name == "hachi-hachi":
        return set(hh_teyaku.STANDARD_VALUES) | {"exhausted", "shobu", "cancel", "one-player", "split"}
    if name == "poka":
        return set(poka_hands.TEYAKU) | {f"{t}:short" for t in poka_hands.TEYAKU if t != "buttakuri"}
    return set(bagaji_hands.WIN_NAMES)


@pytest.mark.parametrize("name", GAMES)
def test_every_key_and_name_is_produced(name: str) -> None:
    """Each key in texts.json is made by a simulated round or a hand-built one (no dead templates);
    ``names`` holds exactly the ids the engine may name (buttakuri, the highest, is never
    outvalued), each said in every language."""
    section = texts(name)
    notes = all_notes(name)
    keys = {n["key"] for top in notes for n in nested(top)}
    names = {v for top in notes for n in nested(top) for v in names_used(n)}
    assert set(section["lines"]) == keys
    assert names <= set(section["names"]) == engine_names(name)
    assert all(set(said) == set(LANGUAGES) for said in section["names"].values())


@pytest.mark.parametrize("name", sorted(RARE))
def test_rare_lines_say_the_english_line(name: str) -> None:
    """The hand-built rounds: the English template gives the engine's line there too."""
    spec = game(name)
    section = texts(name)
    seats = engine_seats(name, spec.match(list(PLAYERS[:spec.min_players]), spec.options()))
    for line, note in rare(name):
        assert fill(note.to_json(), section, seats) == line


@pytest.mark.parametrize("name", GAMES)
def test_every_language_keeps_the_rule_citations(name: str) -> None:
    """The page links "(rules H8.6)"; each language cites the same rules as the English."""
    for key, templates in texts(name)["lines"].items():
        cites = CITATION.findall(templates["en"])
        for lang in ("ja", "ru"):
            assert CITATION.findall(templates[lang]) == cites, (name, key, lang)


def test_gametext_says_settlements() -> None:
    """gametext.js has settlementLines(game, result), falling back to the engine's lines."""
    source = GAMETEXT.read_text(encoding="utf-8")
    assert re.search(r"^function settlementLines\(game, result\)", source, re.M)
    assert "result.lines" in source and "settlement" in source


NODE_RUN = """
const fs = require("fs"), vm = require("vm");
const input = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
const source = fs.readFileSync(process.argv[2], "utf8");
const out = {};
for (const lang of ["en", "ja", "ru"]) {
  let players = [];
  const ctx = {LANG: lang, seatName: s => players[s - 1],
               document: {getElementById: id => id === "game-texts" ? {textContent: JSON.stringify(input.texts)} : null}};
  vm.createContext(ctx);
  vm.runInContext(source, ctx);
  out[lang] = input.cases.map(c => { players = c.players; return ctx.settlementLines(c.game, c.result); });
}
process.stdout.write(JSON.stringify(out));
"""


def page_seats(players: Sequence[str], lang: str) -> tuple[SeatWord, SeatsWord]:
    """How the page names seats: by the player's name (session.js's seatName), a group joined as a list."""
    join = "、" if lang == "ja" else ", "
    return (lambda s: players[s - 1]), (lambda ss: join.join(players[s - 1] for s in ss))


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run gametext.js")
def test_gametext_says_what_python_says(tmp_path: Path) -> None:
    """settlementLines() in node, in each language, says every note as :func:`fill` does with the
    players' names; a note it cannot say (unknown key, missing value) falls back to the line."""
    cases: list[dict[str, Any]] = []
    for name in GAMES:
        spec = game(name)
        for result, _ in simulated(name)[::7]:
            players = list(PLAYERS[: len(result.changes)])
            cases.append({"game": name, "result": result.to_json(), "players": players})
        players = list(PLAYERS[: spec.min_players if name != "hachi-hachi" else 5])
        lines = [line for line, _ in rare(name)]
        notes = [n.to_json() for _, n in rare(name)]
        cases.append({"game": name, "result": {"lines": lines, "notes": notes}, "players": players})
    broken = {"lines": ["one", "two", "three"], "notes": [{"key": "no-such-key", "values": {}},
                                                          {"key": "out", "values": {}}]}
    cases.append({"game": "poka", "result": broken, "players": ["A", "B"]})
    data = {"texts": {name: dict(game(name).description.texts) for name in GAMES}, "cases": cases}
    (tmp_path / "in.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    run = subprocess.run(["node", "-e", NODE_RUN, str(tmp_path / "in.json"), str(GAMETEXT)],
                         capture_output=True, text=True, encoding="utf-8", timeout=60, check=True)
    said = json.loads(run.stdout)
    for lang in LANGUAGES:
        assert said[lang][-1] == broken["lines"]
        for case, got in zip(cases[:-1], said[lang][:-1], strict=True):
            section = texts(case["game"])
            seats = page_seats(case["players"], lang)
            want = [fill(n, section, seats, lang) for n in case["result"]["notes"]]
            assert got == want, (case["game"], lang)
