"""The pages (HTML shells filled by ``static/*.js`` from the API) and the card faces."""

from __future__ import annotations

import functools
import hmac
import re
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)

from fudaba.session import SessionError
from scorer.cards import all_cards, decks
from scorer.games import all_games
from web import security

bp = Blueprint("pages", __name__)


def _ext() -> dict[str, Any]:
    return current_app.extensions["fudaba"]


@bp.get("/")
def home() -> str:
    urls = _ext()["config"].join_urls
    return render_template("home.html", join=[(u, _qr_svg(u)) for u in urls], card_names=card_names("hanafuda"),
                           game_texts=game_texts())


def _qr_svg(url: str) -> str:
    """``url`` as an inline SVG QR code."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=5, border=2, xmldecl=False, svgns=True,
                                    title=f"QR code for {url}")
    return out.getvalue().decode()


@bp.get("/session/<int:sid>")
def session_page(sid: int) -> Any:
    try:
        s = _ext()["sessions"].get(sid)
    except SessionError:
        abort(404, f"there is no session {sid}")
    family = decks()[s.header.deck].family
    return render_template("session.html", sid=sid, title=s.title, family=family,
                           counter=_ext()["config"].counter is not None, card_names=card_names(family),
                           game_texts=game_texts())


@functools.cache
def card_names(family: str) -> dict[str, list[Any]]:
    """The cards of ``family`` for the page to name them: id → [English name, Japanese name,
    month, kind] (the card tables' names; playing cards are named by rank and suit on the page)."""
    return {c.id: [c.name_en, c.name_ja, c.month, c.kind] for c in all_cards(family).values()}


def game_texts() -> dict[str, Any]:
    """Every registered game's page texts by game name (:attr:`scorer.games.GameDescription.texts`),
    for ``gametext.js`` to say the events, what is expected and the event types."""
    return {spec.name: spec.description.texts for spec in all_games()}


RULES_LANGUAGES = ("en", "ja", "ru")
"""The languages of the rules page: ``rules.md`` in English, ``rules.<lang>.md`` beside it."""


def rules_file(english: Path, lang: str) -> Path:
    """The rules document in ``lang`` (``rules.ja.md`` beside ``rules.md``), else the English."""
    if lang != "en" and lang in RULES_LANGUAGES:
        translated = english.with_name(f"{english.stem}.{lang}{english.suffix}")
        if translated.is_file():
            return translated
    return english


@bp.get("/rules")
def rules() -> Any:
    """The rules as implemented (``docs/rules.md``, or its translation for ``?lang=ja|ru``); each
    section's number is its anchor (``/rules#H8.6``), which the settlement lines' citations link to."""
    path = _ext()["config"].rules
    if path is None:
        abort(404, "the rules document is not installed")
    lang = request.args.get("lang", "en")
    if lang not in RULES_LANGUAGES:
        abort(400, f"the rules are in {', '.join(RULES_LANGUAGES)}, not {lang!r}")
    shown = rules_file(path, lang)
    available = [code for code in RULES_LANGUAGES if rules_file(path, code) != path or code == "en"]
    howto = howto_file(lang)
    return render_template("rules.html", body=_rules_html(str(shown), shown.stat().st_mtime),
                           lang=lang if shown != path else "en", available=available,
                           howto=_howto_html(str(howto), howto.stat().st_mtime) if howto else "",
                           howto_lang=howto.suffixes[-2].lstrip(".") if howto else "en")


HOWTO_DIR = Path(__file__).resolve().parent / "static"
"""Where the how-to-play texts lie: ``howto.<lang>.md``, one per language of :data:`RULES_LANGUAGES`."""


def howto_file(lang: str) -> Path | None:
    """The how-to-play text in ``lang``, else the English one (None: neither is installed)."""
    for code in (lang, "en"):
        path = HOWTO_DIR / f"howto.{code}.md"
        if path.is_file():
            return path
    return None


_HOWTO_GAME = re.compile(r"^## (.+?) \{#([a-z0-9-]+)\}[ \t]*$", re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


@functools.lru_cache(maxsize=6)
def _howto_html(path: str, mtime: float) -> str:
    """The how-to-play text as HTML: its heading, then one ``<section class="howto"
    id="howto-GAME" data-game="GAME">`` per game (a heading ``## Title {#GAME}`` in the text)."""
    import markdown
    from markupsafe import escape

    text = _COMMENT.sub("", Path(path).read_text(encoding="utf-8"))
    parts = _HOWTO_GAME.split(text)
    out = [markdown.markdown(parts[0])]
    for title, game, body in zip(parts[1::3], parts[2::3], parts[3::3], strict=True):
        out.append(f'<section class="panel howto" id="howto-{game}" data-game="{game}">'
                   f"<h2>{escape(title)}</h2>{markdown.markdown(body)}</section>")
    return "\n".join(out)


_CONTENTS_LINK = re.compile(r'href="#([gchbp])-[^"]*"')


@functools.lru_cache(maxsize=6)
def _rules_html(path: str, mtime: float) -> str:
    import markdown
    from markdown.extensions.toc import TocExtension

    def anchor(value: str, separator: str) -> str:
        first = value.split()[0] if value.split() else value
        return first if any(ch.isdigit() for ch in first) or len(first) == 1 else markdown.extensions.toc.slugify(value, separator)

    text = Path(path).read_text(encoding="utf-8")
    html = markdown.markdown(text, extensions=["tables", TocExtension(slugify=anchor, toc_depth="2-4")])
    # the contents' links are written for a Markdown viewer (#h-hachi-hachi): here a part's anchor is its letter
    return _CONTENTS_LINK.sub(lambda m: f'href="#{m.group(1).upper()}"', html)


@bp.get("/pin")
def pin() -> Any:
    if _ext()["pins"] is None:
        return redirect(url_for("pages.home"))
    return render_template("pin.html", next=_safe_next(request.args.get("next")), wrong=False, wait=0)


@bp.post("/pin")
def pin_post() -> Any:
    pins, guard = _ext()["pins"], _ext()["pin_guard"]
    if pins is None:
        return redirect(url_for("pages.home"))
    addr = request.remote_addr or "?"
    nxt = _safe_next(request.form.get("next"))
    wait = guard.blocked(addr)
    if wait:
        return render_template("pin.html", next=nxt, wrong=False, wait=int(wait) + 1), 429
    given = (request.form.get("pin") or "").strip()
    if hmac.compare_digest(given.encode(), pins.pin.encode()):
        security.grant(pins)
        return redirect(nxt)
    guard.wrong(addr)
    return render_template("pin.html", next=nxt, wrong=True, wait=0), 401


def _safe_next(nxt: str | None) -> str:
    """Only a path on this site (:func:`web.security.safe_next`), else the home page."""
    return security.safe_next(nxt) or url_for("pages.home")


@bp.get("/cards/<family>/<card>.png")
def card_face(family: str, card: str) -> Any:
    art = _ext()["config"].card_art
    path = art(family, card) if art is not None else None
    if path is None:
        abort(404, f"no face for {family} card {card}")
    return send_file(path, mimetype="image/png", max_age=86400)
