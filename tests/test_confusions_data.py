"""The committed confusion figures (bench/data/confusions-<deck>.json, written by bench/confusions.py,
read by the tracking benchmark): their shape, names and counts agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer.cards import deck
from scorer.table import sight_name

DATA = Path(__file__).resolve().parents[1] / "bench" / "data"
FULL_DECK = {"hanafuda": "hanafuda+blank", "playing": "playing+jokers"}
KEYS = {"deck", "commit", "command", "sources", "names", "cards", "correct", "confusions", "assessed", "missed",
        "wrong_p", "true_p_when_wrong", "frames", "phantoms", "phantom_p", "by_source"}
SOURCE_KEYS = {"cards", "correct", "missed", "phantoms", "frames"}


def _load(name: str) -> dict:
    return json.loads((DATA / f"confusions-{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["hanafuda", "playing"])
def test_shape(name):
    d = _load(name)
    assert set(d) == KEYS
    assert d["deck"] == name
    assert isinstance(d["commit"], str) and len(d["commit"]) >= 7
    assert d["command"].startswith("python bench/confusions.py")
    ren = d["sources"]["rendered"]
    assert set(ren) == {"frames", "styles", "first_seed"}
    assert ren["frames"] > 0 and ren["styles"] and ren["first_seed"] % 10 == 9
    real = d["sources"]["real"]
    if name == "hanafuda":
        assert real is None and d["by_source"]["real"] is None
    else:
        assert set(real) == {"images", "path"} and real["images"] > 0
    assert set(d["by_source"]) == {"rendered", "real"}
    for src in d["by_source"].values():
        assert src is None or set(src) == SOURCE_KEYS
    assert (DATA / f"confusions-{name}.json").stat().st_size < 200_000


@pytest.mark.parametrize("name", ["hanafuda", "playing"])
def test_names_are_the_decks_sight_names(name):
    d = _load(name)
    names = sorted({sight_name(c) for c in deck(FULL_DECK[name]).cards})
    assert d["names"] == names
    used = set(d["confusions"]) | set(d["assessed"]) | set(d["missed"])
    used |= {w for row in d["confusions"].values() for w in row}
    assert used <= set(names)
    for t, row in d["confusions"].items():
        assert t not in row and row


@pytest.mark.parametrize("name", ["hanafuda", "playing"])
def test_counts_agree(name):
    d = _load(name)
    wrong = sum(sum(row.values()) for row in d["confusions"].values())
    missed = sum(d["missed"].values())
    assert d["cards"] == d["correct"] + wrong + missed
    assert d["cards"] == sum(d["assessed"].values())
    for t, n in d["assessed"].items():
        assert n > 0
        assert sum(d["confusions"].get(t, {}).values()) + d["missed"].get(t, 0) <= n
    assert len(d["wrong_p"]) == len(d["true_p_when_wrong"]) == wrong
    assert len(d["phantom_p"]) == d["phantoms"]
    for p in d["wrong_p"] + d["true_p_when_wrong"] + d["phantom_p"]:
        assert 0.0 <= p <= 1.0
    srcs = [s for s in d["by_source"].values() if s is not None]
    for key in ("cards", "correct", "phantoms", "frames"):
        assert sum(s[key] for s in srcs) == d[key]
    assert sum(s["missed"] for s in srcs) == missed
    assert d["by_source"]["rendered"]["frames"] == d["sources"]["rendered"]["frames"]
    if d["sources"]["real"] is not None:
        assert d["by_source"]["real"]["frames"] == d["sources"]["real"]["images"]
