"""Messages of the scorer as ``fudaba`` prints them (issue 39): card ids, record paths, short hands,
rules-page notes. Each checks the message body and the exit status, not the ``fudaba …:`` prefix."""

from __future__ import annotations

import io
import json

import pytest

from fudaba.cli import main
from scorer import record
from scorer.cards import deck
from scorer.errors import RecordError, UnknownCardError


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- card ids
def test_a_card_left_out_of_the_deck_says_why(capsys):
    code, out, err = run(capsys, "hand", "bagaji", "10S", "JD", "QH", "KC", "9C")
    assert code == 2 and out == ""
    assert "KC is not in Bagaji's playing-2x deck (no kings)" in err
    assert "did you mean" not in err


def test_the_reason_comes_from_the_deck_tables():
    with pytest.raises(UnknownCardError, match=r"00-blank is not in Poka's hanafuda deck \(no blank card\)"):
        deck("hanafuda").canonical("00-blank", "Poka")
    with pytest.raises(UnknownCardError, match=r"JOKER-RED is not in the playing deck \(no jokers\)"):
        deck("playing").canonical("JOKER-RED")
    with pytest.raises(UnknownCardError, match=r"BACK is not in the playing-2x deck \(a face-down card back"):
        deck("playing-2x").canonical("back")
    with pytest.raises(UnknownCardError, match=r"08-moon is not in .*\(a hanafuda card; this deck holds playing"):
        deck("playing-2x").canonical("08-moon")


def test_a_hanafuda_deck_without_the_blank(capsys):
    code, out, err = run(capsys, "hand", "bagaji", "--option", "deck=hanafuda-1x", "00-blank", "01-crane")
    assert code == 2 and out == ""
    assert "00-blank is not in Bagaji's hanafuda deck (no blank card)" in err
    code, out, err = run(capsys, "hand", "poka", "KC")
    assert code == 2 and out == ""
    assert "KC is not in Poka's hanafuda deck (a playing card; this deck holds hanafuda cards only)" in err


def test_joker_names_both_jokers_or_says_there_are_none(capsys):
    with pytest.raises(UnknownCardError) as info:
        deck("playing+jokers").canonical("JOKER")
    assert info.value.suggestions == ("JOKER-BLACK", "JOKER-RED")
    assert "did you mean JOKER-BLACK, JOKER-RED?" in str(info.value)
    code, out, err = run(capsys, "hand", "bagaji", "JOKER", "AS")
    assert code == 2 and out == ""
    assert "JOKER is not in Bagaji's playing-2x deck (no jokers)" in err
    code, out, err = run(capsys, "hand", "poka", "joker")
    assert code == 2 and "jokers are playing cards" in err


@pytest.mark.parametrize(
    ("game", "typed", "canonical"),
    [
        ("bagaji", ["as", "qh", "Jd", "10s", "2C"], "AS QH JD 10S 2C"),
        ("hachi-hachi", ["08-MOON", "01-Crane"], "08-moon 01-crane"),
        ("poka", ["01-CRANE", "01-ribbon", "02-Warbler", "05-plain-1", "07-plain-1", "09-PLAIN-1"],
         "01-crane 01-ribbon 02-warbler 05-plain-1 07-plain-1 09-plain-1"),
    ],
)
def test_ids_in_any_case_are_accepted_and_shown_canonical(capsys, game, typed, canonical):
    code, out, err = run(capsys, "hand", game, *typed)
    assert code == 0 and err == ""
    assert canonical in out
    code, out, _ = run(capsys, "hand", game, "--json", *typed)
    assert code == 0 and f'"{canonical.split()[0]}"' in out


def test_case_does_not_hide_a_repeated_card(capsys):
    code, _, err = run(capsys, "hand", "hachi-hachi", "08-moon", "08-MOON")
    assert code == 2 and "appears twice" in err


def test_typos_still_get_suggestions(capsys):
    code, out, err = run(capsys, "hand", "bagaji", "1S", "AS")
    assert code == 2 and out == "" and "unknown card '1S'" in err and "did you mean AS?" in err
    code, out, err = run(capsys, "hand", "hachi-hachi", "08-mon")
    assert code == 2 and "did you mean 08-moon" in err


def test_records_keep_canonical_ids():
    """Events and records are strict: another case is an error that names the canonical id."""
    with pytest.raises(UnknownCardError, match=r"unknown card 'qh' in deck 'playing-2x'; did you mean QH\?"):
        deck("playing-2x").validate("qh")
    assert deck("playing-2x").validate("QH") == "QH"


