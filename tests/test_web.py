"""The dashboard's endpoints through Flask's test client, bad input included."""

from __future__ import annotations

import io
import json
import re
import threading
from pathlib import Path

import pytest

from fudaba.session import Sessions
from fudaba.store import Store
from scorer import record as records
from tests.helpers import Browser, make_app
from web import WebConfig, create_app

REPO = Path(__file__).resolve().parent.parent
FIELD6 = ["01-crane", "02-warbler", "03-curtain", "04-cuckoo", "05-bridge", "06-butterflies"]


@pytest.fixture
def browser(tmp_path: Path) -> Browser:
    return Browser(make_app(tmp_path).test_client())


def start(b: Browser, game: str = "hachi-hachi", players: list[str] | None = None) -> int:
    r = b.post("/api/sessions", {"game": game, "players": players or ["Aki", "Ben", "Chi"]})
    assert r.status_code == 201, r.json
    return r.json["id"]


def test_pages_and_the_games_list(browser: Browser) -> None:
    assert browser.get("/").status_code == 200
    games = {g["name"]: g for g in browser.get("/api/games").json}
    assert set(games) == {"hachi-hachi", "bagaji", "poka"} and games["poka"]["min_players"] == 2
    sid = start(browser)
    page = browser.get(f"/session/{sid}")
    assert page.status_code == 200 and 'data-family="hanafuda"' in page.get_data(as_text=True)
    assert browser.get("/session/77").status_code == 404
    assert browser.get("/api/sessions").json[0]["players"] == ["Aki", "Ben", "Chi"]


