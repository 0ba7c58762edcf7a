"""A whole round of each game entered by taps alone on a phone-sized page (390 × 844), as issue 50
asks: Playwright on Debian's Chromium taps the move screen's buttons and card picker (no typing,
no list of sentences), including a Hachi-hachi teyaku claim, a Poka starting hand and a Bagaji call,
stop and show, and the page's settlement is the engine's. A screenshot of each game's move screen
goes to ``test-artifacts/`` (the ones in ``docs/`` are copies of these)."""

from __future__ import annotations

import statistics

import pytest

pytest.importorskip("playwright.sync_api")
from tests.browser_kit import (  # noqa: E402
    ARTIFACTS,
    CHROMIUM,
    merged_shows,
    new_page,
    start_game,
    tap_deal,
    tap_event,
)

pytestmark = [pytest.mark.phone, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]

PHONE = {"width": 390, "height": 844}
ROUNDS = [  # (game, seats, seed, what the round must hold)
    ("hachi-hachi", 3, 10, {"claim", "play", "draw", "declare"}),
    ("poka", 2, 100, {"claim"}),
    ("bagaji", 3, 0, {"call", "stop", "show", "discard"}),
]


@pytest.mark.parametrize("game,seats,seed,holds", ROUNDS)
def test_a_whole_round_by_taps_on_a_phone(server: str, browser: object, game: str, seats: int, seed: int,
                                          holds: set[str]) -> None:
    from scorer.simulate import entered_rounds

    steps, results = entered_rounds(game, seats, seed)
    steps = merged_shows(steps)
    assert holds <= {s.event["type"] for s in steps if s.kind == "event"}
    errors: list[str] = []
    page = new_page(browser, errors, viewport=PHONE)
    start_game(page, server, game, seats)
    taps: list[int] = []
    shot = False
    for step in steps:
        if step.kind == "deal":
            taps.append(tap_deal(page, dict(step.face_up), step.dealer))
            continue
        if not shot and page.locator("#moves .grid").count():
            ARTIFACTS.mkdir(exist_ok=True)
            page.locator("#moves").scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"phone-moves-{game}.png"))
            shot = True
        taps.append(tap_event(page, step.event))
    # the settlement, on top: each seat's total and change is the engine's
    page.wait_for_selector("#scorebar details.settled")
    changes = results[0]
    sums = [int(x) for x in page.locator("#scorebar .sum").all_inner_texts()]
    assert sums == list(changes)
    shown = [x.strip(" ()") for x in page.locator("#scorebar .change").all_inner_texts()]
    assert shown == [f"{'+' if c > 0 else ''}{c}" for c in changes]
    assert page.locator("#scorebar details.settled li").count() > 0
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert shot and not errors, errors
    # the common move takes at most three taps
    print(game, "taps per entry", taps)
    assert statistics.median(taps) <= 3, taps


