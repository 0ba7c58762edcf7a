"""The new-game form's options and the rules page's how-to-play (issue 50, "phone first").

``GET /api/games`` lists every option of every game with its kind, allowed values and default per
ruleset (the defaults are ``GameSpec.options(ruleset, {})``); a session started with an option
override gets it. On a 390 × 844 phone the home page's form starts a Bagaji game with the deck and
session length chosen there, and the rules page opens with each game's how-to-play, one screen each,
in English, Japanese and Russian.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fudaba.session import Sessions
from fudaba.store import Store
from scorer import rulesets
from scorer.games import all_games, game
from web import WebConfig, create_app

REPO = Path(__file__).resolve().parent.parent
I18N = (REPO / "web" / "static" / "i18n.js").read_text(encoding="utf-8")
KANA_KANJI = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
CYRILLIC = re.compile(r"[\u0400-\u04ff]")
GAMES = ("hachi-hachi", "bagaji", "poka")
PHONE = {"width": 390, "height": 844}


class Client:
    """Flask's test client carrying the page's CSRF token, as the pages' JavaScript does."""

    def __init__(self, tmp_path: Path) -> None:
        config = WebConfig(secret_key=b"k" * 32, rules=REPO / "docs" / "rules.md")
        self.c = create_app(config, Sessions(Store(tmp_path / "h.sqlite3"))).test_client()
        m = re.search(r'name="csrf-token" content="([^"]+)"', self.c.get("/").get_data(as_text=True))
        self.token = m.group(1) if m else ""

    def post(self, url: str, body: object):  # noqa: ANN201
        return self.c.post(url, json=body, headers={"X-CSRF-Token": self.token})

    def get(self, url: str):  # noqa: ANN201
        return self.c.get(url)


def _header(client: Client, sid: int) -> dict:
    return json.loads(client.get(f"/api/sessions/{sid}/record").get_data(as_text=True).splitlines()[0])


def _i18n_keys(lang: str) -> set[str]:
    """The keys of one language's dictionary in web/static/i18n.js."""
    start = I18N.index(f"\n  {lang}: {{\n")
    end = I18N.index("\n  },\n", start)
    return set(re.findall(r'"([a-z0-9-]+)":', I18N[start:end]))


def test_the_games_list_every_option_with_its_default_under_each_ruleset(tmp_path: Path) -> None:
    listed = {g["name"]: g for g in Client(tmp_path).get("/api/games").json}
    keys = {lang: _i18n_keys(lang) for lang in ("en", "ja", "ru")}
    for spec in all_games():
        options = listed[spec.name]["options"]
        for ruleset in spec.rulesets:
            expected = rulesets.to_json(spec.options(ruleset, {}))
            assert {o["name"]: o["defaults"][ruleset] for o in options} == expected, (spec.name, ruleset)
        for o in options:
            assert o["kind"] in ("int", "bool", "choice"), o
            assert set(o["defaults"]) == set(spec.rulesets), o
            if o["kind"] == "choice":
                assert all(v in o["values"] for v in o["defaults"].values()), o
            for lang, known in keys.items():
                assert o["label"] in known, f"{o['label']} has no {lang} label in i18n.js"
    main = {name: [o["name"] for o in g["options"] if o["main"]] for name, g in listed.items()}
    assert main == {"hachi-hachi": ["rounds"], "bagaji": ["deck", "end-after-minutes", "end-after-rounds"],
                    "poka": ["stones-to-win"]}
    deck = next(o for o in listed["bagaji"]["options"] if o["name"] == "deck")
    assert deck["values"] == ["playing-2x", "hanafuda-1x", "hanafuda-2x"] and deck["defaults"] == {"seed": "playing-2x"}
    fields = next(o for o in listed["hachi-hachi"]["options"] if o["name"] == "fields")
    assert fields["kind"] == "bool" and fields["defaults"] == {"seed-1910": False, "standard": True}
    pairs = next(o for o in listed["bagaji"]["options"] if o["name"] == "four-and-pair-score")
    assert pairs["kind"] == "int" and pairs["nullable"] and pairs["defaults"] == {"seed": None}


