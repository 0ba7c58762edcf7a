"""A move the rules refuse is said in the page's language (issue 50): the engines raise
``IllegalEventError(rule, message)``; the API's 409 carries the rule's id beside the English
``error``; each game's ``texts.json`` says its own rules ("refusals": rule id → {en, ja, ru}) and
``web/static/gametext.js`` the rules of the scorer's shared parts (``GENERIC_REFUSALS``); the page
shows the sentence, the English as its title.

The rule ids are found by reading the scorer's source, so that a rule added to an engine without a
sentence fails here."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from scorer.games import GAME_MODULES, game
from tests.browser_kit import new_page, start_game
from tests.helpers import Browser, make_app

ROOT = Path(__file__).resolve().parent.parent
SCORER = ROOT / "scorer"
GAMETEXT = ROOT / "web" / "static" / "gametext.js"
RULES_DOC = ROOT / "docs" / "rules.md"
LANGUAGES = ("en", "ja", "ru")
PHONE = {"width": 390, "height": 844}

RULE_ID = r"([a-z0-9]+(?:-[a-z0-9]+)*)"
# where a rule id is written: the first argument of the error or of the engines' helpers making it ...
RAISED = re.compile(r"\b(?:_illegal|_refuse|IllegalEventError)\(\s*\"" + RULE_ID + '"')
# ... a (rule, reason) pair returned for ``IllegalEventError(*verdict)`` (Poka's plays) ...
PAIR = re.compile(r"return \(\s*\"" + RULE_ID + r"\",\s*f?\"")
# ... and a stop test's rule, raised as ``_refuse(check.rule, ...)`` (Bagaji's stops)
STOP_CHECK = re.compile(r"StopCheck\((?:[^\"]|\"\")*?\"" + RULE_ID.replace("*", "+") + '"')
# a raise whose rule is not written at the call, and where its ids are found instead
INDIRECT = re.compile(r"\b(?:_illegal|_refuse|IllegalEventError)\((?!\s*\")([^,)]*)")
KNOWN_INDIRECT = {"rule": "the helpers themselves", "*verdict": "PAIR", "check.rule": "STOP_CHECK"}
# the end of the statement that raises: its message lies before it
STATEMENT_END = re.compile(r"\n\s*(?:raise|return|if|elif|else|for|def|#|[a-z_]+ =)\b")
CITATION = re.compile(r"\(rules ([^)]*)\)")
SECTION = re.compile(r"\b[A-Z]\d+(?:\.\d+)*\b")


def sections(text: str) -> set[str]:
    """The rule sections a text cites: ``(rules H2.2, H2.3)`` (also ``(option x, rules B4.3)``)."""
    found: set[str] = set()
    for m in re.finditer(r"rules ((?:[A-Z]\d+(?:\.\d+)*)(?:,\s*[A-Z]\d+(?:\.\d+)*)*)", text):
        found |= set(SECTION.findall(m.group(1)))
    return found


def owner(path: Path) -> str:
    """The game whose folder holds ``path`` ("" for the scorer's shared parts)."""
    folder = path.relative_to(SCORER).parts[0]
    return next((name for name, module in GAME_MODULES.items() if module == f"scorer.{folder}"), "")


def raised_rules() -> dict[str, dict[str, set[str]]]:
    """Owner ("" shared, else the game) → rule id → the sections its English messages cite."""
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(SCORER.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for pattern in (RAISED, PAIR, STOP_CHECK):
            for m in pattern.finditer(text):
                end = STATEMENT_END.search(text, m.end())
                found[owner(path)][m.group(1)] |= sections(text[m.start():end.start() if end else len(text)])
    return found


def generic_refusals() -> dict[str, Any]:
    m = re.search(r"^const GENERIC_REFUSALS = (\{.*?^\});", GAMETEXT.read_text(encoding="utf-8"), re.M | re.S)
    assert m, "gametext.js has no GENERIC_REFUSALS"
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def own_refusals(name: str) -> dict[str, Any]:
    data: dict[str, Any] = game(name).description.texts["refusals"]
    return data


def test_the_scan_finds_every_kind_of_raise() -> None:
    rules = raised_rules()
    assert {"card-in-hand", "claim-shown-cards", "turn-order"} <= set(rules["hachi-hachi"])
    assert {"next-month", "jan-feb-exception", "one-card-per-month", "seat"} <= set(rules["poka"])  # PAIR
    assert {"stop-limit", "stop-needs-call", "not-a-win"} <= set(rules["bagaji"])  # STOP_CHECK
    assert {"form-closed", "form-count", "form-card", "form-none", "deal-entry", "match-over"} <= set(rules[""])
    assert rules["hachi-hachi"]["deal-mid-round"] == {"H2.2", "H2.3"}
    assert rules["hachi-hachi"]["claim-shown-cards"] == {"H5.1", "H5.6"}  # the engine's and the form's
    assert rules["bagaji"]["call-needs-ready"] == {"B7.3", "B8"}
    assert rules["bagaji"]["stop-limit"] == {"B5.2"}
    unknown = []
    for path in sorted(SCORER.rglob("*.py")):
        for m in INDIRECT.finditer(path.read_text(encoding="utf-8")):
            line = m.string[m.string.rfind("\n", 0, m.start()) + 1:m.start()]
            if line.lstrip().startswith(("def ", "class ")):
                continue
            if m.group(1).strip() not in KNOWN_INDIRECT:
                unknown.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    assert not unknown, f"rule ids this scan cannot read (write the id at the raise): {unknown}"


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_every_rule_of_a_game_has_a_sentence_in_every_language(name: str) -> None:
    rules, generic, own = raised_rules(), generic_refusals(), own_refusals(name)
    missing = sorted(set(rules[name]) - set(own) - set(generic))
    assert not missing, f"{name}: no sentence for the rule(s) {missing} (scorer/<game>/texts.json 'refusals')"
    assert set(own) <= set(rules[name]), f"{name}: sentences for rules it never raises: {sorted(set(own) - set(rules[name]))}"
    assert not set(own) & set(generic), f"{name}: said twice, here and in gametext.js: {sorted(set(own) & set(generic))}"
    for rule, say in own.items():
        assert set(say) == set(LANGUAGES), (name, rule)
        assert all(isinstance(say[lang], str) and say[lang].strip() for lang in LANGUAGES), (name, rule)


def test_every_shared_rule_has_a_sentence_in_every_language() -> None:
    rules, generic = raised_rules(), generic_refusals()
    missing = sorted(set(rules[""]) - set(generic))
    assert not missing, f"no sentence for the shared rule(s) {missing} (gametext.js GENERIC_REFUSALS)"
    assert set(generic) <= set(rules[""]), f"shared sentences for rules no shared part raises: {sorted(set(generic) - set(rules['']))}"
    for rule, say in generic.items():
        assert set(say) == set(LANGUAGES), rule
        assert all(isinstance(say[lang], str) and say[lang].strip() for lang in LANGUAGES), rule


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_the_rules_refused_in_random_play_are_found_and_said(name: str) -> None:
    """A check of the scan: events of the match's own past, tried again at every step of random
    matches (every seat count and ruleset), are refused by rules the scan found and the texts say."""
    import random

    from scorer.errors import IllegalEventError

    spec, rules = game(name), raised_rules()
    said = set(own_refusals(name)) | set(generic_refusals())
    found = set(rules[name]) | set(rules[""])
    refused: set[str] = set()
    for seats in range(spec.min_players, spec.max_players + 1):
        for ruleset in spec.rulesets:
            rng = random.Random(seats)
            match = spec.match([f"Seat {i + 1}" for i in range(seats)], spec.options(ruleset))
            past: list[Any] = []
            for _ in range(300):
                if match.is_over:
                    break
                past.append(match.random_event(rng))
                for event in rng.sample(past, min(6, len(past))):
                    exc = match.check(event)
                    if isinstance(exc, IllegalEventError):
                        refused.add(exc.rule)
                match.apply(past[-1])
    assert len(refused) >= 10, sorted(refused)
    assert refused <= found, f"refused by rules the scan misses: {sorted(refused - found)}"
    assert refused <= said, f"refused by rules no text says: {sorted(refused - said)}"


def _tables() -> list[tuple[str, str, dict[str, str]]]:
    tables = [("", rule, say) for rule, say in generic_refusals().items()]
    return tables + [(name, rule, say) for name in GAME_MODULES for rule, say in own_refusals(name).items()]


def test_every_sentence_cites_the_rules_the_engine_cites_in_every_language() -> None:
    """The English sentence cites every section the engine's messages for its rule cite (it may cite
    more); Japanese and Russian cite the same sections, written as the English (``(rules H6.1)``),
    each a section of docs/rules.md. Sentences are said as they are: no placeholders."""
    rules = raised_rules()
    headings = set(re.findall(r"^#{3,4} ([A-Z]\d+(?:\.\d+)*) ", RULES_DOC.read_text(encoding="utf-8"), re.M))
    wrong = []
    for owner_name, rule, say in _tables():
        where = f"{owner_name or 'generic'} {rule}"
        cited = {lang: set().union(*(set(SECTION.findall(c)) for c in CITATION.findall(say[lang])))
                 for lang in LANGUAGES}
        engine = rules[owner_name][rule] | (set().union(*(r.get(rule, set()) for r in rules.values()))
                                             if not owner_name else set())
        if not engine <= cited["en"]:
            wrong.append(f"{where}: the engine cites {sorted(engine)}, the sentence {sorted(cited['en'])}")
        for lang in ("ja", "ru"):
            if cited[lang] != cited["en"]:
                wrong.append(f"{where}.{lang}: cites {sorted(cited[lang])}, the English {sorted(cited['en'])}")
        if cited["en"] - headings:
            wrong.append(f"{where}: {sorted(cited['en'] - headings)} are no sections of docs/rules.md")
        if any("{" in say[lang] for lang in LANGUAGES):
            wrong.append(f"{where}: a placeholder (refusals are said as they are)")
    assert not wrong, "\n".join(wrong)


# ---------------------------------------------------------------- the API
@pytest.fixture
def client(tmp_path: Path) -> Browser:
    return Browser(make_app(tmp_path).test_client())


def test_a_refusal_of_the_rules_carries_its_rule(client: Browser) -> None:
    r = client.post("/api/sessions", {"game": "hachi-hachi", "players": ["Aki", "Ben", "Chi"]})
    assert r.status_code == 201, r.json
    sid = r.json["id"]  # type: ignore[index]
    r = client.post(f"/api/sessions/{sid}/event", {"event": {"type": "play", "seat": 1, "card": "01-crane"}})
    assert r.status_code == 409
    assert r.json == {"error": "a round starts with a deal, not play (rules H2.2) [rule: deal-first]", "rule": "deal-first"}
    r = client.post(f"/api/sessions/{sid}/pick", {"type": "claim", "seat": 1, "cards": ["01-crane"]})
    assert r.status_code == 409 and r.json["rule"] == "form-closed", r.json  # type: ignore[index]
    assert r.json["error"].endswith("[rule: form-closed]")  # type: ignore[index]
    r = client.post(f"/api/sessions/{sid}/deal", {"face_up": {"field": ["01-crane"]}})
    assert r.status_code == 409 and r.json["rule"] == "deal-entry", r.json  # type: ignore[index]
    # a refusal that names no rule, and a malformed request, carry none
    r = client.post(f"/api/sessions/{sid}/undo", {})
    assert r.status_code == 409 and set(r.json) == {"error"}, r.json  # type: ignore[arg-type]
    r = client.post(f"/api/sessions/{sid}/event", {"event": {"type": "no-such-event"}})
    assert r.status_code in (400, 409) and "rule" not in r.json, r.json  # type: ignore[operator]


# ---------------------------------------------------------------- the page
def test_a_refused_move_is_said_in_japanese_on_a_phone(server: str, browser: object) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport=PHONE, is_mobile=True, has_touch=True)
    start_game(page, server, "hachi-hachi", 3)
    page.select_option("#lang", "ja")
    page.evaluate("act('POST', 'event', {event: {type: 'play', seat: 1, card: '01-crane'}})")
    page.wait_for_function("document.getElementById('play-error').textContent !== ''")
    line = page.locator("#play-error")
    assert line.inner_text() == own_refusals("hachi-hachi")["deal-first"]["ja"]
    assert line.get_attribute("title") == "a round starts with a deal, not play (rules H2.2) [rule: deal-first]"
    assert line.is_visible() and page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # a text (moves.js gives the message) is shown as it is, with no title
    page.evaluate("showError('plain words')")
    assert line.inner_text() == "plain words" and line.get_attribute("title") is None
    # an error without a rule: its English
    page.evaluate("act('POST', 'undo', {})")
    page.wait_for_function("document.getElementById('play-error').textContent.includes('undo')")
    assert "undo" in line.inner_text() and line.get_attribute("title") is None
    assert [e for e in errors if "409" not in e] == [], errors  # the refusals' 409s are logged by the browser
