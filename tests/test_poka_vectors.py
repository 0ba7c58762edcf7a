"""Poka test vectors derived from the rules text, each citing the text it checks.

Sources: SEED-PK (``shared/seeds/poka_*.txt``, Russian), rules/README.md "Poka", reference.md §4.2
(formal spec) and §4.4 (ambiguities P1-P12, PROPOSED resolutions = the ``seed`` ruleset).

Play vectors are scripts: ``"1 play 06-ribbon"``, ``"2 pass"``, ``"1 claim three-pairs"`` (shows the
whole dealt hand), ``"2 no-claim"``, ``"table 03-curtain"``. A vector either runs through (and its
``expect`` entries are checked) or its last line is refused with the rule in ``error``.
"""

from __future__ import annotations

from typing import Any

import pytest

from scorer.cards import deck
from scorer.errors import IllegalEventError
from scorer.poka import SPEC, Claim, Deal, NoClaim, Pass, Play, PokaMatch, TableCard, evaluate_hand
from scorer.poka.hands import deck_name

# --------------------------------------------------------------------------- starting hands

HAND_VECTORS: list[dict[str, Any]] = [
    {
        "id": "buttakuri",
        "cite": "SEED-PK §5: «Четыре карты одного месяца — 5 камней» (four cards of one month: 5 stones)",
        "cards": ["05-bridge", "05-ribbon", "05-plain-1", "05-plain-2", "08-moon", "10-deer"],
        "claim": "buttakuri",
        "stones": 5,
    },
    {
        "id": "buttakuri-with-wilds-natural-months",
        "cite": "reference §4.4 P2: wilds keep their natural months for starting hands; crane and "
        "ribbon are January, so four January cards are buttakuri",
        "cards": ["01-crane", "01-ribbon", "01-plain-1", "01-plain-2", "03-curtain", "07-boar"],
        "claim": "buttakuri",
        "stones": 5,
    },
    {
        "id": "three-pairs",
        "cite": "SEED-PK §5: «Три пары (по две карты одного месяца) — 2 камня»",
        "cards": ["03-curtain", "03-ribbon", "07-boar", "07-plain-2", "12-phoenix", "12-plain-1"],
        "claim": "three-pairs",
        "stones": 2,
    },
    {
        "id": "two-pairs-are-nothing",
        "cite": "reference §4.2 table: three pairs means month counts exactly 2, 2, 2",
        "cards": ["03-curtain", "03-ribbon", "07-boar", "07-plain-2", "12-phoenix", "09-plain-1"],
        "claim": None,
        "stones": 0,
    },
    {
        "id": "january-triplet",
        "cite": "SEED-PK §5: «Три январские карты — 2 камня»; reference §4.2: exactly three January cards",
        "cards": ["01-ribbon", "01-plain-1", "01-plain-2", "04-cuckoo", "08-moon", "11-rainman"],
        "claim": "january-triplet",
        "stones": 2,
    },
    {
        "id": "wild-triplet",
        "cite": "SEED-PK §5: «Все три джокера — 2 камня»; reference §4.4 P1: the jokers are the "
        "crane, the January ribbon and the warbler",
        "cards": ["01-crane", "01-ribbon", "02-warbler", "05-bridge", "09-sakecup", "11-swallow"],
        "claim": "wild-triplet",
        "stones": 2,
    },
    {
        "id": "wild-triplet-and-january-chaff-not-stacked",
        "cite": "reference §4.4 P7: three wilds + January chaff is also a January triplet; no "
        "stacking, the single highest counts (2, not 4)",
        "cards": ["01-crane", "01-ribbon", "02-warbler", "01-plain-1", "06-ribbon", "10-deer"],
        "claim": "wild-triplet",
        "held": ["wild-triplet", "january-triplet"],
        "stones": 2,
    },
    {
        "id": "three-pairs-of-wilds-not-stacked",
        "cite": "reference §4.4 P7: three wilds that also make three pairs count once",
        "cards": ["01-crane", "01-ribbon", "02-warbler", "02-ribbon", "09-plain-1", "09-plain-2"],
        "claim": "wild-triplet",
        "held": ["wild-triplet", "three-pairs"],
        "stones": 2,
    },
    {
        "id": "no-starting-hand",
        "cite": "reference §4.2: with no starting hand play proceeds",
        "cards": ["01-crane", "02-ribbon", "04-plain-1", "06-plain-2", "08-geese", "11-lightning"],
        "claim": None,
        "stones": 0,
    },
    {
        "id": "extra-jokers-three-blanks",
        "cite": "rules/README.md Poka: option extra-jokers, three added blank cards are the wilds",
        "options": {"extra-jokers": True},
        "cards": ["00-blank", "00-blank", "00-blank", "04-cuckoo", "08-moon", "11-rainman"],
        "claim": "wild-triplet",
        "stones": 2,
    },
    {
        "id": "extra-jokers-crane-ribbon-warbler-ordinary",
        "cite": "rules/README.md Poka: with extra-jokers the blanks are the wilds *instead*",
        "options": {"extra-jokers": True},
        "cards": ["01-crane", "01-ribbon", "02-warbler", "05-bridge", "09-sakecup", "11-swallow"],
        "claim": None,
        "stones": 0,
    },
]