def test_a_session_started_with_an_option_override_gets_it(tmp_path: Path) -> None:
    client = Client(tmp_path)
    r = client.post("/api/sessions", {"game": "bagaji", "players": ["Aki", "Ben", "Chi"],
                                      "options": {"deck": "hanafuda-1x", "end-after-minutes": 45}})
    assert r.status_code == 201, r.json
    state = client.get(f"/api/sessions/{r.json['id']}/state").json
    assert state["session"]["deck"] == "hanafuda" and state["clock"]["limit_s"] == 45 * 60
    header = _header(client, r.json["id"])
    expected = rulesets.to_json(game("bagaji").options("seed", {"deck": "hanafuda-1x", "end-after-minutes": 45}))
    assert header["options"] == expected and header["deck"] == "hanafuda"
    r = client.post("/api/sessions", {"game": "hachi-hachi", "ruleset": "standard", "players": ["Aki", "Ben", "Chi"],
                                      "options": {"rounds": 6}})
    assert r.status_code == 201, r.json
    header = _header(client, r.json["id"])
    assert header["ruleset"] == "standard" and header["options"]["rounds"] == 6 and header["options"]["fields"] is True
    r = client.post("/api/sessions", {"game": "hachi-hachi", "players": ["Aki", "Ben", "Chi"], "options": {"rounds": 7}})
    assert r.status_code == 400 and "rounds" in r.json["error"] and "12, 6, 3" in r.json["error"]


@pytest.mark.parametrize("lang", ["en", "ja", "ru"])
def test_the_rules_page_opens_with_each_games_how_to_play(tmp_path: Path, lang: str) -> None:
    page = Client(tmp_path).get(f"/rules?lang={lang}").get_data(as_text=True)
    main = page[page.index("<main>"):]
    assert main.index('class="howto-all"') < main.index("<article"), "the how-to comes before the full rules"
    assert f'id="howto" lang="{lang}"' in main
    for name, part in zip(GAMES, "HBP", strict=True):
        start = main.index(f'id="howto-{name}"')
        section = main[start:main.index("</section>", start)]
        assert section.count("<strong>") >= 4, f"{lang} {name}: aim, a turn, the round's end, scoring"
        assert f'href="#{part}"' in section, f"{lang} {name} links to its full rules"
        words = re.sub(r"<[^>]+>|<code>.*?</code>", " ", section)
        if lang == "ja":
            assert len(KANA_KANJI.findall(words)) > 150, f"{name}: not Japanese"
        elif lang == "ru":
            assert len(CYRILLIC.findall(words)) > 300, f"{name}: not Russian"
        else:
            assert not CYRILLIC.search(words) and len(KANA_KANJI.findall(words)) <= 4, f"{name}: not English"


# --- in a phone's browser ------------------------------------------------------------------------


def _phone(browser: object, errors: list[str]):  # noqa: ANN202
    pytest.importorskip("playwright.sync_api")
    from tests.browser_kit import CHROMIUM, new_page

    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed")
    return new_page(browser, errors, viewport=PHONE, is_mobile=True, has_touch=True)


