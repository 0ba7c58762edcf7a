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
        if cards is not None:
            for c in cards:
                page.click(f'#deal .deck button.pick[data-card="{c}"]')
        else:
            picks = page.locator("#deal .deck button.pick")
            for i in rng.sample(range(picks.count()), need):
                picks.nth(i).click()
        if dealer is not None and page.locator("#dealer").count():
            page.select_option("#dealer", str(dealer))
        before = last_seq(page)
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