@pytest.mark.parametrize("vector", HAND_VECTORS, ids=[v["id"] for v in HAND_VECTORS])
def test_hand_vector(vector):
    options = SPEC.options(overrides=vector.get("options", {}))
    report = evaluate_hand(vector["cards"], options)
    if vector["claim"] is None:
        assert report.claim is None, vector["cite"]
    else:
        assert report.claim.name == vector["claim"], vector["cite"]
        assert report.claim.stones == vector["stones"], vector["cite"]
    if "held" in vector:
        assert [t.name for t in report.held] == vector["held"], vector["cite"]


# --------------------------------------------------------------------------- play

FILL_2 = ["08-moon", "04-cuckoo", "12-plain-2", "02-plain-1", "10-deer", "11-rainman"]
PLAINS_2 = ["04-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "11-swallow", "12-plain-2"]

PLAY_VECTORS: list[dict[str, Any]] = [
    {
        "id": "next-month",
        "cite": "SEED-PK §2: the table card is May, so the player must lay a June card; "
        "reference §4.2 Rule 1",
        "table": "05-bridge",
        "hands": (
            ["06-ribbon", "07-boar", "09-plain-1", "10-plain-1", "11-swallow", "03-plain-1"],
            FILL_2,
        ),
        "script": ["1 play 06-ribbon", "1 play 07-boar", "1 play 09-plain-1"],
        "error": "next-month",
    },
    {
        "id": "december-then-january",
        "cite": "SEED-PK §2: the order is cyclic, January comes after December",
        "table": "12-phoenix",
        "hands": (
            ["01-plain-1", "02-plain-1", "05-plain-1", "07-plain-1", "09-plain-1", "11-swallow"],
            ["03-plain-1", "04-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "12-plain-2"],
        ),
        "script": ["1 play 01-plain-1", "1 play 02-plain-1", "1 pass"],
        "expect": {"top": "02-plain-1", "to_play": 2},
    },
    {
        "id": "wild-on-anything-anything-on-wild",
        "cite": "reference §4.2 Rule 2 [FW-POKA]: a wild may be played on any top card and any card, "
        "another wild too, on a wild (P3, P4)",
        "table": "07-boar",
        "hands": (
            ["01-crane", "04-plain-1", "02-warbler", "09-plain-1", "11-swallow", "05-plain-2"],
            ["03-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "12-plain-2", "12-plain-3"],
        ),
        "script": [
            "1 play 01-crane",
            "1 play 04-plain-1",
            "1 play 05-plain-2",
            "1 play 02-warbler",
            "1 play 09-plain-1",
        ],
        "expect": {"top": "09-plain-1", "hand_1": 1},
    },
    {
        "id": "jan-feb-exception",
        "cite": "SEED-PK §3: «Если картой стола является январь, а у игрока в руке есть и январь, и "
        "февраль, он может разыграть обе эти карты»",
        "table": "01-plain-1",
        "hands": (
            ["01-plain-2", "02-ribbon", "03-plain-1", "05-plain-1", "07-plain-1", "09-plain-1"],
            PLAINS_2,
        ),
        "script": ["1 play 01-plain-2", "1 play 02-ribbon", "1 play 03-plain-1"],
        "expect": {"top": "03-plain-1"},
    },
    {
        "id": "jan-feb-violated-by-pass",
        "cite": "reference §4.2 Rule 3: the January must be immediately followed by a February card",
        "table": "01-plain-1",
        "hands": (
            ["01-plain-2", "02-ribbon", "03-plain-1", "05-plain-1", "07-plain-1", "09-plain-1"],
            PLAINS_2,
        ),
        "script": ["1 play 01-plain-2", "1 pass"],
        "error": "jan-feb-exception",
    },
    {
        "id": "jan-feb-violated-by-other-card",
        "cite": "reference §4.2 Rule 3: the January must be immediately followed by a February card",
        "table": "01-plain-1",
        "hands": (
            ["01-plain-2", "02-ribbon", "03-plain-1", "05-plain-1", "07-plain-1", "09-plain-1"],
            PLAINS_2,
        ),
        "script": ["1 play 01-plain-2", "1 play 03-plain-1"],
        "error": "jan-feb-exception",
    },
    {
        "id": "jan-feb-needs-a-february-in-hand",
        "cite": "SEED-PK §3: both cards only when the player holds both a January and a February",
        "table": "01-plain-1",
        "hands": (
            ["01-plain-2", "03-plain-1", "05-plain-1", "07-plain-1", "09-plain-1", "11-rainman"],
            PLAINS_2,
        ),
        "script": ["1 play 01-plain-2"],
        "error": "jan-feb-exception",
    },
    {
        "id": "jan-feb-wild-stands-in-for-february",
        "cite": "SEED-PK §4: the jokers may be used instead of cards of any month",
        "table": "01-plain-1",
        "hands": (
            ["01-plain-2", "01-crane", "03-plain-1", "05-plain-1", "07-plain-1", "09-plain-1"],
            PLAINS_2,
        ),
        "script": ["1 play 01-plain-2", "1 play 01-crane", "1 play 05-plain-1"],
        "expect": {"top": "05-plain-1"},
    },
    {
        "id": "jan-feb-on-any-january-top",
        "cite": "reference §4.4 P5: the exception applies whenever the current top is January",
        "table": "12-plain-1",
        "hands": (
            ["01-plain-1", "01-plain-2", "02-ribbon", "05-plain-1", "07-plain-1", "09-plain-1"],
            ["03-plain-1", "04-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "11-swallow"],
        ),
        "script": ["1 play 01-plain-1", "1 play 01-plain-2", "1 play 02-ribbon"],
        "expect": {"top": "02-ribbon"},
    },
    {
        "id": "jan-feb-table-card-only",
        "cite": "reference §4.4 P5 flag janFebTableCardOnly: only when the table card is January",
        "options": {"jan-feb-table-card-only": True},
        "table": "12-plain-1",
        "hands": (
            ["01-plain-1", "01-plain-2", "02-ribbon", "05-plain-1", "07-plain-1", "09-plain-1"],
            ["03-plain-1", "04-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "11-swallow"],
        ),
        "script": ["1 play 01-plain-1", "1 play 01-plain-2"],
        "error": "next-month",
    },
    {
        "id": "one-card-per-month",
        "cite": "SEED-PK §2: «разрешено разыгрывать лишь по одной карте каждого месяца»",
        "table": "05-bridge",
        "hands": (
            ["06-ribbon", "01-crane", "06-plain-1", "09-plain-1", "11-swallow", "03-plain-1"],
            FILL_2,
        ),
        "script": ["1 play 06-ribbon", "1 play 01-crane", "1 play 06-plain-1"],
        "error": "one-card-per-month",
    },
    {
        "id": "wild-used-as-wild-has-no-month",
        "cite": "rules brief / reference §4.2 PROPOSED: a wild used as a wild has no month",
        "table": "12-plain-1",
        "hands": (
            ["01-plain-1", "01-crane", "04-plain-1", "05-plain-1", "07-plain-1", "09-plain-1"],
            ["03-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "11-swallow", "12-plain-2"],
        ),
        "script": [
            "1 play 01-plain-1",
            "1 play 01-crane",
            "1 play 04-plain-1",
            "1 play 05-plain-1",
        ],
        "expect": {"top": "05-plain-1"},
    },
    {
        "id": "all-out-two-stones",
        "cite": "SEED-PK §3: «Если игроку удается избавиться от карт за один ход, он получает не "
        "один камень го, а два»",
        "table": "02-plain-1",
        "hands": (
            ["03-plain-1", "04-plain-1", "05-plain-1", "06-plain-1", "07-plain-1", "08-plain-1"],
            ["09-plain-1", "10-plain-1", "11-swallow", "12-plain-2", "01-plain-1", "03-curtain"],
        ),
        "script": [f"1 play 0{m}-plain-1" for m in range(3, 9)],
        "expect": {"changes": (2, 0), "pool": 8},
    },
    {
        "id": "out-in-two-turns-one-stone",
        "cite": "SEED-PK §2: the first to get rid of all cards wins the deal and takes one stone",
        "table": "02-plain-1",
        "hands": (
            ["03-plain-1", "04-plain-1", "05-plain-1", "08-plain-1", "09-plain-1", "10-plain-1"],
            ["06-plain-1", "07-plain-1", "11-swallow", "12-plain-2", "01-plain-1", "03-curtain"],
        ),
        "script": [
            "1 play 03-plain-1",
            "1 play 04-plain-1",
            "1 play 05-plain-1",
            "1 pass",
            "2 play 06-plain-1",
            "2 play 07-plain-1",
            "2 pass",
            "1 play 08-plain-1",
            "1 play 09-plain-1",
            "1 play 10-plain-1",
        ],
        "expect": {"changes": (1, 0), "pool": 9},
    },
    {
        "id": "all-out-on-a-later-turn",
        "cite": "reference §4.4 P6: any single turn in which the player plays all 6 cards",
        "table": "10-plain-1",
        "hands": (
            ["03-plain-1", "04-plain-1", "05-plain-1", "06-plain-1", "07-plain-1", "08-plain-1"],
            ["09-plain-1", "02-plain-1", "12-plain-2", "03-curtain", "05-bridge", "07-boar"],
        ),
        "script": ["1 pass", "2 pass", "table 02-plain-2"]
        + [f"1 play 0{m}-plain-1" for m in range(3, 9)],
        "expect": {"changes": (2, 0)},
    },
    {
        "id": "all-out-first-turn-only",
        "cite": "reference §4.4 P6 flag allOutFirstTurnOnly [FW-POKA: 'on your first turn']",
        "options": {"all-out-first-turn-only": True},
        "table": "10-plain-1",
        "hands": (
            ["03-plain-1", "04-plain-1", "05-plain-1", "06-plain-1", "07-plain-1", "08-plain-1"],
            ["09-plain-1", "02-plain-1", "12-plain-2", "03-curtain", "05-bridge", "07-boar"],
        ),
        "script": ["1 pass", "2 pass", "table 02-plain-2"]
        + [f"1 play 0{m}-plain-1" for m in range(3, 9)],
        "expect": {"changes": (1, 0)},
    },
    {
        "id": "must-continue",
        "cite": "SEED-PK §2: «В свой ход игрок выкладывает все карты, какие может»; reference §4.4 P10",
        "table": "05-bridge",
        "hands": (
            ["06-ribbon", "07-boar", "09-plain-1", "10-plain-1", "11-swallow", "03-plain-1"],
            FILL_2,
        ),
        "script": ["1 play 06-ribbon", "1 pass"],
        "error": "must-continue",
    },
    {
        "id": "voluntary-stop",
        "cite": "reference §4.2 flag voluntaryStop: stopping voluntarily is allowed",
        "options": {"voluntary-stop": True},
        "table": "05-bridge",
        "hands": (
            ["06-ribbon", "07-boar", "09-plain-1", "10-plain-1", "11-swallow", "03-plain-1"],
            FILL_2,
        ),
        "script": ["1 play 06-ribbon", "1 pass"],
        "expect": {"to_play": 2, "top": "06-ribbon"},
    },
    {
        "id": "no-new-table-card-after-a-played-turn",
        "cite": "reference §4.4 P9: a player who played some cards and then passed has not made a null pass",
        "table": "02-plain-1",
        "hands": (
            ["03-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "12-plain-2", "05-ribbon"],
            ["07-plain-1", "09-plain-1", "11-swallow", "01-plain-1", "05-plain-1", "06-ribbon"],
        ),
        "script": ["1 play 03-plain-1", "1 pass", "2 pass", "table 04-plain-1"],
        "error": "no-new-table-card",
    },
    {
        "id": "new-table-card-after-two-null-passes",
        "cite": "SEED-PK §2: when both pass, the played cards are set aside, a new table card is "
        "turned and the first passer starts; reference §4.4 P9",
        "table": "02-plain-1",
        "hands": (
            ["03-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "12-plain-2", "05-ribbon"],
            ["07-plain-1", "09-plain-1", "11-swallow", "01-plain-1", "05-plain-1", "06-ribbon"],
        ),
        "script": [
            "1 play 03-plain-1",
            "1 pass",
            "2 pass",
            "1 pass",
            "table 04-plain-1",
            "2 play 05-plain-1",
        ],
        "expect": {"top": "05-plain-1", "to_play": 2},
    },
    {
        "id": "extra-jokers-blank-is-wild-crane-is-not",
        "cite": "rules/README.md Poka: option extra-jokers, three blanks are the wilds instead",
        "options": {"extra-jokers": True},
        "table": "05-bridge",
        "hands": (
            ["00-blank", "01-crane", "06-plain-1", "09-plain-1", "11-swallow", "03-plain-1"],
            FILL_2,
        ),
        "script": ["1 play 01-crane"],
        "error": "next-month",
    },
    {
        "id": "extra-jokers-anything-on-a-blank",
        "cite": "rules/README.md Poka: the blanks are the wilds; reference §4.2 Rule 2",
        "options": {"extra-jokers": True},
        "table": "05-bridge",
        "hands": (
            ["00-blank", "01-crane", "06-plain-1", "09-plain-1", "11-swallow", "03-plain-1"],
            FILL_2,
        ),
        "script": ["1 play 00-blank", "1 play 01-crane"],
        "expect": {"top": "01-crane"},
    },
    {
        "id": "single-claim-wins",
        "cite": "SEED-PK §5: a player dealt one of the hands wins the deal and takes its stones",
        "table": "05-bridge",
        "hands": (
            ["01-crane", "01-ribbon", "02-warbler", "01-plain-1", "06-ribbon", "10-deer"],
            ["03-plain-1", "04-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "11-swallow"],
        ),
        "script": ["1 claim wild-triplet", "2 no-claim"],
        "expect": {"changes": (2, 0), "winner": 1},
    },
    {
        "id": "equal-claims-void",
        "cite": "reference §4.2 [FW-POKA], §4.4 P8: both players with starting hands of equal value "
        "void each other and play proceeds",
        "table": "05-bridge",
        "hands": (
            ["03-curtain", "03-ribbon", "07-boar", "07-plain-2", "12-phoenix", "12-plain-1"],
            ["01-ribbon", "01-plain-1", "01-plain-2", "04-cuckoo", "08-moon", "11-rainman"],
        ),
        "script": ["1 claim three-pairs", "2 claim january-triplet"],
        "expect": {"phase": "play", "results": 0, "to_play": 1},
    },
    {
        "id": "buttakuri-beats-two-stone-claim",
        "cite": "reference §4.2 [FW-POKA]: if one has buttakuri only buttakuri counts; §4.4 P8",
        "table": "02-ribbon",
        "hands": (
            ["03-curtain", "03-ribbon", "07-boar", "07-plain-2", "12-phoenix", "12-plain-1"],
            ["05-bridge", "05-ribbon", "05-plain-1", "05-plain-2", "08-moon", "10-deer"],
        ),
        "script": ["1 claim three-pairs", "2 claim buttakuri"],
        "expect": {"changes": (0, 5), "winner": 2, "over": True},
    },
    {
        "id": "claim-must-match-shown-cards",
        "cite": "reference §4.2 table: three pairs needs month counts exactly 2, 2, 2",
        "table": "05-bridge",
        "hands": (
            ["01-ribbon", "01-plain-1", "01-plain-2", "04-cuckoo", "08-moon", "11-rainman"],
            ["03-plain-1", "04-plain-1", "06-plain-1", "08-plain-1", "10-plain-1", "11-swallow"],
        ),
        "script": ["1 claim three-pairs"],
        "error": "teyaku-not-held",
    },
]


def build_deal(hands, table, dealer=1, options=None) -> Deal:
    """A fully known deal: the given hands and table card, the rest of the deck as the stock."""
    options = options or SPEC.options()
    rest = list(deck(deck_name(options)).cards)
    for c in (*hands[0], *hands[1], table):
        rest.remove(c)
    return Deal(dealer, (tuple(hands[0]), tuple(hands[1])), table, tuple(rest))


def parse(line: str, match: PokaMatch):
    words = line.split()
    if words[0] == "table":
        return TableCard(words[1])
    seat, verb = int(words[0]), words[1]
    if verb == "play":
        return Play(seat, words[2])
    if verb == "pass":
        return Pass(seat)
    if verb == "no-claim":
        return NoClaim(seat)
    if verb == "claim":
        hand = match.state.hand(seat).known
        return Claim(seat, hand, words[2] if len(words) > 2 else None)
    raise ValueError(line)


def check(match: PokaMatch, expect: dict[str, Any], cite: str) -> None:
    s = match.state
    for key, want in expect.items():
        got = {
            "top": lambda: s.top,
            "to_play": lambda: s.to_play,
            "phase": lambda: s.phase,
            "results": lambda: len(s.results),
            "changes": lambda: s.results[-1].changes,
            "winner": lambda: s.results[-1].winner,
            "pool": lambda: s.pool,
            "over": lambda: s.over,
            "hand_1": lambda: s.hand(1).size,
        }[key]()
        assert got == want, f"{key}: {got!r} != {want!r} ({cite})"


@pytest.mark.parametrize("vector", PLAY_VECTORS, ids=[v["id"] for v in PLAY_VECTORS])
def test_play_vector(vector):
    options = SPEC.options(overrides=vector.get("options", {}))
    match = SPEC.match(["Aki", "Ben"], options)
    match.apply(build_deal(vector["hands"], vector["table"], 1, options))
    script = vector["script"]
    if "error" in vector:
        for line in script[:-1]:
            match.apply(parse(line, match))
        before = match.state
        with pytest.raises(IllegalEventError) as info:
            match.apply(parse(script[-1], match))
        assert info.value.rule == vector["error"], vector["cite"]
        assert match.state is before
    else:
        for line in script:
            match.apply(parse(line, match))
        check(match, vector["expect"], vector["cite"])


def test_enough_vectors():
    assert len(HAND_VECTORS) + len(PLAY_VECTORS) >= 10
