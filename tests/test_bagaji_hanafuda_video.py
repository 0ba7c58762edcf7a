"""Bagaji filmed with one hanafuda deck (``VideoSpec.deck = "hanafuda-1x"``), followed by the tracker,
and issue 36's acceptance list in ``bench/tracking.py``."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("cv2")

from scorer.cards import deck as scorer_deck  # noqa: E402
from scorer.table import sight_name  # noqa: E402
from vision.replay import ReplayError, _parser, resolve  # noqa: E402
from vision.synth.cardfaces import CARD_SIZE_MM  # noqa: E402
from vision.synth.oracle import perfect_states  # noqa: E402
from vision.synth.video import GameVideo, VideoSpec  # noqa: E402
from vision.zones import zone_layout  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
HANAFUDA_IDS = set(scorer_deck("hanafuda").cards)
SHORT_SEED = 34
"""A short hanafuda-1x Bagaji round (40 s: a call, a ready and a win)."""


def _tracking():
    spec = importlib.util.spec_from_file_location("bench_tracking", REPO / "bench" / "tracking.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_tracking", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def video() -> GameVideo:
    return GameVideo(VideoSpec(game="bagaji", players=3, seed=SHORT_SEED, fps=5.0, size=(640, 360), deck="hanafuda-1x"))


def test_the_hanafuda_deck_reaches_the_playout_art_size_and_layout(video):
    assert video.playout.match.options.deck == "hanafuda-1x" and video.playout.match.deck == "hanafuda"
    assert video.deck == "hanafuda" and video.style.deck == "hanafuda" and video.style.name == "mantia"
    assert video.card_mm == CARD_SIZE_MM["hanafuda"]
    assert video.layout == zone_layout("bagaji", 3, "hanafuda")
    dealt = {c for ev in video.playout.events if ev.TYPE == "deal" for hand in ev.hands
             if isinstance(hand, tuple) for c in hand}
    assert dealt and dealt <= HANAFUDA_IDS
    header = json.loads(video.record().dumps().splitlines()[0])
    assert header["options"]["deck"] == "hanafuda-1x"


def test_a_clip_s_truth_names_hanafuda_cards(video):
    frame = video.frame_count - 2  # the hands lie revealed at the end
    image, truth = video.render(frame)
    assert image.shape == (360, 640, 3)
    named = {c for z in truth["zones"].values() for c in z["up"]}
    assert len(named) >= 10 and named <= HANAFUDA_IDS
    labelled = {c["card_id"] for c in truth["cards"] if c["face_up"]}
    assert labelled and labelled <= HANAFUDA_IDS


def test_the_oracle_s_tables_name_hanafuda_cards(video):
    names = {sight_name(c) for c in HANAFUDA_IDS}
    seen = {card.name for ts in perfect_states(video) for z in ts.table.zones.values() for card in z.up}
    assert len(seen) >= 10 and seen <= names


def test_defaults_are_unchanged():
    default = GameVideo(VideoSpec(game="bagaji", players=3, seed=7, fps=5.0))
    playing = GameVideo(VideoSpec(game="bagaji", players=3, seed=7, fps=5.0, deck="playing-2x"))
    assert default.deck == "playing" and default.playout.match.deck == "playing-2x"
    assert default.playout.events == playing.playout.events and default.look == playing.look
    assert default.timeline.event_times == playing.timeline.event_times
    with pytest.raises(ValueError, match="no deck choice"):
        GameVideo(VideoSpec(game="poka", players=2, deck="hanafuda-1x"))


def test_replay_resolves_the_bagaji_deck():
    for deck in ("hanafuda", "hanafuda-1x"):
        setup = resolve("bagaji", 3, None, None, deck)
        assert (setup.deck, setup.options.deck) == ("hanafuda", "hanafuda-1x")
        assert setup.layout == zone_layout("bagaji", 3, "hanafuda")
    assert resolve("bagaji", 3, None, {"deck": "hanafuda-1x"}).deck == "hanafuda"
    assert resolve("bagaji", 3).options.deck == "playing-2x"
    with pytest.raises(ReplayError, match="uses the playing-2x deck"):
        resolve("bagaji", 3, None, {"deck": "playing-2x"}, "hanafuda")
    with pytest.raises(ReplayError, match="unknown deck"):
        resolve("poka", 2, None, None, "hanafuda-1x")
    args = _parser("replay").parse_args(["v.mp4", "--game", "bagaji", "--deck", "hanafuda-1x", "-o", "r.jsonl"])
    assert args.deck == "hanafuda-1x"


def test_the_perfect_tracker_follows_a_hanafuda_bagaji_game(tmp_path, capsys):
    tracking = _tracking()
    out = tmp_path / "t.json"
    assert tracking.main(["--games", "bagaji", "--deck", "hanafuda-1x", "--seeds", "1", "--first-seed",
                          str(SHORT_SEED), "--json", str(out)]) == 0
    row = json.loads(out.read_text())["games"]["bagaji"]["videos"][0]
    assert row["deck"] == "hanafuda-1x" and row["style"] == "mantia"
    assert row["observable"] >= 5 and row["found"] == row["observable"]
    assert row["settlement_right"]
    assert isinstance(row["question_kinds"], dict) and sum(row["question_kinds"].values()) == row["questions"]
    assert f"bagaji-3-seed-hanafuda-1x-default-top-normal-{SHORT_SEED}: " in capsys.readouterr().out


def test_the_acceptance_list_covers_every_setting():
    tracking = _tracking()
    rows = tracking.acceptance_rows()
    assert len({r.tag for r in rows}) == len(rows) == 72
    assert min(r.seed for r in rows) >= 3000 and len({r.seed for r in rows}) == 72
    per_game = Counter(r.game for r in rows)
    assert set(per_game) == {"poka", "hachi-hachi", "bagaji"} and min(per_game.values()) >= 20
    for g in per_game:
        mine = [r for r in rows if r.game == g]
        assert Counter(r.camera for r in mine) == {"top": 12, "tilted": 12}
        assert Counter(r.difficulty for r in mine) == {"normal": 12, "hard": 12}
        hana = Counter(r.style for r in mine if r.deck != "playing-2x")
        assert set(hana) == {"mantia", "classic", "kokujou"} and len(set(hana.values())) == 1
    hh = Counter((r.players, r.ruleset) for r in rows if r.game == "hachi-hachi")
    assert hh == {(3, "seed-1910"): 6, (3, "standard"): 6, (4, "seed-1910"): 6, (4, "standard"): 6}
    bagaji = [r for r in rows if r.game == "bagaji"]
    assert Counter(r.deck for r in bagaji) == {"playing-2x": 12, "hanafuda-1x": 12}
    assert Counter(r.style for r in bagaji if r.deck == "playing-2x") == {"knoll": 6, "jumbo": 6}
    assert all(r.enrolled == (r.style == "kokujou") for r in rows)
