"""A noisy camera: the perfect table states of a game video with a recogniser's mistakes injected.

Between ``perfect`` (what a flawless camera and stabiliser would report: :mod:`vision.synth.oracle`)
and ``camera`` (frames rendered and recognised), :class:`NoisyCamera` takes the perfect states and
makes the four mistakes a real camera makes, at a chosen rate, seeded and reproducible:

* **Confusions.** Each card *placement* (a card lying in one zone, from when it lands there until it
  leaves) is misread with probability ``confusion × w(name)`` and stays misread while it lies there
  (a stabiliser averages the readings of a still card: a systematic misread survives them; lesson 6
  of design/TRACKING.md). ``w(name)`` is the card's measured error rate relative to the deck's mean
  (add-one smoothed), so the cards a recogniser confuses most are misread most. The wrong name is
  drawn from the measured confusion row of the true name, smoothed with the deck's pooled wrong
  names: P(w | n) ∝ count(n → w) + pooled(w) / Σ pooled. The reading's probabilities are one
  measured pair (the wrong name's probability, the true name's in the same reading), drawn together.
* **Misses.** A placement is not reported at all with probability ``miss`` (default: the measured
  miss rate), for as long as it lies there.
* **Phantoms.** Each distinct true table (from one table change to the next) shows, with
  probability ``phantom`` (default: the measured phantoms per frame, at most 1), one extra card of a
  uniformly drawn name in a zone that holds cards, with a measured phantom's probability.
* **Arms not seen.** Each arm's action (a leg of the video's timeline) is missed with probability
  ``arm_miss`` (default :data:`ARM_MISS`; nothing measures it yet): its seat is not among the
  state's ``actors`` and the zones it reached not in ``reached``.

Only the confusion rate is the chosen rate (``--noise``); misses and phantoms stay at what the
recogniser was measured to make, arms unseen at :data:`ARM_MISS`, unless set.
The measured figures come from ``bench/confusions.py`` (``bench/data/confusions-<deck>.json``: the
shipped recogniser on held-out renders and, for playing cards, real photographs).

A re-read (:meth:`NoisyCamera.reread`: the tracker found a zone's reading contradicted by the game
and asked for it again, at full camera resolution) draws that zone's misread and missed placements
again, once per placement: each is read right with probability ``reread_right`` (default 0.5: half
of a recogniser's misreads are systematic and come back the same, and a second look at a still card
gives what the first gave). Times are video seconds.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scorer.table import PILE_ZONES, SeenCard, TableState, ZoneState
from vision.synth.choreography import Leg
from vision.synth.oracle import TimedState, settled_frames, zones_to_table
from vision.synth.video import GameVideo

ARM_MISS = 0.02
"""Default share of arm actions the motion gate misses (an assumption: not measured)."""
DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
"""Where ``bench/confusions.py`` writes the measured confusions (``confusions-<deck>.json``)."""


@dataclass(frozen=True, slots=True)
class Confusions:
    """A recogniser's measured mistakes on one deck, in sight names (bench/confusions.py)."""

    deck: str
    names: tuple[str, ...]
    cards: int
    confusions: dict[str, dict[str, int]]
    assessed: dict[str, int]
    missed: dict[str, int]
    wrong_p: tuple[float, ...]
    true_p_when_wrong: tuple[float, ...]
    frames: int
    phantoms: int
    phantom_p: tuple[float, ...]

    @classmethod
    def load(cls, deck: str, folder: Path | None = None) -> Confusions:
        """The measured confusions of ``deck`` (``hanafuda`` or ``playing``); ValueError naming the
        file and the command that writes it when it is missing or malformed."""
        path = (folder or DATA) / f"confusions-{deck}.json"
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(deck=raw["deck"], names=tuple(raw["names"]), cards=int(raw["cards"]),
                       confusions={k: dict(v) for k, v in raw["confusions"].items()},
                       assessed=dict(raw["assessed"]), missed=dict(raw["missed"]),
                       wrong_p=tuple(raw["wrong_p"]), true_p_when_wrong=tuple(raw["true_p_when_wrong"]),
                       frames=int(raw["frames"]), phantoms=int(raw["phantoms"]), phantom_p=tuple(raw["phantom_p"]))
        except FileNotFoundError:
            raise ValueError(f"{path}: no measured confusions for {deck} cards (python bench/confusions.py writes them)") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: not a confusions file ({type(exc).__name__}: {exc})") from None

    @property
    def errors(self) -> int:
        """Cards named wrong."""
        return sum(sum(row.values()) for row in self.confusions.values())

    @property
    def error_rate(self) -> float:
        return self.errors / max(1, self.cards)

    @property
    def miss_rate(self) -> float:
        return sum(self.missed.values()) / max(1, self.cards)

    @property
    def phantom_rate(self) -> float:
        """Phantom cards per frame."""
        return self.phantoms / max(1, self.frames)

    def weight(self, name: str) -> float:
        """How much more often than the deck's mean card ``name`` is misread (add-one smoothed)."""
        rates = {n: (sum(self.confusions.get(n, {}).values()) + 1) / (self.assessed.get(n, 0) + 2) for n in self.names}
        mean = sum(rates.values()) / max(1, len(rates))
        return rates.get(name, mean) / mean if mean > 0 else 1.0

    def wrong_names(self, name: str) -> tuple[tuple[str, ...], np.ndarray]:
        """The names ``name`` may be misread as and their probabilities (module docstring)."""
        pooled: Counter[str] = Counter()
        for row in self.confusions.values():
            pooled.update(row)
        others = tuple(n for n in self.names if n != name)
        total = sum(pooled[n] for n in others)
        row = self.confusions.get(name, {})
        w = np.array([row.get(n, 0) + ((pooled[n] + 0.5) / (total + 0.5 * len(others))) for n in others], dtype=float)
        return others, w / w.sum()


