"""docs/rules.md is the rule book the engines cite: every citation names one of its sections, and it
documents every option and ruleset of every game.

Citations are written ``(rules H8.6)``, ``(rules P4.2, P4.3)`` or ``rules B1-B14``: the word
``rules`` and one or more section ids (a game letter — G, C, H, B or P — alone, with a section
number, or with a section and subsection number).
"""

from __future__ import annotations

import dataclasses
import random
import re
from functools import cache
from pathlib import Path

import pytest

from scorer import rulesets
from scorer.games import all_games
from scorer.simulate import play_match

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
SCORER = ROOT / "scorer"

HEADING = re.compile(r"^(#{2,4}) ([GCHBP](?:\d+(?:\.\d+)?)?) \S", re.MULTILINE)
ID = r"[GCHBP](?:\d+(?:\.\d+)?)?(?!\w)"
CITATION = re.compile(rf"\brules\s+({ID}(?:(?:, | and |-){ID})*)")
ONE_ID = re.compile(ID)


@cache
def doc() -> str:
    return RULES.read_text(encoding="utf-8")


@cache
def sections() -> dict[str, int]:
    """Section id → heading level (2 for ``## H5``, 3 for ``### H5.2`` …)."""
    found: dict[str, int] = {}
    for hashes, sid in HEADING.findall(doc()):
        assert sid not in found, f"section {sid} appears twice in docs/rules.md"
        found[sid] = len(hashes)
    return found


def cited(text: str) -> list[str]:
    """Every section id cited in ``text`` (``rules X``, ``rules X, Y``, ``rules X-Y``)."""
    return [sid for match in CITATION.finditer(text) for sid in ONE_ID.findall(match.group(1))]


def test_sections_are_numbered_in_a_tree():
    """Each section sits under its parent: H5.2 under H5, H5 under H; the letters are the games."""
    found = sections()
    assert {"G", "C", "H", "B", "P"} <= set(found)
    for sid, level in found.items():
        if len(sid) == 1:
            assert level == 2, sid
            continue
        parent = sid.rsplit(".", 1)[0] if "." in sid else sid[0]
        assert parent in found, f"section {sid} has no parent section {parent}"
        assert level > found[parent], f"section {sid} is not nested under {parent}"


def test_cross_references_inside_the_document_exist():
    """The document's own references (H8.6, see B12, P4.2-P4.4) name sections that exist."""
    body = HEADING.sub("", doc())
    refs = set(re.findall(r"(?<![\w`.-])([GCHBP]\d+(?:\.\d+)?)(?!\w)", body))
    assert refs, "no cross-references found"
    missing = sorted(refs - set(sections()))
    assert not missing, f"docs/rules.md refers to missing sections: {missing}"


def _sources() -> list[Path]:
    return sorted(SCORER.rglob("*.py")) + [SCORER / "data" / "record.schema.json"]


def test_every_citation_in_the_code_names_a_section():
    """Error messages, settlement lines, option texts and docstrings in scorer/ cite real sections."""
    found = sections()
    bad: list[str] = []
    total = 0
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        for sid in cited(text):
            total += 1
            if sid not in found:
                bad.append(f"{path.relative_to(ROOT)}: rules {sid}")
    assert total >= 150, f"only {total} citations found: is the citation pattern still 'rules X.Y'?"
    assert not bad, "citations of missing sections:\n" + "\n".join(bad)


def test_no_citation_of_the_old_reference():
    """The research file outside the repository is no longer cited."""
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        assert "reference §" not in text and "reference.md" not in text, path
        assert "§" not in text, f"{path}: a '§' citation is left"


def test_each_game_cites_its_own_sections():
    """Every game's summary (``fudaba rules``) and every option text cite a section of that game."""
    letters = {"hachi-hachi": "H", "bagaji": "B", "poka": "P"}
    for spec in all_games():
        letter = letters[spec.name]
        assert any(s.startswith(letter) for s in cited(spec.summary)), spec.name
        options = spec.options()
        for name, _value, text, _choices in rulesets.describe(options):
            ids = cited(text)
            assert ids, f"{spec.name} option {name}: its text cites no section of docs/rules.md"
            assert all(s.startswith(letter) for s in ids), f"{spec.name} option {name}: {ids}"