@pytest.mark.phone
def test_a_bagaji_game_starts_with_the_deck_and_session_length_chosen_in_the_form(server: str, browser: object) -> None:
    errors: list[str] = []
    page = _phone(browser, errors)
    page.goto(f"{server}/")
    page.evaluate("localStorage.setItem('fudaba-lang', 'en')")
    page.reload()
    # Hachi-hachi: the ruleset's defaults fill the form and follow the ruleset; a value set by hand stays
    page.select_option("#game", "hachi-hachi")
    assert page.input_value("#opt-rounds") == "12" and not page.is_checked("#opt-dekiyaku")
    page.select_option("#opt-rounds", "6")
    page.select_option("#ruleset", "standard")
    assert page.input_value("#opt-rounds") == "6" and page.is_checked("#opt-dekiyaku")
    assert not page.is_visible("#opt-dekiyaku")  # under "more options", folded
    page.click("#more-options summary")
    assert page.is_visible("#opt-dekiyaku") and page.inner_text("label:has(#opt-dekiyaku)").startswith("Dekiyaku")
    # Bagaji: the deck and the session length up front, with the rules' defaults
    page.select_option("#game", "bagaji")
    assert page.input_value("#opt-deck") == '"playing-2x"' and page.input_value("#opt-end-after-minutes") == "120"
    assert page.is_visible("#opt-deck") and page.is_visible("#opt-end-after-minutes")
    assert "hanafuda" in page.inner_text("#opt-deck")
    # a bad value: the server's reason is shown
    page.fill("#opt-end-after-minutes", "1.5")
    page.click("#new-session button[type=submit]")
    page.wait_for_function("document.getElementById('new-error').textContent !== ''")
    assert "end-after-minutes" in page.inner_text("#new-error") and "integer" in page.inner_text("#new-error")
    page.select_option("#opt-deck", '"hanafuda-1x"')
    page.fill("#opt-end-after-minutes", "45")
    while page.locator("#seats input").count() < 3:
        page.click("#add-seat")
    with page.expect_request(lambda r: r.url.endswith("/api/sessions") and r.method == "POST") as sent:
        page.click("#new-session button[type=submit]")
    assert sent.value.post_data_json["options"] == {"deck": "hanafuda-1x", "end-after-minutes": 45}
    page.wait_for_url("**/session/*")
    sid = int(page.url.rsplit("/", 1)[1])
    state = page.context.request.get(f"{server}/api/sessions/{sid}/state").json()
    assert state["session"]["deck"] == "hanafuda" and state["session"]["game"] == "bagaji"
    assert state["clock"]["limit_s"] == 45 * 60 and len(state["session"]["players"]) == 3
    header = json.loads(page.context.request.get(f"{server}/api/sessions/{sid}/record").text().splitlines()[0])
    assert header["options"]["deck"] == "hanafuda-1x" and header["options"]["end-after-minutes"] == 45
    assert header["options"]["end-after-rounds"] == 0 and header["options"]["month-order"] == "japanese"
    # a camera game takes no options: the form sends none and the server still refuses them
    page.goto(f"{server}/")
    page.select_option("#game", "bagaji")
    page.fill("#camera", "0")
    assert page.is_disabled("#opt-deck") and page.is_visible("#options-camera")
    token = page.get_attribute('meta[name="csrf-token"]', "content")
    r = page.context.request.post(f"{server}/api/sessions", headers={"X-CSRF-Token": token},
                                  data={"game": "bagaji", "players": ["a", "b"], "camera": "0",
                                        "options": {"deck": "hanafuda-1x"}})
    assert r.status == 400 and "camera game" in r.json()["error"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert [e for e in errors if "status of 400" not in e] == []  # the console notes the refused start


@pytest.mark.phone
@pytest.mark.parametrize("lang", ["en", "ja", "ru"])
def test_the_rules_open_with_a_one_screen_how_to_play_per_game(server: str, browser: object, lang: str) -> None:
    errors: list[str] = []
    page = _phone(browser, errors)
    page.goto(f"{server}/rules?lang={lang}")
    page.evaluate(f"localStorage.setItem('fudaba-lang', '{lang}')")  # the page follows the chosen language
    page.goto(f"{server}/rules?lang={lang}")
    page.wait_for_selector(f"article[data-rules-lang={lang}]")
    assert page.evaluate("document.querySelector('main').firstElementChild.id") == "howto"
    for name in GAMES:
        section = page.locator(f"#howto-{name}")
        assert section.is_visible(), name
        text = section.inner_text()
        if lang == "ja":
            assert len(KANA_KANJI.findall(text)) > 150, f"{name}: not Japanese"
        elif lang == "ru":
            assert len(CYRILLIC.findall(text)) > 300, f"{name}: not Russian"
        else:
            assert not CYRILLIC.search(text) and len(KANA_KANJI.findall(text)) <= 4, f"{name}: not English"
        height = section.evaluate("s => s.getBoundingClientRect().height")
        assert height <= PHONE["height"], f"{lang} {name}: the how-to is {height} px tall"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"/rules?lang={lang} is {width} px wide"
    page.click("#howto-poka a[href='#P']")
    page.wait_for_function("location.hash === '#P'")
    assert not errors, errors


@pytest.mark.phone
@pytest.mark.parametrize("lang", ["en", "ja", "ru"])
def test_the_new_game_form_with_every_option_open_fits_a_phone(server: str, browser: object, lang: str) -> None:
    errors: list[str] = []
    page = _phone(browser, errors)
    page.goto(f"{server}/")
    page.evaluate(f"localStorage.setItem('fudaba-lang', '{lang}')")
    page.reload()
    page.click("#more-options summary")
    for name in GAMES:
        page.select_option("#game", name)
        labels = page.locator("#game-options label span").all_inner_texts()
        assert labels and not any(t.startswith(("opt-", "val-")) for t in labels), labels
        if lang != "en":
            assert not any(re.fullmatch(r"[a-z-]+", t) for t in labels), f"{name}: untranslated {labels}"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the {name} form in {lang} is {width} px wide"
    assert not errors, errors
