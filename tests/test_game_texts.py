"""Each game's page texts live in its folder (issue 49, point 7): ``scorer/<game>/texts.json`` says
its events, what it expects and its event types in English, Japanese and Russian
(:attr:`scorer.games.GameDescription.texts`); the pages embed them and ``web/static/gametext.js``
says them without naming a game."""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import json
import random
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from scorer.deals import FACE_UP_FIELDS, observer_deal
from scorer.errors import ScorerError
from scorer.games import GAME_MODULES, GameSpec, all_games, game

ROOT = Path(__file__).resolve().parent.parent
GAMETEXT = ROOT / "web" / "static" / "gametext.js"
LANGUAGES = ("en", "ja", "ru")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")  # as gametext.js fills them


def generic_texts() -> dict[str, Any]:
    """The texts no one game owns, from gametext.js (written there as JSON)."""
    m = re.search(r"^const GENERIC_TEXTS = (\{.*?^\});", GAMETEXT.read_text(encoding="utf-8"), re.M | re.S)
    assert m, "gametext.js has no GENERIC_TEXTS"
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def placeholders(template: str) -> set[str]:
    return set(PLACEHOLDER.findall(template))


def field_names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


@functools.cache
def reached_phases(name: str) -> frozenset[str]:
    """Every phase ``Match.expects()`` gave in random matches of every seat count and ruleset, the
    known game and an observer's (deals in observer form, unseen draws where the game's draws are
    hidden: Bagaji's showdown is only reached so) until the observer is refused."""
    spec = game(name)
    phases: set[str] = set()
    for seats in range(spec.min_players, spec.max_players + 1):
        players = [f"Seat {i + 1}" for i in range(seats)]
        for ruleset in spec.rulesets:
            for seed in range(2):
                known, observer = spec.match(players, spec.options(ruleset)), spec.match(players, spec.options(ruleset))
                following = True
                rng = random.Random(seed)
                for _ in range(1500):
                    phases.add(known.expects().phase)
                    if following:
                        phases.add(observer.expects().phase)
                    if known.is_over:
                        break
                    ev = known.random_event(rng)
                    if following:
                        try:
                            observer.apply(_observed(spec, observer, ev))
                        except ScorerError:
                            following = False
                    known.apply(ev)
    return frozenset(phases)


def _observed(spec: GameSpec, observer: Any, ev: Any) -> Any:
    if ev.TYPE == "deal":
        face_up = {}
        for f in FACE_UP_FIELDS:
            if hasattr(ev, f):
                value = getattr(ev, f)
                face_up[f] = list(value) if isinstance(value, tuple) else [value]
        return observer_deal(observer, face_up, getattr(ev, "dealer", None), template=ev)
    if spec.description.hidden_draws and ev.TYPE == "draw":
        return dataclasses.replace(ev, card=None)
    return ev


def check_variants(where: str, variants: Any, fields: set[str]) -> list[str]:
    """What is wrong with an event type's variants: each has en, ja and ru, an ``if`` naming a
    field, placeholders naming fields; the last (only the last) has no ``if``."""
    wrong = []
    if not isinstance(variants, list) or not variants:
        return [f"{where}: no variants"]
    for i, v in enumerate(variants):
        at = f"{where}[{i}]"
        if set(v) - {"if", *LANGUAGES}:
            wrong.append(f"{at}: unknown keys {sorted(set(v) - {'if', *LANGUAGES})}")
        if "if" in v and v["if"] not in fields:
            wrong.append(f"{at}: if {v['if']!r} is not a field ({sorted(fields)})")
        if ("if" in v) == (i == len(variants) - 1):
            wrong.append(f"{at}: the last variant, and only the last, is the one without 'if'")
        for lang in LANGUAGES:
            text = v.get(lang)
            if not isinstance(text, str) or not text.strip():
                wrong.append(f"{at}: no {lang} text")
                continue
            unknown = placeholders(text) - fields
            if unknown:
                wrong.append(f"{at}.{lang}: {sorted(unknown)} not fields ({sorted(fields)})")
    return wrong


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_the_texts_file_is_the_game_s_own(name: str) -> None:
    d = game(name).description
    assert d.package == GAME_MODULES[name]
    assert set(d.texts) == {"events", "expects", "types", "settlement", "refusals"}
    assert d.texts is game(name).description.texts, "read once"
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    relative = f"{d.package.removeprefix('scorer.').replace('.', '/')}/texts.json"
    assert any(fnmatch.fnmatch(relative, p) for p in package_data["scorer"]), "texts.json is installed"


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_every_event_type_has_a_text_in_every_language(name: str) -> None:
    """Each event type of the engine is said by the game's texts, or by the generic ones (a deal
    without a sentence of the game, the reshuffle): in en, ja and ru, with placeholders that are
    fields of the event type, so that a misspelt field fails here."""
    types = game(name).match.EVENTS.types()
    own, generic = game(name).description.texts["events"], generic_texts()["events"]
    assert set(own) <= set(types), f"texts for no event type of {name}: {sorted(set(own) - set(types))}"
    wrong = []
    for kind, cls in types.items():
        fields = field_names(cls)
        if kind in own:
            wrong += check_variants(f"{name} {kind}", own[kind], fields)
        elif kind in generic:
            # the generic variants whose condition this event type cannot meet never apply to it
            usable = [v for v in generic[kind] if "if" not in v or v["if"] in fields]
            wrong += check_variants(f"{name} {kind} (generic)", usable, fields)
        else:
            wrong.append(f"{name} {kind}: no text")
    assert not wrong, "\n".join(wrong)


