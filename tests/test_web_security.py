"""The dashboard under attack: a page elsewhere renamed to this machine (DNS rebinding), camera
sources named by a request, redirects off the site, PIN grants after a new PIN, the security
headers, and a content security policy the pages keep in Chromium."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from fudaba.serve import build
from fudaba.session import Sessions
from fudaba.store import Store
from tests.browser_kit import new_page, start_game
from tests.helpers import Browser, sigint_default
from web import WebConfig, create_app
from web.security import (
    CSP,
    HEADERS,
    LOCAL_HOSTS,
    PinStore,
    camera_source_refused,
    lan_host_names,
    safe_next,
)

REPO = Path(__file__).resolve().parent.parent
KEY = b"k" * 32
PHONE = {"REMOTE_ADDR": "192.168.1.30"}
"""A request from another device on the table's network."""
LAN_HOSTS = lan_host_names("0.0.0.0", ["192.168.1.20"], "tablebox")
"""A server started with ``--host 0.0.0.0`` on a machine at 192.168.1.20 called tablebox."""


def app_over(tmp_path: Path, **kw: Any):  # noqa: ANN201
    return create_app(WebConfig(secret_key=KEY, **kw), Sessions(Store(tmp_path / "h.sqlite3")))


def token_of(client: FlaskClient, url: str = "/", **kw: Any) -> str:
    text = client.get(url, **kw).get_data(as_text=True)
    m = re.search(r'name="csrf-token" content="([^"]+)"', text) or re.search(r'name="csrf" value="([^"]+)"', text)
    assert m, text[:300]
    return m.group(1)


def enter_pin(client: FlaskClient, pin: str, next_url: str = "/", **kw: Any) -> Any:
    return client.post("/pin", data={"pin": pin, "csrf": token_of(client, "/pin", **kw), "next": next_url}, **kw)


# -- hosts --------------------------------------------------------------------------------------

def test_a_foreign_host_gets_421_on_a_page_the_api_and_the_stream(tmp_path: Path) -> None:
    b = Browser(app_over(tmp_path).test_client())
    sid = b.post("/api/sessions", {"game": "poka", "players": ["Aki", "Ben"]}).json["id"]
    evil = {"Host": "evil.example"}
    page = b.c.get("/", headers=evil)
    assert page.status_code == 421 and page.mimetype == "text/plain"
    assert "evil.example" in page.get_data(as_text=True) and "address fudaba printed" in page.get_data(as_text=True)
    assert "127.0.0.1" not in page.get_data(as_text=True)  # the names it answers to are not given away
    for url in ("/api/sessions", f"/api/sessions/{sid}/state", f"/api/sessions/{sid}/stream", "/static/app.css"):
        r = b.c.get(url, headers=evil)
        assert r.status_code == 421, url
        if url.startswith("/api/"):
            assert "evil.example" in r.json["error"]
    r = b.c.post(f"/api/sessions/{sid}/undo", headers={**evil, "X-CSRF-Token": b.token})
    assert r.status_code == 421
    # where the server knows its port, a request names it too
    c = app_over(tmp_path / "port", port=8088).test_client()
    for host in ("localhost:8088", "127.0.0.1:8088", "[::1]:8088", "LOCALHOST:8088", "localhost.:8088"):
        assert c.get("/api/sessions", headers={"Host": host}).status_code == 200, host
    for host in ("127.0.0.1:9999", "127.0.0.1", "localhost:8088@evil.example", "127.0.0.1.evil.example:8088",
                 "[::1]x:8088", "", "evil.example:8088"):
        assert c.get("/api/sessions", headers={"Host": host}).status_code == 421, host


