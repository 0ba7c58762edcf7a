"""Helpers the test modules share (test modules never import one another): a test client that
keeps the page's CSRF token, a dashboard app over a fresh history, a deal entered at random, and a
scripted Hachi-hachi deal."""

from __future__ import annotations

import random
import re
import signal
from pathlib import Path

from flask.testing import FlaskClient

from fudaba.serve import card_art_finder
from fudaba.session import Session, SessionError, Sessions
from fudaba.store import Store
from scorer.cards import deck as deck_spec
from scorer.cards import hanafuda_ids
from scorer.hachihachi.events import Deal
from web import WebConfig, create_app

HAND_1 = ("01-ribbon", "02-ribbon", "03-ribbon", "04-plain-1", "05-plain-1", "06-plain-1", "07-plain-1")
"""Seat 1's hand in :func:`scripted_deal`."""
FIELD = ("01-plain-1", "02-plain-1", "03-plain-1", "08-plain-1", "09-plain-1", "10-plain-1")
"""The field in :func:`scripted_deal`."""


def sigint_default() -> None:
    """``preexec_fn`` of a child a test stops with SIGINT (Ctrl-C): its default action back, as in a
    terminal. A runner started in the background (``cmd &`` without job control) ignores SIGINT and
    its children inherit that, and Python then installs no KeyboardInterrupt for it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Browser:
    """A test client that keeps the page's CSRF token, as the pages' JavaScript does."""

    def __init__(self, client: FlaskClient) -> None:
        self.c = client
        page = client.get("/")
        m = re.search(r'name="csrf-token" content="([^"]+)"', page.get_data(as_text=True))
        self.token = m.group(1) if m else ""

    def post(self, url: str, body: object = None, **kw: object):  # noqa: ANN201
        headers = {"X-CSRF-Token": self.token}
        return self.c.post(url, json=body, headers=headers, **kw) if body is not None else \
            self.c.post(url, headers=headers, **kw)

    def get(self, url: str, **kw: object):  # noqa: ANN201
        return self.c.get(url, **kw)


def make_app(tmp_path: Path, pin: str | None = None, max_upload: int = 1 << 20):  # noqa: ANN201
    config = WebConfig(secret_key=b"k" * 32, pin=pin, card_art=card_art_finder(), max_upload=max_upload,
                       heartbeat_s=0.05)
    return create_app(config, Sessions(Store(tmp_path / "h.sqlite3")))


def enter_deal(s: Session, rng: random.Random) -> None:
    """Enter the deal due now with face-up cards drawn at random (retrying where the rules refuse
    them, e.g. a field a deal may not show)."""
    form = s.snapshot()["manual"]["deal"]
    cards = list(deck_spec(s.header.deck).cards)
    for _ in range(50):
        picked = rng.sample(cards, sum(form["face_up"].values()))
        face_up, i = {}, 0
        for name, n in form["face_up"].items():
            face_up[name], i = picked[i:i + n], i + n
        try:
            s.deal(form["dealers"][0] if form["dealers"] else None, face_up)
            return
        except SessionError:
            continue
    raise AssertionError("no deal accepted in 50 tries")


def scripted_deal(n: int = 3, dealer: int = 1, hand_1=HAND_1, field=FIELD) -> Deal:
    rest = [c for c in hanafuda_ids() if c not in hand_1 and c not in field]
    random.Random(3).shuffle(rest)
    hands = [tuple(hand_1)]
    for _ in range(n - 1):
        hands.append(tuple(rest[:7]))
        rest = rest[7:]
    return Deal(dealer, tuple(hands), tuple(field), tuple(rest))