def test_the_generic_texts_are_complete() -> None:
    generic = generic_texts()
    assert set(generic) == {"events", "expects"}
    every_field = set().union(*(field_names(c) for g in all_games() for c in g.match.EVENTS.types().values()))
    wrong = []
    for kind, variants in generic["events"].items():
        wrong += check_variants(f"generic {kind}", variants, every_field)
    for phase, say in generic["expects"].items():
        assert all(isinstance(say.get(lang), str) and say[lang] for lang in LANGUAGES), phase
        assert not placeholders(say["en"]), "a generic phase names no seat"
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_every_phase_the_engine_expects_has_a_text(name: str) -> None:
    """Every phase reached in random play (of the known game and an observer's) is said by the
    game's texts or, for ``deal`` (a deal is due) and ``over`` (the match is over), which every game
    has, by the generic ones; every phase the game's texts name is one the engine reaches."""
    # "over": what Match.expects() says of every ended match (Bagaji's seed ruleset sets no end)
    phases = reached_phases(name) | {"over"}
    own, generic = game(name).description.texts["expects"], generic_texts()["expects"]
    assert set(generic) == {"deal", "over"} and "deal" in phases
    missing = sorted(phases - set(own) - set(generic))
    assert not missing, f"{name}: no text for the phase(s) {missing}"
    assert set(own) <= phases, f"{name}: texts for phases never expected: {sorted(set(own) - phases)}"
    for phase, say in own.items():
        for lang in LANGUAGES:
            assert isinstance(say.get(lang), str) and say[lang].strip(), f"{name} {phase}: no {lang} text"
            assert placeholders(say[lang]) <= {"seat"}, f"{name} {phase}.{lang}: only {{seat}} is filled"
        # gametext.js falls back on the engine's sentence where a text needs a seat and none is given
        assert len({"{seat}" in say[lang] for lang in LANGUAGES}) == 1, f"{name} {phase}: {{seat}} in some languages only"


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_every_event_type_has_ja_and_ru_names(name: str) -> None:
    types = game(name).description.texts["types"]
    assert set(types) == set(game(name).match.EVENTS.types())
    for kind, words in types.items():
        assert set(words) == {"ja", "ru"}, kind
        assert all(isinstance(w, str) and w.strip() for w in words.values()), kind


def test_gametext_js_names_no_game() -> None:
    text = GAMETEXT.read_text(encoding="utf-8").lower()
    names = {*GAME_MODULES, *(m.rpartition(".")[2] for m in GAME_MODULES.values()), "poka", "hachi-hachi", "bagaji"}
    found = sorted(n for n in names if n.lower() in text)
    assert not found, f"gametext.js names {found}: a game's texts belong in its folder"


def _embedded(page: str) -> Any:
    m = re.search(r'<script id="game-texts" type="application/json">(.*?)</script>', page, re.S)
    assert m, "no game-texts block"
    return json.loads(m.group(1))


def test_the_pages_embed_every_game_s_texts(tmp_path: Path) -> None:
    from fudaba.session import Sessions
    from fudaba.store import Store
    from web import WebConfig, create_app

    expected = {spec.name: spec.description.texts for spec in all_games()}
    client = create_app(WebConfig(secret_key=b"k" * 32), Sessions(Store(tmp_path / "h.sqlite3"))).test_client()
    home = client.get("/").get_data(as_text=True)
    assert _embedded(home) == expected
    assert home.index('id="game-texts"') < home.index("gametext.js"), "the texts come before the script reading them"
    token = re.search(r'name="csrf-token" content="([^"]+)"', home).group(1)  # type: ignore[union-attr]
    r = client.post("/api/sessions", json={"game": "bagaji", "players": ["Aki", "Ben", "Chi"]},
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 201, r.json
    page = client.get(f"/session/{r.json['id']}").get_data(as_text=True)  # type: ignore[index]
    assert _embedded(page) == expected
    assert page.index('id="game-texts"') < page.index("gametext.js")