def test_on_the_network_the_machine_s_addresses_and_names_are_served(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import fudaba.serve

    monkeypatch.setattr(fudaba.serve, "lan_addresses", lambda: ["192.168.1.20"])
    monkeypatch.setattr(fudaba.serve.socket, "gethostname", lambda: "tablebox")
    app = build(tmp_path / "h.sqlite3", None, (), None, host="0.0.0.0", port=8088,
                pins=PinStore(tmp_path / "pin"))
    c = app.test_client()
    for host in ("192.168.1.20:8088", "tablebox:8088", "tablebox.local:8088", "127.0.0.1:8088", "0.0.0.0:8088"):
        assert c.get("/api/sessions", headers={"Host": host}, environ_base=PHONE).status_code == 401, host  # the PIN
    assert c.get("/api/sessions", headers={"Host": "evil.example:8088"}, environ_base=PHONE).status_code == 421
    # a server on this machine only does not answer to its network address
    local = build(tmp_path / "l.sqlite3", None, (), None, port=8088).test_client()
    assert local.get("/api/sessions", headers={"Host": "192.168.1.20:8088"}).status_code == 421
    assert local.get("/api/sessions", headers={"Host": "localhost:8088"}).status_code == 200
    assert set(LOCAL_HOSTS) <= set(LAN_HOSTS) and {"192.168.1.20", "tablebox", "tablebox.local"} <= set(LAN_HOSTS)


# -- camera sources -----------------------------------------------------------------------------

class FakeSetup:
    """Stands in for :class:`fudaba.setup.TableSetup`: records what it was asked to open."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    def look(self, source: str) -> Any:
        from fudaba.setup import Look

        self.opened.append(source)
        return Look(False, "nothing here")

    def preview(self, source: str, game: str, players: int, deck: str | None = None) -> Any:
        self.opened.append(source)
        raise ValueError("no camera in this test")

    def start(self, sessions: Any, source: str, *args: Any) -> Any:
        self.opened.append(source)
        raise ValueError("no camera in this test")


def test_files_and_urls_are_opened_only_for_this_machine(tmp_path: Path) -> None:
    setup = FakeSetup()
    app = app_over(tmp_path, setup=setup, allowed_hosts=LAN_HOSTS)
    phone = Browser(app.test_client())
    phone.c.environ_base.update(PHONE)
    here = Browser(app.test_client())
    for source in ("/etc/passwd", "~/video.mp4", "http://169.254.169.254/latest", "rtsp://cam.local/1", "C:\\v.mp4"):
        r = phone.post("/api/camera/look", {"source": source})
        assert r.status_code == 403 and "machine fudaba runs on" in r.json["error"], source
        r = phone.post("/api/camera/preview", {"source": source, "game": "poka", "players": 2})
        assert r.status_code == 403, source
        r = phone.post("/api/sessions", {"game": "poka", "players": ["a", "b"], "camera": source})
        assert r.status_code == 403 and "webcam" in r.json["error"], source
    assert setup.opened == []
    assert phone.post("/api/camera/look", {"source": " 1 "}).status_code == 200  # a webcam: from anywhere
    assert phone.post("/api/camera/look", {"source": "/dev/video0"}).status_code == 200
    assert here.post("/api/camera/look", {"source": "/some/video.mp4"}).status_code == 200
    assert here.post("/api/camera/look", {"source": "http://phone:8080/video"}).status_code == 200
    assert setup.opened == ["1", "/dev/video0", "/some/video.mp4", "http://phone:8080/video"]


class FakeCounter:
    """Stands in for :class:`fudaba.counter.CounterControl`: one serial port listed; records what it
    was asked to open."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    def status(self) -> dict:
        return {"connected": bool(self.opened)}

    def ports(self) -> list[dict]:
        return [{"device": "/dev/ttyACM0", "usb_id": "2341:0043", "description": "Arduino Uno", "counter": True}]

    def connect(self, port: str, session: Any = None) -> None:
        self.opened.append(port)


def test_a_stone_counter_port_named_from_another_device_is_one_the_server_lists(tmp_path: Path) -> None:
    counter = FakeCounter()
    app = app_over(tmp_path, counter=counter, allowed_hosts=LAN_HOSTS)
    phone = Browser(app.test_client())
    phone.c.environ_base.update(PHONE)
    here = Browser(app.test_client())
    for port in ("/etc/passwd", "/dev/sda", "../../dev/ttyS0", "/tmp/fifo"):
        r = phone.post("/api/counter", {"port": port})
        assert r.status_code == 403 and "serial ports" in r.json["error"], port
    assert counter.opened == []
    for port in ("/dev/ttyACM0", "auto", " emulated "):
        assert phone.post("/api/counter", {"port": port}).status_code == 200, port
    assert here.post("/api/counter", {"port": "/dev/ttyUSB7"}).status_code == 200  # this machine: any path
    assert counter.opened == ["/dev/ttyACM0", "auto", " emulated ", "/dev/ttyUSB7"]


@pytest.mark.parametrize("policy,allowed", [("webcams", ["0"]), ("files", ["0", "/v.mp4"]),
                                            ("local", ["0", "/v.mp4", "http://phone:8080/video"])])
def test_the_server_can_be_told_to_open_less(tmp_path: Path, policy: str, allowed: list[str]) -> None:
    setup = FakeSetup()
    here = Browser(app_over(tmp_path, setup=setup, sources_from_requests=policy).test_client())
    for source in ("0", "/v.mp4", "http://phone:8080/video"):
        r = here.post("/api/camera/look", {"source": source})
        assert r.status_code == (200 if source in allowed else 403), (source, r.json)
        if r.status_code == 403:
            assert "it was started so" in r.json["error"]
    assert setup.opened == allowed
    with pytest.raises(ValueError, match="sources_from_requests"):
        WebConfig(secret_key=KEY, sources_from_requests="anything")


def test_a_camera_source_is_judged_by_its_text_alone() -> None:
    assert camera_source_refused("0", "webcams", False) is None
    assert camera_source_refused("12", "webcams", False) is None
    assert "stream URL" in camera_source_refused("http://10.0.0.1/x", "local", False)
    assert "file or folder" in camera_source_refused("0; rm -rf /", "local", False)
    assert "file or folder" in camera_source_refused("/dev/video0/../../etc/passwd", "local", False)
    assert camera_source_refused("file:///etc/passwd", "local", True) is None
    assert "stream URL" in camera_source_refused("file:///etc/passwd", "files", True)


# -- redirects ----------------------------------------------------------------------------------

BAD_NEXT = ["/%09/evil.example", "/%09/evil.example/x", "//evil.example", "/\\evil.example", "https://evil.example",
            "/\t/evil.example", "/%5Cevil.example", "/%2F/evil.example", "/%252F%252Fevil.example", "evil.example",
            "/\r\nLocation: https://evil.example", " //evil.example", "javascript:alert(1)", ""]


@pytest.mark.parametrize("nxt", BAD_NEXT)
def test_no_redirect_leaves_the_site(tmp_path: Path, nxt: str) -> None:
    assert safe_next(nxt) is None
    c = app_over(tmp_path, pin="123456").test_client()
    page = c.get("/pin", query_string={"next": nxt}).get_data(as_text=True)
    assert 'name="next" value="/"' in page
    r = enter_pin(c, "123456", nxt)
    assert r.status_code == 302 and r.headers["Location"] == "/"


def test_a_path_on_the_site_is_followed_after_the_pin(tmp_path: Path) -> None:
    c = app_over(tmp_path, pin="123456").test_client()
    r = c.get("/rules?lang=ja")
    assert r.status_code == 302 and r.headers["Location"].startswith("/pin?next=")
    r = enter_pin(c, "123456", "/session/1?x=1")
    assert r.status_code == 302 and r.headers["Location"] == "/session/1?x=1"
    assert safe_next("/rules?lang=ja#H8.6") == "/rules?lang=ja#H8.6"


# -- PIN grants ---------------------------------------------------------------------------------

def test_a_grant_made_under_one_pin_ends_with_a_new_one(tmp_path: Path) -> None:
    data = tmp_path / "h.sqlite3"
    first = PinStore(tmp_path / "pin")
    assert (tmp_path / "pin").stat().st_mode & 0o777 == 0o600
    c = build(data, None, (), None, pins=first).test_client()
    assert c.get("/api/sessions").status_code == 401
    assert enter_pin(c, first.pin).status_code == 302
    assert c.get("/api/sessions").status_code == 200
    cookie = c.get_cookie("session")
    assert cookie is not None and first.pin not in cookie.value  # the cookie proves the PIN, never holds it

    def restarted(pins: PinStore) -> FlaskClient:
        client = build(data, None, (), None, pins=pins).test_client()
        client.set_cookie("session", cookie.value)
        return client

    # a restart keeps the PIN, and the browsers let in under it
    kept = PinStore(tmp_path / "pin")
    assert kept.pin == first.pin and restarted(kept).get("/api/sessions").status_code == 200
    # a restart with a new PIN (fudaba run --new-pin) ends the grant
    fresh = PinStore(tmp_path / "pin", fresh=True)
    assert fresh.pin != first.pin and (tmp_path / "pin").read_text().strip() == fresh.pin
    again = restarted(fresh)
    assert again.get("/api/sessions").status_code == 401 and again.get("/").status_code == 302
    assert enter_pin(again, first.pin).status_code == 401
    assert enter_pin(again, fresh.pin).status_code == 302 and again.get("/api/sessions").status_code == 200
    # an old cookie that says only "PIN entered" lets nobody in
    old = build(data, None, (), None, pins=fresh).test_client()
    with old.session_transaction() as s:
        s["pin_ok"] = True
    assert old.get("/api/sessions").status_code == 401


def test_the_host_s_button_makes_a_new_pin_and_ends_every_grant(tmp_path: Path) -> None:
    told: list[str] = []
    pins = PinStore(tmp_path / "pin", announce=told.append)
    app = app_over(tmp_path, pins=pins, allowed_hosts=LAN_HOSTS)
    host, phone = app.test_client(), app.test_client()
    phone.environ_base.update(PHONE)
    old = pins.pin
    for c in (host, phone):
        assert enter_pin(c, old).status_code == 302
    assert 'id="new-pin"' in host.get("/").get_data(as_text=True)
    assert 'id="new-pin"' not in phone.get("/").get_data(as_text=True)
    r = phone.post("/api/pin/new", headers={"X-CSRF-Token": token_of(phone)})
    assert r.status_code == 403 and "machine fudaba runs on" in r.json["error"] and pins.pin == old
    assert host.post("/api/pin/new").status_code == 403  # no CSRF token
    r = host.post("/api/pin/new", headers={"X-CSRF-Token": token_of(host)})
    assert r.status_code == 200 and r.json["pin"] == pins.pin != old and told == [pins.pin]
    assert (tmp_path / "pin").read_text().strip() == pins.pin
    assert host.get("/api/sessions").status_code == 200  # the host stays in
    assert phone.get("/api/sessions").status_code == 401 and phone.get("/").status_code == 302
    assert enter_pin(phone, pins.pin).status_code == 302 and phone.get("/api/sessions").status_code == 200
    # a server with no PIN has none to renew
    plain = Browser(app_over(tmp_path / "plain").test_client())
    assert plain.post("/api/pin/new").status_code == 409 and 'id="new-pin"' not in plain.get("/").get_data(as_text=True)


def test_fudaba_run_new_pin_replaces_the_kept_pin(tmp_path: Path) -> None:
    (tmp_path / "pin").write_text("111111\n")
    proc = subprocess.Popen([sys.executable, "-m", "fudaba", "run", "--data", str(tmp_path / "h.sqlite3"),
                             "--host", "0.0.0.0", "--port", "0", "--no-browser", "--new-pin"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO,
                            preexec_fn=sigint_default)
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not (lines and lines[-1].startswith("fudaba: PIN ")):
            lines.append(proc.stdout.readline())
            assert lines[-1], lines
        pin = lines[-1].split()[2]
        assert re.fullmatch(r"[0-9]{6}", pin) and pin != "111111" and "a new one" in lines[-1]
        assert (tmp_path / "pin").read_text().strip() == pin
        assert (tmp_path / "pin").stat().st_mode & 0o777 == 0o600
        port = lines[1].split("dashboard at ", 1)[1].strip().rsplit(":", 1)[1].strip("/")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/sessions", timeout=10)
        assert refused.value.code == 401  # serving now, and asking for the PIN
    finally:
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(20) == 0
    assert PinStore(tmp_path / "pin").pin == pin  # the next start keeps it


# -- headers ------------------------------------------------------------------------------------

def test_every_answer_carries_the_security_headers(tmp_path: Path) -> None:
    c = app_over(tmp_path).test_client()
    wanted = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
              **HEADERS}
    for url, status, host in (("/", 200, "localhost"), ("/api/games", 200, "localhost"),
                              ("/static/app.css", 200, "localhost"), ("/static/home.js", 200, "localhost"),
                              ("/session/77", 404, "localhost"), ("/api/sessions/77/state", 404, "localhost"),
                              ("/", 421, "evil.example")):
        r = c.get(url, headers={"Host": host})
        assert r.status_code == status, url
        assert {k: r.headers.get(k) for k in wanted} == wanted, url


# -- the content security policy in Chromium ----------------------------------------------------

@pytest.fixture(scope="module")
def pin_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A ``fudaba run`` server with a PIN (waitress, this machine only): its base URL and PIN."""
    import waitress

    folder = tmp_path_factory.mktemp("pin_history")
    pins = PinStore(folder / "pin")
    app = build(folder / "h.sqlite3", None, (), None, pins=pins)
    srv = waitress.create_server(app, host="127.0.0.1", port=0, threads=8)
    threading.Thread(target=srv.run, daemon=True).start()
    yield f"http://127.0.0.1:{srv.effective_port}", pins.pin
    app.extensions["fudaba"]["config"].setup.close()


def _until(page: Any, expression: str, seconds: float = 10.0) -> None:
    """Wait until ``expression`` holds in the page, asked from outside: Playwright's
    ``wait_for_function`` evaluates its text with ``eval``, which the policy forbids."""
    end = time.monotonic() + seconds
    while not page.evaluate(expression):
        assert time.monotonic() < end, f"never true: {expression}"
        page.wait_for_timeout(50)


def _last_seq(page: Any) -> int:
    return int(page.evaluate("(document.querySelector('#log li.last') || {value: 0}).value"))


def _taps(page: Any, rng: random.Random) -> None:
    """Enter the deal by tapping random face-up cards (again where the rules refuse them), where
    the game deals any, then tap the first move offered."""
    for _ in range(20 if page.locator("#deal button.primary").count() else 0):  # a game may deal no cards face up
        before = _last_seq(page)
        need = int(page.get_attribute("#deal", "data-need") or 0)
        ids = page.locator("#deal .deck button.pick").evaluate_all("bs => bs.map(b => b.dataset.card)")
        for card in rng.sample(ids, need):
            page.click(f'#deal .deck button.pick[data-card="{card}"]')
        if page.locator("#dealer").count() or need == 0:  # else the last card tapped entered it
            page.click("#deal button.primary")
        _until(page, f"(document.querySelector('#log li.last') || {{value: 0}}).value > {before} "
                     "|| document.getElementById('play-error').textContent !== ''")
        if page.inner_text("#play-error") == "":
            break
        page.evaluate("PICKED.length = 0; renderManual(STATE.manual)")
    before = _last_seq(page)
    if page.locator("#moves button.kind.direct").count():
        page.click("#moves button.kind.direct >> nth=0")
        _until(page, f"(document.querySelector('#log li.last') || {{value: 0}}).value > {before}")


def test_no_page_breaks_the_content_security_policy(pin_server: tuple[str, str], browser: object) -> None:
    """The PIN page, the home page, the rules, a game of each kind after a few taps and the host's
    "new PIN" button: Chromium reports no violation of the policy (no inline script, no inline
    style sheet, nothing from elsewhere) and no error."""
    server, pin = pin_server
    for directive in ("default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:",
                      "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'",
                      "frame-ancestors 'none'"):
        assert directive in CSP.split("; ")
    assert "unsafe" not in CSP and "script-src 'self';" in CSP
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 1280, "height": 900}, bypass_csp=False)
    page.add_init_script("window.__violations = [];"
                         "document.addEventListener('securitypolicyviolation', e => "
                         "window.__violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile))")

    def violations() -> list[str]:
        return page.evaluate("window.__violations")

    page.goto(f"{server}/rules")
    assert page.url.startswith(f"{server}/pin?next=")
    assert page.request.get(f"{server}/pin").headers["content-security-policy"] == CSP
    page.fill("input[name=pin]", pin)
    page.click("form button[type=submit]")
    page.wait_for_url(f"{server}/rules")
    assert violations() == []
    for url in (f"{server}/", f"{server}/rules?lang=ja", f"{server}/rules?lang=ru"):
        page.goto(url)
        page.wait_for_selector("main")
        page.wait_for_timeout(200)
        assert violations() == [], url
    rng = random.Random(1)
    for game, seats in (("poka", 2), ("hachi-hachi", 3), ("bagaji", 3)):
        start_game(page, server, game, seats)
        _taps(page, rng)
        page.select_option("#lang", "ja")
        page.wait_for_timeout(200)
        page.select_option("#lang", "en")
        assert violations() == [], game
    # the host's button, in this browser on the machine itself: a new PIN shown, this browser stays in
    page.goto(f"{server}/")
    page.click("#new-pin")
    _until(page, "/[0-9]{6}/.test(document.getElementById('new-pin-status').textContent)")
    new = re.search(r"[0-9]{6}", page.inner_text("#new-pin-status")).group(0)
    assert new != pin and page.request.get(f"{server}/api/sessions").ok
    assert violations() == []
    assert errors == []
