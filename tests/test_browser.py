"""The dashboard in a real browser: Playwright driving Debian's Chromium (never a downloaded one).

Skipped where Chromium or Playwright is missing (``.ci/run`` installs both). The server is the one
``fudaba run`` starts (waitress over a fresh history). Screenshots go to ``test-artifacts/``.
Nothing waits for "network idle": the live stream never idles.
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api")
from tests.browser_kit import (  # noqa: E402
    ARTIFACTS,
    CHROMIUM,
    deal,
    last_seq,
    new_page,
    start_game,
    tap_and_wait,
)
from tests.helpers import sigint_default  # noqa: E402

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.mark.parametrize("game,seats,seed", [("poka", 2, 4), ("hachi-hachi", 3, 5), ("bagaji", 3, 6)])
def test_a_manual_round_of_each_game_to_its_settlement(server: str, browser: object, game: str, seats: int,
                                                       seed: int) -> None:
    """A simulated round entered by tapping, as players would: the page shows its settlement."""
    from scorer.simulate import entered_rounds

    steps, results = entered_rounds(game, seats, seed)
    changes = results[0]
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    start_game(page, server, game, seats)
    for step in steps:
        if step.kind == "deal":
            deal(page, random.Random(0), [c for cards in step.face_up.values() for c in cards], step.dealer)
            continue
        legal = page.evaluate("STATE.manual.legal.map(x => x.event)")
        index = next((i for i, e in enumerate(legal) if {k: v for k, v in e.items() if k != "at"} == step.event), None)
        assert index is not None, f"{step.event} is not among the {len(legal)} events offered"
        if not page.locator("#all-moves").evaluate("d => d.open"):
            page.click("#all-moves summary")  # every legal move as a list, the move screen's fallback
        tap_and_wait(page, f'#legal button.event[data-i="{index}"]')
    page.wait_for_selector("#rounds details")
    shown = page.inner_text("#rounds summary")
    for seat, change in enumerate(changes, start=1):
        assert f"Player {seat} {'+' if change > 0 else ''}{change}" in shown, shown
    totals = [int(x) for x in page.locator("td.total").all_inner_texts()]
    assert totals == list(changes)
    assert page.locator("#chart svg polyline").count() == seats  # the running totals, a line per seat
    # the settlement's rule citations link to the rules page's sections, which exist
    page.click("#rounds summary")
    links = page.locator('#rounds a[href^="/rules?lang=en#"]')
    assert links.count() > 0
    rules_page = page.context.request.get(f"{server}/rules").text()
    for href in links.evaluate_all("xs => xs.map(x => x.getAttribute('href'))"):
        assert f'id="{href.split("#", 1)[1]}"' in rules_page, href
    assert "null" not in page.inner_text("body") and "undefined" not in page.inner_text("body")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"manual-{game}.png"), full_page=True)
    assert errors == []


def test_an_undo_shows_on_every_screen_and_a_reload_resumes(server: str, browser: object) -> None:
    errors: list[str] = []
    laptop = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    url = start_game(laptop, server, "hachi-hachi", 3)
    deal(laptop, random.Random(3))
    phone = new_page(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.goto(url)
    phone.wait_for_selector("#link.on")
    tap_and_wait(laptop, "#moves button.kind.direct >> nth=0")
    phone.wait_for_function("document.querySelector('#log li.last').value == 2")
    assert re.fullmatch(r"Player 1 (plays|retires)( · .*)?", phone.inner_text("#log li.last")), phone.inner_text("#log li.last")
    # undo on the phone: the laptop sees it
    tap_and_wait(phone, "#undo")
    laptop.wait_for_function("document.querySelector('#log li.last').value == 3")
    assert laptop.inner_text("#log li.last").startswith("undo")
    assert "Player 1 is to declare play or retire" in laptop.inner_text("#expects")
    # reload mid-game: the same state comes back
    laptop.reload()
    laptop.wait_for_selector("#link.on")
    laptop.wait_for_function("document.querySelector('#log li.last') && document.querySelector('#log li.last').value == 3")
    assert "Player 1 is to declare play or retire" in laptop.inner_text("#expects")
    ARTIFACTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(ARTIFACTS / "phone.png"), full_page=False)
    laptop.screenshot(path=str(ARTIFACTS / "laptop.png"), full_page=False)
    # a phone-sized screen shows the scoreboard without sideways scrolling
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    assert errors == []


def test_fudaba_demo_shows_the_first_moves_and_scores_arrive_live(browser: object, base_clip: Path,
                                                                   tmp_path: Path) -> None:
    """``fudaba demo`` as a user starts it (its game already rendered: here the first 21 s of a
    rendered Poka game stand in for the bundled one): events appear in the page as the video plays."""
    import os
    import signal
    import subprocess
    import sys

    from fudaba.serve import DEMO

    folder = tmp_path / "demo" / f"{DEMO['game']}-{DEMO['players']}-{DEMO['ruleset']}-{DEMO['seed']}"
    folder.mkdir(parents=True)
    shutil.copy(base_clip, folder / "video.mp4")
    (folder / "done").write_text("")
    proc = subprocess.Popen([sys.executable, "-m", "fudaba", "demo", "--data", str(tmp_path / "demo.sqlite3"),
                             "--port", "0", "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=Path(__file__).resolve().parent.parent, preexec_fn=sigint_default)
    try:
        assert proc.stdout is not None
        url = None
        for line in proc.stdout:
            if "dashboard at " in line:
                url = line.split("dashboard at ", 1)[1].strip()
                break
        assert url and "/session/" in url, "fudaba demo printed no dashboard address"
        errors: list[str] = []
        page = new_page(browser, errors, viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.wait_for_selector("#link.on")
        page.wait_for_function("document.querySelector('#live .camera') !== null")
        # the deal, then plays, arrive while the video runs (seat 2 deals and plays 01-ribbon in its first 15 s)
        page.wait_for_function("document.querySelectorAll('#log li').length >= 2", timeout=60_000)
        log = page.inner_text("#log")
        assert "Player 2 deals; table card " in log and "Player 2 plays " in log, log
        assert page.locator("td.total").count() == 2
        # the emulated stone counter is linked and its LEDs are drawn
        page.wait_for_function("document.querySelectorAll('#counter .strip .led').length > 0")
        page.wait_for_function("document.querySelector('#counter .counter-link').textContent.includes('connected (')")
        assert "null" not in page.inner_text("body") and "undefined" not in page.inner_text("body")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "demo.png"), full_page=True)
        assert errors == []
    finally:
        os.kill(proc.pid, signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_changing_a_past_event_in_the_page(server: str, browser: object) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    start_game(page, server, "hachi-hachi", 3)
    deal(page, random.Random(0), ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"], 1)
    for _ in range(3):  # every seat declares to play
        tap_and_wait(page, '#moves button.kind.direct[data-i="0"]')
    before = last_seq(page)
    page.click('#events button.edit[data-index="2"]')
    page.wait_for_selector("#editor:not([hidden]) button.kind")
    page.click('#editor button.kind.direct:has-text("Player 2 retires")')
    page.wait_for_function(f"document.querySelector('#log li.last').value > {before}")
    page.wait_for_selector("#editor[hidden]", state="attached")
    texts = page.locator("#events li").all_inner_texts()
    assert [t.replace("change", "").strip() for t in texts][:3] == [
        "Player 3 plays", "Player 2 retires", "Player 1 plays"]
    assert errors == []


def test_switching_language_changes_the_page_and_stays_after_a_reload(server: str, browser: object) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    start_game(page, server, "poka", 2)
    assert page.inner_text("#confirm") == "Confirm last"
    assert page.inner_text("#expects") == "a deal is due"
    page.select_option("#lang", "ja")
    assert page.inner_text("#confirm") == "最後を確認"
    assert page.inner_text("#scores th >> nth=0") == "席"
    # the game's own texts too: what is expected, the events, the places; the rules in Japanese
    assert page.inner_text("#expects") == "配札を待っています"
    deal(page, random.Random(5), dealer=2)
    page.wait_for_function("document.querySelector('#log li.last') && document.querySelector('#log li.last').value == 1")
    assert re.fullmatch(r"Player 2が配る。場札は.+ · dashboard", page.inner_text("#log li.last")), page.inner_text("#log li.last")
    assert page.inner_text("#undo") == "最後を取り消す"  # beside the line just recorded
    assert "番" in page.inner_text("#expects") and "山札" in page.inner_text("#places")
    assert page.get_attribute("a.rules-link", "href") == "/rules?lang=ja"
    # a camera's question says its candidates in the language too
    said = page.evaluate("candidateText({candidates: ['seat 1 plays 10-deer'], "
                         "options: [{retract: 1, events: [{type: 'play', seat: 1, card: '10-deer'}]}]}, 0)")
    assert said == "最後の1手を取り消して：Player 1が紅葉に鹿を出す", said
    page.reload()
    page.wait_for_selector("#link.on")
    assert page.inner_text("#undo") == "最後を取り消す" and page.evaluate("document.documentElement.lang") == "ja"
    page.select_option("#lang", "ru")
    assert page.inner_text("#undo") == "Отменить последнее" and page.inner_text("#link") == "на связи"
    assert page.inner_text("#log li.last").startswith("Player 2 сдаёт; карта на столе — ")
    page.click("a.rules-link")
    page.wait_for_url("**/rules?lang=ru")
    assert page.get_attribute("article.rules", "data-rules-lang") == "ru" and "Правила" in page.inner_text("article.rules h1")
    page.select_option("#lang", "ja")  # the rules page follows the language chosen on it
    page.wait_for_url("**/rules?lang=ja")
    page.wait_for_selector("article[data-rules-lang=ja]")
    page.goto(f"{server}/")
    assert page.inner_text("#new-session button[type=submit]") == "開始"  # chosen last on the rules page
    page.select_option("#lang", "en")
    assert page.inner_text("#new-session button[type=submit]") == "Start"
    assert errors == []


def test_a_camera_game_set_up_on_the_home_page(server: str, browser: object, base_clip: Path) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/")
    page.select_option("#game", "poka")
    page.fill("#camera", str(base_clip))
    page.click("#look")
    page.wait_for_function("document.getElementById('look-status').textContent.includes('4 of 4 markers')",
                           timeout=30_000)
    page.wait_for_function("document.getElementById('look-picture').naturalWidth > 0")
    # the zone check: the game's zones listed, a card lying in one named there
    page.wait_for_selector("#zone-check li[data-zone=pile].full", timeout=30_000)
    assert page.locator("#zone-check li").count() >= 4
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "setup-preview.png"), full_page=True)
    page.click("#new-session button[type=submit]")
    page.wait_for_url("**/session/*")
    page.wait_for_selector("#live:not([hidden]) .camera")
    page.wait_for_function("document.querySelectorAll('#log li').length >= 1", timeout=60_000)
    assert "Player 2 deals; table card " in page.inner_text("#log")
    assert errors == []


def test_corners_tapped_on_the_camera_s_picture(server: str, browser: object, tmp_path: Path) -> None:
    import json
    import urllib.request

    from tests.conftest import write_plain_table

    frames = write_plain_table(tmp_path / "frames", 150)  # ten seconds, no markers
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 1280, "height": 1000})
    page.goto(f"{server}/")
    page.select_option("#game", "poka")
    page.fill("#camera", str(frames))
    page.click("#new-session button[type=submit]")
    page.wait_for_url("**/session/*")
    page.wait_for_selector("#live:not([hidden]) .camera")
    page.click("#corners-setup summary")
    page.wait_for_function("document.getElementById('frame-pic').naturalWidth > 0")
    box = page.locator("#frame-pic").bounding_box()
    for x, y in ((100, 80), (540, 80), (540, 400), (100, 400)):
        page.mouse.click(box["x"] + box["width"] * x / 640, box["y"] + box["height"] * y / 480)
    assert page.locator("#corner-dots .corner").count() == 4
    page.click("#corners-use")
    sid = page.url.rsplit("/", 1)[1]
    page.wait_for_function("document.querySelector('#live .camera').textContent.includes('frames')", timeout=20_000)
    with urllib.request.urlopen(f"{server}/api/sessions/{sid}/state") as r:
        assert json.load(r)["live"]["calibration"] == "manual"
    assert errors == []


def test_a_stone_counter_connected_from_the_page(server: str, browser: object) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 1280, "height": 900})
    start_game(page, server, "poka", 2)
    page.click("#counter-setup summary")
    page.wait_for_selector('#counter-port option[value="emulated"]', state="attached")
    page.select_option("#counter-port", "emulated")
    page.click("#counter-connect")
    page.wait_for_function("document.querySelectorAll('#counter .strip .led').length > 0")
    page.wait_for_function("document.querySelector('#counter .counter-link').textContent.includes('connected (')")
    assert page.locator("#to-counter").is_hidden()
    assert errors == []


@pytest.mark.phone
def test_no_page_scrolls_sideways_or_shows_a_broken_image_on_a_phone(server: str, browser: object) -> None:
    """A 390 × 844 phone: the home page, the rules (each game's), the PIN page and a game of each
    kind are no wider than the screen (wide rules tables scroll inside themselves), and no picture
    shows broken (an image waiting for the camera stays hidden)."""
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    urls = [f"{server}/", f"{server}/pin", *(f"{server}/rules?game={g}" for g in ("", "poka", "hachi-hachi", "bagaji"))]
    urls += [start_game(page, server, g, n) for g, n in (("poka", 2), ("hachi-hachi", 3), ("bagaji", 3))]
    for url in urls:
        page.goto(url)
        page.wait_for_selector("main")
        page.wait_for_timeout(300)
        width = page.evaluate("document.documentElement.scrollWidth")
        wide = page.evaluate("[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391)"
                             ".slice(0, 3).map(e => e.tagName + '#' + e.id + '.' + e.className)")
        broken = page.evaluate("[...document.images].filter(i => i.getClientRects().length && "
                               "(!i.getAttribute('src') || (i.complete && i.naturalWidth === 0))).map(i => i.id || i.src)")
        assert width <= 390 and not wide, f"{url} is {width} px wide: {wide}"
        assert not broken, f"{url} shows broken pictures: {broken}"
    assert not errors, errors
