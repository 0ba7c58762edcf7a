"""One place per game (issue 49, point 7): every registered game describes itself in its own folder
(``scorer/<game>/describe.py``, its tracker hooks in ``scorer/<game>/tracking.py``), and the modules
outside the game folders read those descriptions instead of naming the games."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scorer.cards import HANAFUDA, PLAYING
from scorer.games import GAME_MODULES, CounterScale, GameDescription, all_games, game
from scorer.tracker.hooks import GAME_HOOKS, GameHooks

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("scorer", "vision", "fudaba", "web", "firmware_bridge")


@pytest.mark.parametrize("name", list(GAME_MODULES))
def test_every_game_is_described(name: str) -> None:
    spec = game(name)
    d = spec.description
    assert isinstance(d, GameDescription)
    assert d.centre_zone and d.centre_zone not in ("stock",) and not d.centre_zone.startswith("seat:")
    assert d.deck_family in (HANAFUDA, PLAYING)
    assert isinstance(d.counter, CounterScale) and d.counter.points_per_led > 0
    folder = GAME_MODULES[name]
    assert d.tracking.startswith(folder + "."), "the hooks live in the game's folder"
    assert isinstance(d.hooks, GameHooks)
    assert GAME_HOOKS[name] is d.hooks
    assert d.final_places is None or d.final_places.__module__.startswith(folder + ".")
    assert all(isinstance(p.get("type"), str) for p in d.passes)
    assert set(d.passes and {p["type"] for p in d.passes}) <= set(spec.match.EVENTS.types())


def test_game_hooks_cover_the_registry() -> None:
    assert list(GAME_HOOKS) == list(GAME_MODULES)
    assert len(GAME_HOOKS) == len(all_games())
    assert GAME_HOOKS.get("no-such-game") is None


def test_counter_scales() -> None:
    assert game("poka").description.counter.leds([2, -1]) == [2, -1]
    assert game("hachi-hachi").description.counter.leds([60, -30]) == [2, -1]
    assert game("bagaji").description.counter.leds([0, 30, 60]) == [3, 0, -3]


def _outside_game_folders() -> list[Path]:
    folders = {ROOT / m.replace(".", "/") for m in GAME_MODULES.values()}
    out = []
    for top in SOURCES:
        for p in sorted((ROOT / top).rglob("*.py")):
            if not any(f in p.parents for f in folders):
                out.append(p)
    return out


def test_no_module_outside_a_game_folder_describes_a_game() -> None:
    """The moved constants are not defined again outside the game folders: no per-game dict of
    centre zones, hooks or reveal games, no counter scale per game, no comparison with a game's
    name for the deck, the reveal, the draws or the table change of an event."""
    names = "|".join(re.escape(n) for n in GAME_MODULES)
    forbidden = [
        re.compile(r"^\s*CENTRE_ZONE\s*=", re.M),
        re.compile(r"^\s*GAME_HOOKS[^=\n]*=\s*\{", re.M),
        re.compile(r"^\s*REVEAL_GAMES\s*=", re.M),
        re.compile(r"^\s*\w+_POINTS_PER_LED\s*=", re.M),
        re.compile(r"class _?(Poka|HachiHachi|Bagaji)Hooks\b"),
        re.compile(rf"""(==|!=)\s*["']({names})["']"""),
        re.compile(rf"""["']({names})["']\s*(==|!=)"""),
        re.compile(rf"""\bin\s*\(\s*["']({names})["']"""),
    ]
    found = []
    for p in _outside_game_folders():
        text = p.read_text(encoding="utf-8")
        for rx in forbidden:
            for m in rx.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{p.relative_to(ROOT)}:{line}: {m.group(0).strip()}")
    assert not found, "game knowledge outside the game folders:\n" + "\n".join(found)


def test_scorer_stays_pure() -> None:
    """The game folders' descriptions and hooks import nothing of the camera, the page or the runtime."""
    for m in GAME_MODULES.values():
        for p in (ROOT / m.replace(".", "/")).glob("*.py"):
            text = p.read_text(encoding="utf-8")
            assert not re.search(r"^\s*(from|import)\s+(vision|web|fudaba|firmware_bridge)\b", text, re.M), p