# --------------------------------------------------------------------------- record paths
def test_a_missing_record_has_no_line_number(capsys, tmp_path):
    missing = tmp_path / "missing.jsonl"
    code, out, err = run(capsys, "score", str(missing))
    assert code == 2 and out == ""
    assert f"{missing}: cannot read: no such file\n" in err
    assert f"{missing}:0" not in err


def test_a_directory_is_not_a_record(capsys, tmp_path):
    code, out, err = run(capsys, "score", str(tmp_path))
    assert code == 2 and out == ""
    assert f"{tmp_path}: cannot read: is a directory, not a record\n" in err


def test_an_unreadable_record(capsys, tmp_path, monkeypatch):
    path = tmp_path / "locked.jsonl"
    path.write_text("{}\n")

    def refuse(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(type(path), "read_bytes", refuse)
    code, out, err = run(capsys, "score", str(path))
    assert code == 2 and out == ""
    assert f"{path}: cannot read: permission denied\n" in err


def _simulated(capsys) -> str:
    code, out, _ = run(capsys, "simulate", "poka", "--seed", "3", "--option", "stones-to-win=3")
    assert code == 0
    return out


def test_dash_reads_the_record_from_standard_input(capsys, monkeypatch):
    text = _simulated(capsys)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    code, out, err = run(capsys, "score", "-")
    assert code == 0 and err == ""
    assert "record: <stdin>" in out and "match over" in out


def test_standard_input_is_named_in_messages_with_its_lines(capsys, monkeypatch):
    lines = _simulated(capsys).splitlines()
    lines[2] = "{not json"
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, err = run(capsys, "score", "-")
    assert code == 2 and out == ""
    assert "<stdin>:3: not valid JSON" in err


def test_standard_input_as_bytes(monkeypatch):
    """A real stdin has a byte buffer: bytes that are not UTF-8 are named at their line."""
    text = _header_and_bad_byte()

    class Stdin(io.StringIO):
        buffer = io.BytesIO(text)

    monkeypatch.setattr("sys.stdin", Stdin())
    with pytest.raises(RecordError, match=r"^<stdin>:2: not UTF-8 text"):
        record.load("-")


def _header_and_bad_byte() -> bytes:
    header = (
        '{"format": "fudaba-record", "version": 1, "game": "poka", "ruleset": "seed", '
        '"players": [{"seat": 1, "name": "A"}, {"seat": 2, "name": "B"}], "deck": "hanafuda"}'
    )
    return header.encode() + b'\n{"type": "d\xe9al"}\n'


# --------------------------------------------------------------------------- short hands
@pytest.mark.parametrize(
    ("game", "cards", "needs"),
    [
        ("poka", ["01-crane"],
         "a Poka starting hand has 6 cards; 5 more are needed for a starting-hand claim"),
        ("hachi-hachi", ["01-crane"],
         "a Hachi-hachi dealt hand has 7 cards; 6 more are needed to read its teyaku"),
        ("bagaji", ["AS"],
         "a Bagaji hand has 5 cards (6 after drawing); 4 more are needed for the stop test and 5 for"
         " a winning hand"),
        ("bagaji", ["AS", "2S", "3S", "4S"],
         "a Bagaji hand has 5 cards (6 after drawing); 1 more is needed for the stop test and 2 for"
         " a winning hand"),
    ],
)
def test_a_short_hand_is_read_and_says_what_it_needs(capsys, game, cards, needs):
    code, out, err = run(capsys, "hand", game, *cards)
    assert code == 0 and err == ""
    assert f"ncomplete hand: {needs}." in out  # "incomplete" or "Incomplete", the game's style
    code, out, err = run(capsys, "hand", game, "--json", *cards)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["complete"] is False and data["needs"] == needs
    assert data["cards"] == cards


def test_a_short_poka_hand_shows_what_it_holds_so_far(capsys):
    code, out, _ = run(capsys, "hand", "poka", "01-crane", "01-ribbon", "01-plain-1", "01-plain-2")
    assert code == 0
    assert "Held so far: buttakuri" in out and "No starting hand to claim" not in out
    code, out, _ = run(capsys, "hand", "poka", "--json", "01-crane", "01-ribbon", "01-plain-1", "01-plain-2")
    data = json.loads(out)
    assert data["held"] == ["buttakuri"] and data["claim"] is None and data["complete"] is False


@pytest.mark.parametrize(
    ("game", "cards"),
    [
        ("hachi-hachi", "01-plain-1 01-plain-2 01-ribbon 02-plain-1 02-plain-2 03-plain-1 03-plain-2"),
        ("poka", "01-crane 01-ribbon 02-warbler 05-plain-1 07-plain-1 09-plain-1"),
        ("bagaji", "AS AH 2C 3D 3S"),
        ("bagaji", "3S 4S 5S 6S 7S 8S"),
    ],
)
def test_a_full_hand_is_complete_and_says_nothing_more(capsys, game, cards):
    code, out, _ = run(capsys, "hand", game, *cards.split())
    assert code == 0 and "ncomplete" not in out
    code, out, _ = run(capsys, "hand", game, "--json", *cards.split())
    data = json.loads(out)
    assert data["complete"] is True and data["needs"] is None


@pytest.mark.parametrize(
    ("game", "cards", "message"),
    [
        ("poka", "01-crane 01-ribbon 02-warbler 05-plain-1 07-plain-1 09-plain-1 10-deer",
         "a Poka hand has at most 6 cards (the starting hand), not 7"),
        ("bagaji", "AS 2S 3S 4S 5S 6S 7S",
         "a Bagaji hand has at most 6 cards (5 held, 6 after drawing), not 7"),
    ],
)
def test_a_hand_longer_than_any_hand_of_the_game_is_an_error(capsys, game, cards, message):
    code, out, err = run(capsys, "hand", game, *cards.split())
    assert code == 2 and out == ""
    assert message in err


def test_hachi_hachi_reads_more_than_a_dealt_hand_as_captured_cards(capsys):
    """A capture pile (up to the whole deck) is read for dekiyaku, as the seed's dekiyaku need."""
    cards = "01-ribbon 02-ribbon 03-ribbon 06-ribbon 09-ribbon 10-ribbon 04-ribbon 05-ribbon".split()
    code, out, err = run(capsys, "hand", "hachi-hachi", "--ruleset", "standard", *cards)
    assert code == 0, err
    assert "teyaku: not read (more than the 7 dealt cards: read as captured cards)" in out
    assert "akatan" in out and "aotan" in out and "ncomplete" not in out
    code, out, _ = run(capsys, "hand", "hachi-hachi", "--json", *cards)
    data = json.loads(out)
    assert data["complete"] is True and data["needs"] is None and data["group_a"] is None
    from scorer.cards import deck

    every = [c for c in deck("hanafuda").cards if c not in ("00-blank", "back")]
    code, _, err = run(capsys, "hand", "hachi-hachi", *every, "08-moon")
    assert code == 2
    assert "a Hachi-hachi hand has at most 48 cards (a capture pile of the whole deck), not 49" in err


# --------------------------------------------------------------------------- rules-page notes
def test_rules_page_says_willow_is_plain_for_teyaku_in_seed_1910(capsys):
    code, out, err = run(capsys, "rules", "hachi-hachi", "--ruleset", "seed-1910")
    assert code == 0 and err == ""
    assert "seed-1910 too, the four willow cards count as plains for the group B teyaku" in out


def test_rules_page_says_poka_starting_hands_count_natural_months(capsys):
    code, out, err = run(capsys, "rules", "poka")
    assert code == 0 and err == ""
    assert "Starting hands count natural months only" in out
    assert "wilds do not make four of a month" in out


def test_poka_engine_counts_natural_months_only():
    """What the rules page says is what the engine does: a wild is a card of its own month."""
    from scorer.poka import PokaOptions, teyaku_held
    from scorer.rulesets import with_overrides

    seed = PokaOptions()
    three_and_warbler = ["03-curtain", "03-ribbon", "03-plain-1", "02-warbler", "05-plain-1", "06-plain-1"]
    assert teyaku_held(three_and_warbler, seed) == ()
    januaries = ["01-crane", "01-ribbon", "01-plain-1", "01-plain-2", "05-plain-1", "06-plain-1"]
    assert [t.name for t in teyaku_held(januaries, seed)] == ["buttakuri"]
    blanks = with_overrides(seed, {"extra-jokers": True})
    assert teyaku_held(["03-curtain", "03-ribbon", "03-plain-1", "00-blank", "05-plain-1", "06-plain-1"], blanks) == ()
