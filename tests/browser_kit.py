"""Browser tests' shared parts: Debian's Chromium through Playwright (never a downloaded browser),
a ``fudaba run`` server over a fresh history, and the taps a player makes. Test modules import this
(``from tests.browser_kit import ...``) and declare the fixtures with ``server``/``browser`` fixtures
from :mod:`tests.conftest`. Nothing waits for "network idle": the live stream never idles."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def new_page(browser: object, errors: list[str], **kw: object):  # noqa: ANN201
    kw.setdefault("bypass_csp", True)  # Playwright's wait_for_function evaluates strings (eval);
    # tests/test_web_security.py checks the policy itself, without the bypass
    page = browser.new_page(**kw)  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    # the table may have no internet: every script, style, font and picture comes from fudaba itself
    page.on(
        "request",
        lambda r: (
            errors.append(f"a request off the server: {r.url}")
            if not r.url.startswith(("http://127.0.0.1:", "data:", "blob:http://127.0.0.1:"))
            else None
        ),
    )
    return page


def start_game(page, server: str, game: str, seats: int) -> str:  # noqa: ANN001
    page.goto(f"{server}/")
    page.select_option("#game", game)
    while page.locator("#seats input").count() < seats:
        page.click("#add-seat")
    page.click("#new-session button[type=submit]")
    page.wait_for_url("**/session/*")
    page.wait_for_selector("#link.on")
    return page.url


def last_seq(page) -> int:  # noqa: ANN001
    return int(
        page.evaluate(
            "document.querySelector('#log li.last') ? document.querySelector('#log li.last').value : 0"
        )
    )


def tap_and_wait(page, selector: str) -> None:  # noqa: ANN001
    before = last_seq(page)
    page.click(selector)
    page.wait_for_function(
        f"(document.querySelector('#log li.last') || {{value: 0}}).value > {before}"
    )


def deal(
    page, rng: random.Random, cards: list[str] | None = None, dealer: int | None = None
) -> None:  # noqa: ANN001
    """Enter the deal: tap ``cards`` face up (None: random ones, tried again where the rules refuse
    them) and choose ``dealer`` where the page asks."""
    for _ in range(20):
        need = int(page.get_attribute("#deal", "data-need") or 0)
        before = last_seq(page)
        if dealer is not None and page.locator("#dealer").count():
            page.select_option("#dealer", str(dealer))
        if cards is not None:
            for c in cards:
                page.click(f'#deal .deck button.pick[data-card="{c}"]')
        else:
            ids = page.locator("#deal .deck button.pick").evaluate_all("bs => bs.map(b => b.dataset.card)")
            for c in rng.sample(ids, need):
                page.click(f'#deal .deck button.pick[data-card="{c}"]')
        if page.locator("#dealer").count() or need == 0:  # else the last card tapped entered it
            page.click("#deal button.primary")
        page.wait_for_function(
            f"(document.querySelector('#log li.last') || {{value: 0}}).value > {before} "
            "|| document.getElementById('play-error').textContent !== ''"
        )
        error = page.inner_text("#play-error")
        if error == "":
            return
        assert cards is None, error
        page.evaluate("PICKED.length = 0; renderManual(STATE.manual)")
    raise AssertionError("no deal accepted")


# ---------------------------------------------------------------- the move screen, tap by tap
GROUPS_JS = """() => moveGroups(STATE.manual, STATE.status.expects.seat).map(g => ({key: g.key,
  direct: g.direct ? g.direct.i : null, form: g.form || null,
  items: g.items.map(it => ({i: it.i, event: it.event, cards: it.cards}))}))"""


def _plain(event: dict) -> dict:
    return {k: v for k, v in event.items() if k != "at"}


def _wait_recorded(page, before: int) -> bool:  # noqa: ANN001
    """Wait until the record grows past ``before`` or the page shows an error; True when it grew."""
    page.wait_for_function(f"(document.querySelector('#log li.last') || {{value: 0}}).value > {before} "
                           "|| document.getElementById('play-error').textContent !== '' "
                           "|| document.querySelector('#moves button.which') !== null")
    return last_seq(page) > before


class Taps:
    """Counts a player's taps on the move screen."""

    def __init__(self, page) -> None:  # noqa: ANN001
        self.page = page
        self.count = 0

    def click(self, selector: str) -> None:
        self.page.click(selector)
        self.count += 1