def _games() -> list[tuple[str, str, int, dict[str, str]]]:
    return [
        ("hachi-hachi", "seed-1910", 4, {"rounds": "6"}),
        ("hachi-hachi", "standard", 3, {"rounds": "12"}),
        ("hachi-hachi", "standard", 7, {"rounds": "6", "who-pays": "split", "two-players": "split"}),
        ("bagaji", "seed", 4, {"end-after-minutes": "0", "end-after-rounds": "12"}),
        ("bagaji", "seed", 3, {"end-after-minutes": "0", "end-after-rounds": "12", "stock-exhausted": "no-winner",
                              "ready-required": "off", "stop-tie-fails": "off"}),
        ("poka", "seed", 2, {}),
        ("poka", "seed", 2, {"extra-jokers": "on", "stones-to-win": "3"}),
    ]


@pytest.mark.parametrize(("name", "ruleset", "seats", "overrides"), _games())
def test_settlement_lines_of_simulated_games_cite_sections(name, ruleset, seats, overrides):
    """Random legal matches: the settlement lines cite sections, and every section they cite exists."""
    spec = next(s for s in all_games() if s.name == name)
    found = sections()
    seen: set[str] = set()
    for seed in range(5):
        match = spec.match([f"P{i + 1}" for i in range(seats)], spec.options(ruleset, overrides))
        play_match(match, random.Random(seed))
        for result in match.results:
            for line in result.lines:
                ids = cited(line)
                assert all(s in found for s in ids), f"{line!r} cites a missing section"
                seen.update(ids)
    letter = {"hachi-hachi": "H", "bagaji": "B", "poka": "P"}[name]
    assert any(s.startswith(letter) for s in seen), f"{name}: no settlement line cites its rules"


def _option_row(name: str) -> str:
    rows = [line for line in doc().splitlines() if line.startswith(f"| `{name}` |")]
    assert len(rows) == 1, f"option {name}: expected one row in an options table of docs/rules.md, found {len(rows)}"
    return rows[0]


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return "none" if value is None else str(value)


def test_every_option_is_documented_with_its_values():
    """Each option of each game has a row in its game's options table: its values, default first
    (the option's own default; a ruleset's other values are said in the table and in H9.1)."""
    for spec in all_games():
        default = type(spec.options())()
        for field in dataclasses.fields(default):
            name = field.name.replace("_", "-")
            assert f"`{name}`" in doc(), f"{spec.name} option {name} is not in docs/rules.md"
            cells = [c.strip() for c in _option_row(name).strip("|").split("|")]
            values = cells[1]
            assert values.startswith(_shown(getattr(default, field.name))), (
                f"{spec.name} option {name}: the default is not the first value listed ({values!r})"
            )
            for choice in field.metadata.get("choices", ()):
                assert re.search(rf"(?<![\w-]){re.escape(_shown(choice))}(?![\w-])", values), (
                    f"{spec.name} option {name}: value {choice!r} is not listed ({values!r})"
                )
            assert cited(cells[2]) or re.search(r"\([GCHBP]\d", cells[2]), f"option {name}: no section named"


def test_every_ruleset_is_documented_with_its_differences():
    """Each named ruleset appears, and each option it sets away from the default is written NAME=VALUE."""
    for spec in all_games():
        base = type(spec.options())()
        for ruleset, options in spec.rulesets.items():
            assert f"`{ruleset}`" in doc(), f"{spec.name} ruleset {ruleset} is not in docs/rules.md"
            for name, value in rulesets.differences(options, base).items():
                assert f"`{name}={_shown(value)}`" in doc(), (
                    f"{spec.name} ruleset {ruleset}: `{name}={_shown(value)}` is not in docs/rules.md"
                )


@pytest.mark.parametrize("lang", ["ja", "ru"])
def test_each_translation_has_the_same_sections_codes_and_citations(lang: str) -> None:
    """docs/rules.<lang>.md is docs/rules.md section for section: the same headings (level, id, order),
    every code span (options, commands, card ids) and the same section ids cited as often."""
    translated = (ROOT / "docs" / f"rules.{lang}.md").read_text(encoding="utf-8")
    assert HEADING.findall(translated) == HEADING.findall(doc())
    spans = set(re.findall(r"`([^`\n]+)`", translated))
    missing = sorted(set(re.findall(r"`([^`\n]+)`", doc())) - spans)
    assert not missing, f"rules.{lang}.md lacks {missing[:10]}"
    ids = re.compile(r"(?<![\w.#-])[GCHBP]\d+(?:\.\d+)?(?!\w|\.\d)")
    assert sorted(ids.findall(translated)) == sorted(ids.findall(doc()))