@dataclass(frozen=True, slots=True)
class Noise:
    """How noisy the camera is (module docstring); None: scaled from the measured figures."""

    confusion: float = 0.03
    """Share of card placements misread (the mean over the deck's names)."""
    miss: float | None = None
    phantom: float | None = None
    """Probability that a distinct true table shows one phantom card."""
    arm_miss: float | None = None
    reread_right: float = 0.5

    def rates(self, measured: Confusions) -> tuple[float, float, float]:
        """(miss, phantom, arm_miss): as set, else the measured figures (module docstring)."""
        miss = self.miss if self.miss is not None else measured.miss_rate
        phantom = self.phantom if self.phantom is not None else min(1.0, measured.phantom_rate)
        arm = self.arm_miss if self.arm_miss is not None else ARM_MISS
        return miss, phantom, arm


@dataclass(slots=True)
class _Placement:
    """What the noisy camera makes of one card lying in one zone."""

    reading: SeenCard | None
    """None: not seen at all (a miss)."""
    wrong: bool = False
    rereads: int = 0


@dataclass
class NoisyCamera:
    """The table states of ``video`` as a noisy camera reports them (module docstring).

    Iterate :meth:`states`; call :meth:`reread` with the zones the tracker asks to read again (they
    are read anew at the next state)."""

    video: GameVideo
    noise: Noise
    seed: int = 0
    measured: Confusions | None = None
    stats: Counter[str] = field(default_factory=Counter)
    """Placements, misreads, misses, phantoms, arms missed, rereads and rereads made right."""

    def __post_init__(self) -> None:
        self.measured = self.measured or Confusions.load(self.video.deck)
        self._rng = np.random.Generator(np.random.PCG64([self.seed, 0x0015E]))
        self._miss, self._phantom, self._arm_miss = self.noise.rates(self.measured)
        self._placements: dict[tuple[str, str, int], _Placement] = {}
        self._wrong_cache: dict[str, tuple[tuple[str, ...], np.ndarray]] = {}
        self._weights = {n: self.measured.weight(n) for n in self.measured.names}
        self._reread: set[str] = set()
        self._phantoms: dict[tuple, tuple[str, SeenCard] | None] = {}

    # ------------------------------------------------------------------ readings
    def _read(self, name: str) -> _Placement:
        rng = self._rng
        self.stats["placements"] += 1
        if rng.random() < self._miss:
            self.stats["misses"] += 1
            return _Placement(None)
        if rng.random() < min(0.9, self.noise.confusion * self._weights.get(name, 1.0)):
            self.stats["misreads"] += 1
            return _Placement(self._misread(name), wrong=True)
        return _Placement(SeenCard.certain(name))

    def _misread(self, name: str) -> SeenCard:
        m = self.measured
        assert m is not None
        if name not in self._wrong_cache:
            self._wrong_cache[name] = m.wrong_names(name)
        others, p = self._wrong_cache[name]
        wrong = str(others[int(self._rng.choice(len(others), p=p))])
        if m.wrong_p:
            k = int(self._rng.integers(len(m.wrong_p)))
            pw, pt = float(m.wrong_p[k]), float(m.true_p_when_wrong[k])
        else:
            pw, pt = 0.6, 0.3
        pw = min(max(pw, 0.05), 1.0)
        pt = min(max(pt, 0.0), 1.0 - pw)
        return SeenCard(((wrong, pw), (name, pt)) if pt > 0 else ((wrong, pw),))

    def reread(self, zones: Iterable[str]) -> None:
        """Read ``zones`` again at the next state (the tracker found them contradicted)."""
        self._reread.update(zones)

    def _apply_rereads(self, present: set[tuple[str, str, int]]) -> None:
        if not self._reread:
            return
        for key in present:
            place = self._placements[key]
            if key[1] not in self._reread or place.rereads or (place.reading is not None and not place.wrong):
                continue
            self.stats["rereads"] += 1
            place.rereads += 1
            if self._rng.random() < self.noise.reread_right:
                self.stats["rereads_right"] += 1
                self._placements[key] = _Placement(SeenCard.certain(key[0]), rereads=place.rereads)
        self._reread.clear()

    # ------------------------------------------------------------------ states
    def _table(self, zones: dict[str, dict[str, object]], t: float, actors: tuple[int, ...],
               history: dict[str, tuple[str, ...]], reached: frozenset[str]) -> TableState:
        present: set[tuple[str, str, int]] = set()
        truth = zones_to_table(zones, t)
        for z, state in truth.zones.items():
            counts: Counter[str] = Counter()
            for c in state.up:
                key = (c.name, z, counts[c.name])
                counts[c.name] += 1
                present.add(key)
                if key not in self._placements:
                    self._placements[key] = self._read(c.name)
        for key in [k for k in self._placements if k not in present]:
            del self._placements[key]  # the card left: a new placement when it lands again
        self._apply_rereads(present)
        out: dict[str, ZoneState] = {}
        for z, state in truth.zones.items():
            cards = []
            counts = Counter()
            for c in state.up:
                key = (c.name, z, counts[c.name])
                counts[c.name] += 1
                reading = self._placements[key].reading
                if reading is not None:
                    cards.append(reading)
            out[z] = ZoneState(tuple(cards), state.down)
        signature = truth.signature()
        if signature not in self._phantoms:
            self._phantoms[signature] = self._phantom_card(truth)
        ghost = self._phantoms[signature]
        if ghost is not None:
            z, card = ghost
            base = out.get(z, ZoneState((), 0))
            out[z] = ZoneState((*base.up, card), base.down)
        seen_history = {z: tuple(self._seen_name(n, z) for n in names) for z, names in history.items()}
        return TableState({z: s for z, s in out.items() if not s.empty}, t, actors, seen_history, reached)

    def _seen_name(self, name: str, zone: str) -> str:
        place = self._placements.get((name, zone, 0))
        return place.reading.name if place is not None and place.reading is not None else name

    def _phantom_card(self, truth: TableState) -> tuple[str, SeenCard] | None:
        rng = self._rng
        if rng.random() >= self._phantom:
            return None
        zones = sorted(z for z in truth.zones if z not in PILE_ZONES and z != "stock")
        if not zones:
            return None
        m = self.measured
        assert m is not None
        self.stats["phantoms"] += 1
        name = str(m.names[int(rng.integers(len(m.names)))])
        p = float(m.phantom_p[int(rng.integers(len(m.phantom_p)))]) if m.phantom_p else 0.5
        return str(zones[int(rng.integers(len(zones)))]), SeenCard(((name, min(max(p, 0.05), 1.0)),))

    def states(self) -> Iterator[TimedState]:
        """The states the noisy stabiliser reports: every frame with no arm over the table."""
        missed_legs: dict[float, bool] = {}

        def seen(leg: Leg) -> bool:
            if leg.t0 not in missed_legs:
                missed_legs[leg.t0] = bool(self._rng.random() < self._arm_miss)
                self.stats["arms"] += 1
                self.stats["arms_missed"] += missed_legs[leg.t0]
            return not missed_legs[leg.t0]

        for sf in settled_frames(self.video, seen):
            yield TimedState(sf.frame, sf.t, self._table(sf.zones, sf.t, sf.actors, sf.history, sf.reached))