def tap_event(page, event: dict) -> int:  # noqa: ANN001
    """Enter ``event`` (its JSON) on the move screen as a player would, by its kind's button and its
    cards in the picker; the taps it took. AssertionError when the screen offers no way to it."""
    want = _plain(event)
    taps = Taps(page)
    before = last_seq(page)
    groups = page.evaluate(GROUPS_JS)
    open_key = page.evaluate("MOVE.key")
    for g in groups:
        for it in g["items"]:
            if _plain(it["event"]) != want:
                continue
            if g["direct"] is not None:
                taps.click(f'#moves button.kind.direct[data-i="{g["direct"]}"]')
                assert _wait_recorded(page, before), page.inner_text("#play-error")
                return taps.count
            if g["key"] != open_key:
                taps.click(f'#moves button.kind[data-key="{g["key"]}"]')
            cards = list(it["cards"])
            if isinstance(want.get("card"), str):  # its own card first
                cards.remove(want["card"])
                cards.insert(0, want["card"])
            for c in cards:
                taps.click(f'#moves .grid button.pick[data-card="{c}"]:not([disabled])')
                if last_seq(page) > before or page.locator("#moves button.which").count():
                    break
            if not _wait_recorded(page, before):
                taps.click(f'#moves button.which[data-i="{it["i"]}"]')
                assert _wait_recorded(page, before), page.inner_text("#play-error")
            return taps.count
    form = next((g for g in groups if g["form"] and g["form"]["type"] == want["type"]
                 and g["form"]["seat"] == want.get("seat")), None)
    assert form is not None, f"the move screen offers no way to {want}"
    if form["key"] != open_key:
        taps.click(f'#moves button.kind[data-key="{form["key"]}"]')
    for c in want["cards"]:
        taps.click(f'#moves .grid button.pick[data-card="{c}"]:not([disabled])')
    f = form["form"]
    if f["fewest"] != f["most"]:
        taps.click("#moves button.record")
    if not _wait_recorded(page, before):
        choose = page.evaluate("MOVE.choose.map(c => c.event)")
        index = next(i for i, e in enumerate(choose) if _plain(e) == want)
        taps.click(f'#moves button.which[data-n="{index}"]')
        assert _wait_recorded(page, before), page.inner_text("#play-error")
    return taps.count


def tap_deal(page, face_up: dict, dealer: int | None) -> int:  # noqa: ANN001
    """Enter a deal by its face-up cards (and its dealer where the page asks); the taps it took."""
    taps = Taps(page)
    before = last_seq(page)
    cards = [c for v in face_up.values() for c in v]
    asks = page.locator("#dealer").count() > 0
    if asks and dealer is not None:
        page.select_option("#dealer", str(dealer))
        taps.count += 1
    for c in cards:
        taps.click(f'#deal .grid button.pick[data-card="{c}"]')
    if asks or not cards:
        taps.click("#deal button.primary")
    assert _wait_recorded(page, before), page.inner_text("#play-error")
    return taps.count


def merged_shows(steps: list) -> list:  # noqa: ANN001
    """``steps`` (scorer.simulate.EntryStep) with a seat's shows in a row made one show of all its
    cards: a hand laid down at once, as players do."""
    out: list = []
    for s in steps:
        prev = out[-1] if out else None
        if (s.kind == "event" and s.event["type"] == "show" and prev is not None and prev.kind == "event"
                and prev.event["type"] == "show" and prev.event["seat"] == s.event["seat"]):
            out[-1] = type(s)("event", event={**prev.event, "cards": prev.event["cards"] + s.event["cards"]})
        else:
            out.append(s)
    return out