def test_a_wrong_claim_is_refused_with_the_rules_reason(server: str, browser: object) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport=PHONE)
    start_game(page, server, "hachi-hachi", 3)
    tap_deal(page, {"field": ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"]}, 1)
    for _ in range(3):
        tap_event(page, page.evaluate("STATE.manual.legal[0].event"))  # everyone plays
    page.click('#moves button.kind[data-key="form:claim:2"]')
    for c in ("07-boar", "08-moon", "09-sakecup"):
        page.click(f'#moves .grid button.pick[data-card="{c}"]')
    page.click("#moves button.record")
    page.wait_for_function("document.getElementById('play-error').textContent !== ''")
    assert "back no teyaku" in page.inner_text("#play-error") and "H5.6" in page.inner_text("#play-error")
    # the picks stay, so a card can be taken back and another tapped
    assert page.locator("#moves .picked-row button.unpick").count() == 3
    assert [e for e in errors if "409" not in e] == [], errors  # the refusal's 409 is logged by the browser


def test_a_camera_question_is_drawn_as_cards(server: str, browser: object) -> None:
    """A question's candidates (the tracker's data: :meth:`scorer.tracker.values.Question.to_json`)
    as at most four buttons of seats and card faces, in the page's words (no raw event text), and
    "something else", which answers with the index after the last candidate."""
    from scorer.choices import MAX_CHOICES, choice_of
    from scorer.hachihachi.events import Draw, Play

    errors: list[str] = []
    page = new_page(browser, errors, viewport=PHONE)
    start_game(page, server, "hachi-hachi", 3)
    candidates = [[Play(2, "03-curtain", None)], [Play(2, "03-ribbon", None)], [Play(2, "03-plain-1", None)],
                  [Play(2, "03-plain-2", None)], [Play(2, "04-cuckoo", None), Draw(2, "05-bridge", None)]]
    choices = [choice_of(evs, 0).to_json() for evs in candidates[:MAX_CHOICES]]
    question = {"text": "Which happened? 1) play seat=2 card=03-curtain", "kind": "which-event", "since": 1.0,
                "candidates": ["..."] * len(candidates), "choices": choices, "something_else": "something-else"}
    view = {"camera": "on", "message": "", "source": "test", "calibrated": True, "frames": 10, "t": 1.0,
            "error": None, "state": "question", "question": question, "desync": None}
    page.evaluate("v => renderLive(v)", view)
    answers = page.locator("#live button.card-answer")
    assert answers.count() == MAX_CHOICES
    assert answers.nth(0).locator("img.card").count() == 1
    assert "Player 2" in answers.nth(0).inner_text()
    text = page.inner_text("#live")
    assert "seat=" not in text and "Which happened? 1)" not in text
    assert page.get_attribute("#live button.something-else", "data-choice") == str(len(candidates))
    page.screenshot(path=str(ARTIFACTS / "phone-question.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert not errors, errors


@pytest.mark.parametrize("lang", ["ja", "ru"])
def test_the_move_screen_in_each_language_fits_the_phone(server: str, browser: object, lang: str) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport=PHONE)
    start_game(page, server, "hachi-hachi", 3)
    page.select_option("#lang", lang)
    tap_deal(page, {"field": ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"]}, 1)
    for _ in range(3):
        tap_event(page, page.evaluate("STATE.manual.legal[0].event"))
    claim = page.inner_text('#moves button.kind[data-key="form:claim:2"]')
    assert claim.startswith("Player 2") and ("手役" in claim if lang == "ja" else "тэяку" in claim), claim
    assert page.inner_text("#moves .prompt") != "" and "Tap" not in page.inner_text("#moves")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert not errors, errors


def test_a_past_play_changed_by_tapping_another_card(server: str, browser: object) -> None:
    """"Change" on a past event opens the same card picker: the other card tapped replaces it."""
    errors: list[str] = []
    page = new_page(browser, errors, viewport=PHONE)
    start_game(page, server, "hachi-hachi", 3)
    tap_deal(page, {"field": ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"]}, 1)
    for _ in range(3):
        tap_event(page, page.evaluate("STATE.manual.legal[0].event"))
    tap_event(page, {"type": "play", "seat": 1, "card": "07-boar", "capture": None})
    before = page.evaluate("STATE.seq")
    page.click('#events button.edit[data-index="4"]')
    page.wait_for_selector("#editor:not([hidden]) .grid")
    assert page.locator('#editor .grid button.pick[data-card="07-boar"]').is_enabled()
    page.click('#editor .grid button.pick[data-card="08-moon"]')
    page.wait_for_function(f"STATE.seq > {before}")
    page.wait_for_selector("#editor[hidden]", state="attached")
    assert page.evaluate("STATE.events.map(e => e.event.card).filter(Boolean)") == ["08-moon"]
    assert not errors, errors


def test_out_of_sync_is_drawn_as_cards_in_the_page_s_language(server: str, browser: object) -> None:
    """The camera's out-of-sync box says what the game expects and, zone by zone, the cards
    expected and not seen and those seen and not expected, as faces, in the page's language."""
    from scorer.table import TableState

    errors: list[str] = []
    page = new_page(browser, errors, viewport=PHONE)
    start_game(page, server, "hachi-hachi", 3)
    page.select_option("#lang", "ja")
    expected = TableState.from_names({"field": ["03-curtain", "03-plain"]}, {"hand:2": 7})
    seen = TableState.from_names({"field": ["03-ribbon", "03-plain"]}, {"hand:2": 6})
    view = {"camera": "on", "message": "", "source": "test", "calibrated": True, "frames": 10, "t": 1.0,
            "error": None, "state": "out-of-sync", "question": None,
            "desync": {"text": "Out of sync: ...", "differences": expected.differences(seen),
                       "zones": expected.zone_differences(seen)}}
    page.evaluate("v => renderLive(v)", view)
    box = page.inner_text("#live .desync")
    assert "Out of sync" not in box and "expected" not in box and "場" in box, box
    assert page.locator("#live .zone-diff img.card").count() == 2  # the curtain missing, the ribbon seen
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(ARTIFACTS / "phone-desync.png"))
    assert not errors, errors