def test_a_new_session_with_bad_settings_says_what_is_wrong(browser: Browser) -> None:
    r = browser.post("/api/sessions", {"game": "chess", "players": ["a", "b"]})
    assert r.status_code == 400 and "unknown game" in r.json["error"]
    r = browser.post("/api/sessions", {"game": "poka", "players": ["a", "b", "c", "d", "e"]})
    assert r.status_code == 400 and "2 to" in r.json["error"]
    r = browser.post("/api/sessions", {"game": "poka", "players": ["a", " "]})
    assert r.status_code == 400 and "needs a name" in r.json["error"]
    r = browser.post("/api/sessions", {"game": "poka", "players": ["a", "b"], "ruleset": "nope"})
    assert r.status_code == 400 and "ruleset" in r.json["error"]
    r = browser.post("/api/sessions", {"game": "poka"})
    assert r.status_code == 400 and "players" in r.json["error"]
    r = browser.c.post("/api/sessions", data="{not json", headers={"X-CSRF-Token": browser.token,
                                                                    "Content-Type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json["error"]


def test_play_undo_confirm_and_edit_through_the_api(browser: Browser) -> None:
    sid = start(browser)
    r = browser.post(f"/api/sessions/{sid}/deal", {"dealer": 1, "face_up": {"field": FIELD6}})
    assert r.status_code == 200 and r.json == {"seq": 1}
    state = browser.get(f"/api/sessions/{sid}/state").json
    assert state["status"]["expects"]["seat"] == 1 and state["places"]["field"]["known"] == sorted(FIELD6)
    legal = state["manual"]["legal"]
    assert {item["event"]["type"] for item in legal} == {"declare"}
    assert browser.post(f"/api/sessions/{sid}/event", {"event": legal[0]["event"]}).json == {"seq": 2}
    r = browser.post(f"/api/sessions/{sid}/event", {"event": {"type": "declare", "seat": 1, "play": True}})
    assert r.status_code == 409 and r.json["error"]
    assert browser.post(f"/api/sessions/{sid}/confirm").json == {"seq": 3}
    assert browser.post(f"/api/sessions/{sid}/undo").json == {"seq": 4}
    assert browser.get(f"/api/sessions/{sid}/state").json["status"]["events"] == 1
    browser.post(f"/api/sessions/{sid}/event", {"event": {"type": "declare", "seat": 1, "play": True}})
    r = browser.post(f"/api/sessions/{sid}/edit", {"index": 1, "event": {"type": "declare", "seat": 1, "play": False}})
    assert r.status_code == 200
    events = browser.get(f"/api/sessions/{sid}/state").json
    assert events["log"][-1]["text"].startswith("seat 1 retires") and events["status"]["events"] == 2
    assert browser.post(f"/api/sessions/{sid}/edit", {"index": 5, "event": {}}).status_code == 400
    assert browser.post(f"/api/sessions/{sid}/edit", {"event": {}}).status_code == 400
    assert browser.post(f"/api/sessions/{sid}/event", {"nothing": 1}).status_code == 400
    assert browser.post(f"/api/sessions/{sid}/deal", {"face_up": {"field": "01-crane"}}).status_code == 400
    assert browser.post(f"/api/sessions/{sid}/deal", {"dealer": "one", "face_up": {}}).status_code == 400
    r = browser.post(f"/api/sessions/{sid}/deal", {"dealer": 1, "face_up": {"field": FIELD6}})
    assert r.status_code == 409 and "no deal is due" in r.json["error"]


def test_an_unknown_session_is_404_everywhere(browser: Browser) -> None:
    for url in ("/api/sessions/5/state", "/api/sessions/5/stream", "/api/sessions/5/record"):
        r = browser.get(url)
        assert r.status_code == 404 and "no session 5" in r.json["error"], url
    for url in ("/api/sessions/5/undo", "/api/sessions/5/confirm"):
        assert browser.post(url).status_code == 404
    assert browser.post("/api/sessions/5/event", {"event": {"type": "deal"}}).status_code == 404


def test_state_changes_need_the_csrf_token(tmp_path: Path) -> None:
    c = make_app(tmp_path).test_client()
    c.get("/")
    r = c.post("/api/sessions", json={"game": "poka", "players": ["a", "b"]})
    assert r.status_code == 403 and "CSRF" in r.json["error"]
    r = c.post("/api/sessions", json={"game": "poka", "players": ["a", "b"]}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    assert c.get("/api/sessions").json == []  # nothing was created


def test_a_pin_is_needed_once_per_browser_and_wrong_pins_are_slowed(tmp_path: Path) -> None:
    app = make_app(tmp_path, pin="123456")
    c = app.test_client()
    assert c.get("/api/sessions").status_code == 401
    r = c.get("/session/1")
    assert r.status_code == 302 and "/pin" in r.headers["Location"]
    page = c.get("/pin?next=/session/1").get_data(as_text=True)
    token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    r = c.post("/pin", data={"pin": "000000", "csrf": token, "next": "/session/1"})
    assert r.status_code == 401 and "wrong" in r.get_data(as_text=True)
    assert c.post("/pin", data={"pin": "123456", "next": "/"}).status_code == 403  # no CSRF token
    r = c.post("/pin", data={"pin": "123456", "csrf": token, "next": "//evil.example/"})
    assert r.status_code == 302 and r.headers["Location"] == "/"  # no open redirect
    assert c.get("/api/sessions").status_code == 200
    # a browser at another address: five wrong PINs in a minute, then it must wait even with the right one
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.7"
    token2 = re.search(r'name="csrf" value="([^"]+)"', other.get("/pin").get_data(as_text=True)).group(1)
    for _ in range(5):
        assert other.post("/pin", data={"pin": "999999", "csrf": token2}).status_code == 401
    r = other.post("/pin", data={"pin": "123456", "csrf": token2})
    assert r.status_code == 429 and "wait" in r.get_data(as_text=True)
    assert other.get("/api/sessions").status_code == 401


def _frames(response, n: int) -> list[tuple[str | None, str, str]]:  # noqa: ANN001
    """The first ``n`` SSE messages or comments of a streamed response: (id, event, data)."""
    out: list[tuple[str | None, str, str]] = []
    buf = ""
    for chunk in response.response:
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.split("\n"):
                key, _, value = line.partition(":")
                fields[key or "comment"] = value.strip()
            out.append((fields.get("id"), fields.get("event", "comment" if "comment" in fields else "retry"),
                        fields.get("data", "")))
            if len(out) >= n:
                response.close()
                return out
    return out


def test_the_stream_sends_a_snapshot_then_every_change_and_resumes_by_last_event_id(browser: Browser) -> None:
    sid = start(browser)
    browser.post(f"/api/sessions/{sid}/deal", {"dealer": 1, "face_up": {"field": FIELD6}})
    r = browser.get(f"/api/sessions/{sid}/stream", buffered=False)
    assert r.mimetype == "text/event-stream"
    frames = _frames(r, 2)
    assert frames[0][1] == "retry" and frames[1][:2] == ("1", "state")
    assert json.loads(frames[1][2])["seq"] == 1
    # a reconnect that already has seq 1: no snapshot, only keep-alive comments until a change
    r = browser.get(f"/api/sessions/{sid}/stream", headers={"Last-Event-ID": "1"}, buffered=False)
    frames = _frames(r, 3)
    assert [f[1] for f in frames] == ["retry", "comment", "comment"]
    # a reconnect with an older id gets the fresh snapshot at once
    r = browser.get(f"/api/sessions/{sid}/stream", headers={"Last-Event-ID": "0"}, buffered=False)
    assert _frames(r, 2)[1][0] == "1"
    # a change arrives on an open stream
    r = browser.get(f"/api/sessions/{sid}/stream", headers={"Last-Event-ID": "1"}, buffered=False)
    got: list = []
    reader = threading.Thread(target=lambda: got.extend(_frames(r, 4)))
    reader.start()
    browser.post(f"/api/sessions/{sid}/event", {"event": {"type": "declare", "seat": 1, "play": True}})
    reader.join(10)
    states = [f for f in got if f[1] == "state"]
    assert states and states[0][0] == "2" and json.loads(states[0][2])["log"][-1]["seq"] == 2


def test_record_download_and_import(browser: Browser, tmp_path: Path) -> None:
    sid = start(browser)
    browser.post(f"/api/sessions/{sid}/deal", {"dealer": 1, "face_up": {"field": FIELD6}})
    r = browser.get(f"/api/sessions/{sid}/record")
    assert "attachment" in r.headers["Content-Disposition"]
    rec = records.loads(r.get_data(as_text=True), "download")
    assert rec.header.game == "hachi-hachi" and rec.entries[0][1]["source"] == "dashboard"
    sample = (REPO / "fudaba" / "samples" / "hachi-hachi-seed-1910.jsonl").read_bytes()
    r = browser.post("/api/import", data={"record": (io.BytesIO(sample), "sample.jsonl")},
                     content_type="multipart/form-data")
    assert r.status_code == 201 and r.json["url"] == f"/session/{r.json['id']}"
    assert browser.get(f"/api/sessions/{r.json['id']}/state").json["results"]
    bad = sample.splitlines()[0] + b'\n{"type": "play"}\n'
    r = browser.post("/api/import", data={"record": (io.BytesIO(bad), "bad.jsonl")},
                     content_type="multipart/form-data")
    assert r.status_code == 400 and r.json["error"].startswith("bad.jsonl:2:")
    r = browser.post("/api/import", data={"record": (io.BytesIO(b"\xff\xfe"), "x.jsonl")},
                     content_type="multipart/form-data")
    assert r.status_code == 400 and "UTF-8" in r.json["error"]
    assert browser.post("/api/import").status_code == 400


def test_an_oversized_upload_is_refused(tmp_path: Path) -> None:
    b = Browser(make_app(tmp_path, max_upload=1000).test_client())
    r = b.post("/api/import", data={"record": (io.BytesIO(b"x" * 5000), "big.jsonl")},
               content_type="multipart/form-data")
    assert r.status_code == 413 and "larger than 1000 bytes" in r.json["error"]
    assert b.get("/api/sessions").json == []


def test_card_faces_are_served_for_known_cards_only(browser: Browser) -> None:
    r = browser.get("/cards/hanafuda/08-moon.png")
    assert r.status_code == 200 and r.mimetype == "image/png" and r.data[:4] == b"\x89PNG"
    assert browser.get("/cards/playing/QH.png").status_code == 200
    assert browser.get("/cards/hanafuda/99-nothing.png").status_code == 404
    assert browser.get("/cards/hanafuda/..%2F..%2Fsecret.png").status_code == 404
    assert browser.get("/cards/tarot/QH.png").status_code == 404


def test_alternatives_and_editing_a_past_event_or_deal(browser: Browser) -> None:
    sid = start(browser)
    browser.post(f"/api/sessions/{sid}/deal", {"dealer": 1, "face_up": {"field": FIELD6}})
    for seat in (1, 2, 3):
        browser.post(f"/api/sessions/{sid}/event", {"event": {"type": "declare", "seat": seat, "play": True}})
    alt = browser.get(f"/api/sessions/{sid}/events/2/alternatives").json
    assert alt["text"] == "seat 2 plays the round"
    assert {(e["event"]["seat"], e["event"]["play"]) for e in alt["legal"]} == {(2, True), (2, False)}
    r = browser.post(f"/api/sessions/{sid}/edit", {"index": 2, "event": {"type": "declare", "seat": 2, "play": False}})
    assert r.status_code == 200
    state = browser.get(f"/api/sessions/{sid}/state").json
    assert [e["text"] for e in state["events"]][1:] == ["seat 1 plays the round", "seat 2 retires",
                                                          "seat 3 plays the round"]
    # the deal: its form, and another field put in its place (the declarations still fit)
    alt = browser.get(f"/api/sessions/{sid}/events/0/alternatives").json
    assert alt["deal"]["face_up"] == {"field": 6} and alt["deal"]["dealers"]
    other = ["07-boar", "08-moon", "09-sakecup", "10-deer", "11-rainman", "12-phoenix"]
    r = browser.post(f"/api/sessions/{sid}/edit", {"index": 0, "deal": {"dealer": 1, "face_up": {"field": other}}})
    assert r.status_code == 200, r.json
    state = browser.get(f"/api/sessions/{sid}/state").json
    assert state["places"]["field"]["known"] == sorted(other) and state["status"]["events"] == 4
    r = browser.post(f"/api/sessions/{sid}/edit", {"index": 1, "deal": {"dealer": 1, "face_up": {"field": other}}})
    assert r.status_code == 400 and "not a deal" in r.json["error"]
    assert browser.get(f"/api/sessions/{sid}/events/9/alternatives").status_code == 400


def test_the_home_page_shows_a_qr_code_of_each_join_address(tmp_path: Path) -> None:
    config = WebConfig(secret_key=b"k" * 32, join_urls=("http://192.168.1.20:8088/",))
    page = create_app(config, Sessions(Store(tmp_path / "h.sqlite3"))).test_client().get("/").get_data(as_text=True)
    assert "Join from a phone" in page and 'href="http://192.168.1.20:8088/"' in page
    assert "<svg" in page and "QR code for http://192.168.1.20:8088/" in page
    plain = make_app(tmp_path).test_client().get("/").get_data(as_text=True)
    assert "Join from a phone" not in plain


@pytest.mark.parametrize("lang", ["en", "ja", "ru"])
def test_the_rules_page_has_an_anchor_for_every_section_in_each_language(tmp_path: Path, lang: str) -> None:
    rules = REPO / "docs" / "rules.md"
    app = create_app(WebConfig(secret_key=b"k" * 32, rules=rules), Sessions(Store(tmp_path / "h.sqlite3")))
    page = app.test_client().get(f"/rules?lang={lang}").get_data(as_text=True)
    assert f'data-rules-lang="{lang}"' in page and 'data-rules-available="en ja ru"' in page
    numbers = re.findall(r"^#{2,4} ([GCHBP]\d*(?:\.\d+)*) ", rules.read_text(encoding="utf-8"), re.M)
    assert len(numbers) > 50
    for n in numbers:
        assert f'id="{n}"' in page, n
    # the contents line links to the parts' anchors
    for part in "GCHBP":
        assert f'href="#{part}"' in page, part
    assert make_app(tmp_path / "x").test_client().get("/rules").status_code == 404


def test_the_rules_page_falls_back_to_english_and_refuses_an_unknown_language(tmp_path: Path) -> None:
    (tmp_path / "rules.md").write_text("# Rules\n\n## G General\n\nPlay nicely.\n", encoding="utf-8")
    (tmp_path / "rules.ja.md").write_text("# ルール\n\n## G 一般\n\n仲良く。\n", encoding="utf-8")
    app = create_app(WebConfig(secret_key=b"k" * 32, rules=tmp_path / "rules.md"), Sessions(Store(tmp_path / "h.sqlite3")))
    client = app.test_client()
    ja = client.get("/rules?lang=ja").get_data(as_text=True)
    assert "仲良く" in ja and 'data-rules-lang="ja"' in ja and 'data-rules-available="en ja"' in ja and 'id="G"' in ja
    ru = client.get("/rules?lang=ru").get_data(as_text=True)  # no Russian: the English, said to be so
    assert "Play nicely" in ru and 'data-rules-lang="en"' in ru
    bad = client.get("/rules?lang=xx")
    assert bad.status_code == 400 and "en, ja, ru" in bad.get_data(as_text=True)


def test_answers_and_the_table_need_a_camera_and_a_choice(browser: Browser) -> None:
    sid = start(browser)
    r = browser.post(f"/api/sessions/{sid}/answer", {"choice": 0})
    assert r.status_code == 409 and "no question" in r.json["error"]
    assert browser.post(f"/api/sessions/{sid}/answer", {"choice": "first"}).status_code == 400
    assert browser.post(f"/api/sessions/{sid}/answer", {}).status_code == 400
    r = browser.post(f"/api/sessions/{sid}/answer", {"choice": "something-else"})
    assert r.status_code == 409 and "no open question" in r.json["error"]
    r = browser.post(f"/api/sessions/{sid}/table")
    assert r.status_code == 409 and "camera" in r.json["error"]
    assert browser.get(f"/api/sessions/{sid}/video.mjpeg").status_code == 404
    assert browser.get(f"/api/sessions/{sid}/frame.jpg").status_code == 404
    assert browser.post("/api/sessions/99/answer", {"choice": 0}).status_code == 404


def test_an_event_entered_by_picking_cards(browser: Browser) -> None:
    """POST /pick: a teyaku claim by the cards shown; where the cards back several teyaku the
    server says which (nothing applied); a wrong pick is a 409 with the rules' reason, a malformed
    one a 400."""
    sid = start(browser)
    browser.post(f"/api/sessions/{sid}/deal", {"dealer": 1, "face_up": {"field": FIELD6}})
    for seat in (1, 2, 3):
        browser.post(f"/api/sessions/{sid}/event", {"event": {"type": "declare", "seat": seat, "play": True}})
    forms = browser.get(f"/api/sessions/{sid}/state").json["manual"]["forms"]
    assert [(f["type"], f["seat"]) for f in forms] == [("claim", 1), ("claim", 2), ("claim", 3)]
    plains = ["08-plain-1", "08-plain-2", "09-plain-1", "09-plain-2", "10-plain-1", "10-plain-2"]
    r = browser.post(f"/api/sessions/{sid}/pick", {"type": "claim", "seat": 2, "cards": plains})
    assert r.status_code == 200 and {c["event"]["teyaku"] for c in r.json["choose"]} >= {"tan-ichi", "toichi"}
    assert browser.get(f"/api/sessions/{sid}/state").json["status"]["events"] == 4  # nothing applied
    r = browser.post(f"/api/sessions/{sid}/pick", {"type": "claim", "seat": 2, "cards": ["07-boar", "07-ribbon", "07-plain-1"]})
    assert r.status_code == 200 and r.json == {"seq": 5}
    r = browser.post(f"/api/sessions/{sid}/pick", {"type": "claim", "seat": 3, "cards": ["07-plain-2", "08-moon"]})
    assert r.status_code == 409 and "back no teyaku" in r.json["error"]
    for body in ({"type": "claim", "seat": "2", "cards": []}, {"type": "claim", "seat": 2, "cards": "07-boar"}):
        r = browser.post(f"/api/sessions/{sid}/pick", body)
        assert r.status_code == 400 and r.json["error"]


def test_bagaji_s_end_of_session_is_offered_to_manual_play(browser: Browser) -> None:
    """The table's decision the engine leaves out of its next events (rules: ``end-session``) is
    offered where the rules allow it, before and during a round, and ends the match when entered."""
    sid = start(browser, "bagaji", ["A", "B", "C"])
    manual = browser.get(f"/api/sessions/{sid}/state").json["manual"]
    assert [i["type"] for i in manual["legal"]][-1] == "end-session"
    r = browser.post(f"/api/sessions/{sid}/event", {"event": {"type": "end-session"}})
    assert r.status_code == 200
    state = browser.get(f"/api/sessions/{sid}/state").json
    assert state["status"]["over"] and state["manual"]["over"]
