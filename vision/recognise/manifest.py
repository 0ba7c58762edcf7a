"""Where the shipped models are and what each one is: ``models/<deck>/manifest.json``, read into one
typed, frozen settings object (:class:`Manifest`).

A deck's folder holds ``detector.pt`` / ``detector.onnx``, ``classifier.pt`` / ``classifier.onnx``,
the model card ``README.md`` and ``manifest.json``, which the recogniser reads::

    {"deck": "hanafuda",
     "detector": {"stem": "detector", "size": 416, "names": ["card", "back"], "conf": 0.15, "iou": 0.7,
                  "oriented": true, "trained_at": 416, "source": {"run": "…", "argv": […], "git": null}},
     "classifier": {"stem": "classifier", "side": 96, "names": [...], "embedding": 1280, "sha256": "...",
                    "styles": [...], "source": {...}},
     "calibration": {"temperature": 1.0, "unsure_below": 0.67, "both_ways": true, "target": 0.995, ...},
     "profile": {"weight": 0.9, "tau": 0.02},
     "recognition": {"turn_below": 0.9, "one_deck": true}}

Playing cards may add ``index_detector``, ``index_classifier``, ``index_rank_classifier`` and
``index_suit_classifier`` (same shapes as ``detector`` and ``classifier``) and ``index`` (their
thresholds, :class:`IndexParams`): the corner-index readers of :mod:`vision.recognise.index_reader`.

Every section is checked as it is read: a key this module does not know, a value of the wrong type
and a missing required key are refused with a ValueError naming the file and the key
(``…/manifest.json: unknown key index.foo (known: …)``). Values only: why a value was chosen is in
docs/decisions.md. Beside the settings the recogniser uses, a manifest keeps the provenance of each
network (``source``, ``trained_at``, ``sha256``, ``styles``, ``embedding``) and what was measured
when a setting was fitted (calibration's ``accuracy``, ``cards`` …, index's ``per_image_f1``,
``images`` …).

The models folder is ``$FUDABA_MODELS`` when set, else ``models/`` beside the ``vision`` package
(a source checkout or an editable install), else ``<prefix>/share/fudaba/models`` (where
``pip install`` puts them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import types
import typing
from dataclasses import dataclass, replace
from pathlib import Path

DECKS = ("hanafuda", "playing")


def models_dir() -> Path:
    """The folder holding one sub-folder per deck."""
    env = os.environ.get("FUDABA_MODELS")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parents[2] / "models"
    if any((checkout / d / "manifest.json").is_file() for d in DECKS):
        return checkout
    return Path(sys.prefix) / "share" / "fudaba" / "models"


@dataclass(frozen=True, slots=True)
class Source:
    """Where a shipped network came from (``train ship``)."""

    run: str
    """The training run's folder name."""
    argv: tuple[str, ...] | None = None
    """The ``train`` command line of the run."""
    git: str | None = None
    """The commit the run was trained at, when known."""


@dataclass(frozen=True, slots=True)
class DetectorSettings:
    """A detector network: the card detector (``detector``) or the corner-index one (``index_detector``)."""

    stem: str
    """File name without suffix, in the deck's folder (``detector`` → ``detector.onnx``)."""
    size: int
    """Long side (px) frames are scaled to."""
    names: tuple[str, ...]
    """Class names (the card detector: a face-up card, then the back)."""
    conf: float
    """Least confidence of a detection kept."""
    iou: float
    """Overlap above which non-maximum suppression keeps only the surer detection."""
    oriented: bool = False
    """Whether it gives rotated rectangles (YOLO OBB); the card detector must."""
    trained_at: int | None = None
    """Input side (px) it was trained at."""
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class ClassifierSettings:
    """A classifier network: of card crops (``classifier``) or of index squares (``index_*classifier``)."""

    stem: str
    side: int
    """Side (px) of the square crops it reads."""
    names: tuple[str, ...]
    """Class names, in the network's output order."""
    embedding: int | None = None
    """Width of its second output, the embedding deck enrolment uses."""
    sha256: str | None = None
    """SHA-256 of its ONNX file (a deck profile belongs to it)."""
    styles: tuple[str, ...] = ()
    """The art styles it was trained on (empty when not named)."""
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class Calibration:
    """The whole-card classifier's calibration (``fudaba calibrate``, :mod:`vision.evaluate.calibration`)."""

    temperature: float
    """Probabilities are re-tempered: ``p ∝ p^(1/T)``."""
    unsure_below: float
    """A card is unsure below this calibrated confidence."""
    both_ways: bool = False
    """Each crop is also classified turned 180° and the two views averaged."""
    target: float = 0.995
    """Share of the sure answers that must be right (what ``unsure_below`` was fitted to)."""
    cards: int | None = None
    """Measured at fitting: the validation cards used."""
    accuracy: float | None = None
    """Measured: the share of them named right."""
    sure_fraction: float | None = None
    """Measured: the share of them named sure."""
    expected_calibration_error: float | None = None
    scenes: int | None = None
    """Validation scenes rendered to fit on."""
    first_seed: int | None = None
    """Their first seed."""
    styles: tuple[str, ...] = ()
    """The art styles they were rendered in."""


UNCALIBRATED = Calibration(temperature=1.0, unsure_below=0.5)
"""The calibration of a manifest without one (a classifier just shipped, before ``fudaba calibrate``)."""


@dataclass(frozen=True, slots=True)
class ProfileSettings:
    """How a deck profile's answer is blended with the network's (:func:`vision.recognise.profile.blend`)."""

    weight: float
    """``p ∝ p_network^(1−w) · q^w``."""
    tau: float
    """Temperature of a profile without a fitted head (nearest reference by cosine similarity)."""


DEFAULT_PROFILE = ProfileSettings(weight=0.8, tau=0.05)
"""The blending of a manifest that names none."""


@dataclass(frozen=True, slots=True)
class IndexParams:
    """How corner-index readings are trusted (:mod:`vision.recognise.index_reader`; the manifest's
    ``index``, from ``train index-tune`` but for ``skip_unreadable``)."""

    min_prob: float = 0.5
    """Readings less confident than this are dropped (a pip or a picture taken for an index)."""
    unsure_below: float = 0.9
    """An index-named card is unsure below this confidence."""
    turns: int = 1
    """Views per index crop (:attr:`vision.recognise.index_reader.IndexReader.turns`: 1, 4 or 8)."""
    unread_min: float = 0.0
    """In a close-up (``close_px``), a face-up whole card with no reading is kept only when the
    whole-card classifier is at least this confident (0: always kept)."""
    split_prob: float = 1.01
    """Readings inside one outline that name different cards, each at least this confident, are
    different cards (one outline round a fanned hand or a pile): the outline keeps the name most
    readings give, the others are cards seen by their index. Above 1: never split."""
    factor_weight: float = 0.0
    """Weight (0 … 1, log space) of the rank × suit classifiers' reading against the 54-way index
    classifier's (:func:`vision.recognise.index_reader.mix`; 0: the 54-way classifier alone, 1: the factors alone)."""
    close_px: float = 0.0
    """Unconfirmed cards are doubted only in a close-up: a frame whose kept readings have a median
    size (long side, px at the index detector's input) of at least this. Index boxes of close-up
    photographs measure about 49 px there (5 % under 19), those of rendered tables 12-16 px."""
    skip_unreadable: bool = False
    """Whether the index reader skips a frame where some face-up card was named sure and no card is
    big enough to show an index of ``close_px`` (:func:`vision.recognise.index_reader.needs_reading`): a
    table seen from afar, whose indices are too small to read, where the reader would cost time and
    find only stray readings."""
    tiles: bool = False
    """Whether a table frame whose indices are too small at the detector's input is read in tiles at
    its own resolution round the cards in doubt (:mod:`vision.recognise.index_tiles`)."""
    tile_min_prob: float | None = None
    """``min_prob`` of a frame read in tiles (None: ``min_prob``); chosen on rendered tables of hands."""
    tile_split_prob: float | None = None
    """``split_prob`` of a frame read in tiles (None: ``split_prob``)."""
    tile_factor_weight: float | None = None
    """``factor_weight`` of a frame read in tiles (None: ``factor_weight``)."""
    tile_unsure_below: float | None = None
    """``unsure_below`` of a frame read in tiles (None: ``unsure_below``)."""
    target: float | None = None
    """Share of the index-named sure cards that must be right (what ``unsure_below`` was fitted to)."""
    per_image_f1: float | None = None
    """Measured at tuning: the mean per-image F1 on the held-out train photographs."""
    images: int | None = None
    """Measured: how many held-out images."""
    hands: int | None = None
    """``index-tune --hands``: how many rendered tables of hands the ``tile_*`` values were chosen on."""
    tables_f1: float | None = None
    """Measured at tuning: the mean per-image F1 on those tables."""
    fraction: float | None = None
    """The share of the train photographs held out to tune on."""
    conf_min: float | None = None
    """``index-tune --conf-min``: the least detector confidence tried."""
    turns_max: int | None = None
    """``index-tune --turns-max``: the most views per index tried."""


def for_tiles(params: IndexParams) -> IndexParams:
    """``params`` as a frame read in tiles uses them: each ``tile_*`` value that is set in place of its
    own, and ``unread_min`` 0: only the cards in doubt are read there, so a whole card with no reading
    is one the reader did not look at, not one it failed to confirm."""
    return replace(params, unread_min=0.0,
                   **{k: getattr(params, f"tile_{k}") for k in ("min_prob", "split_prob", "factor_weight", "unsure_below")
                      if getattr(params, f"tile_{k}") is not None})


INDEX_REQUIRED = ("min_prob", "unsure_below", "turns", "unread_min", "split_prob", "factor_weight", "close_px",
                  "skip_unreadable")
"""The keys an ``index`` section must hold (``train index-tune`` writes them all)."""


@dataclass(frozen=True, slots=True)
class RecognitionSettings:
    """How the named cards are kept."""

    turn_below: float | None = None
    """With ``calibration.both_ways``: only the crops whose highest probability as cut is below this
    are turned (:class:`vision.recognise.classifier.CardClassifier`); None: every crop."""
    one_deck: bool = False
    """Name a frame's face-up cards together, no name more often than one deck holds it
    (:mod:`vision.recognise.one_deck`)."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a deck's recogniser is made of."""

    deck: str
    folder: Path
    detector: DetectorSettings
    classifier: ClassifierSettings | None = None
    """None in a manifest shipped a detector but no classifier yet."""
    calibration: Calibration = UNCALIBRATED
    profile: ProfileSettings = DEFAULT_PROFILE
    index_detector: DetectorSettings | None = None
    """Playing cards: the corner-index detector (optional, :mod:`vision.recognise.index_reader`)."""
    index_classifier: ClassifierSettings | None = None
    index_rank_classifier: ClassifierSettings | None = None
    """Playing cards: classifier of an index's rank (optional; with ``index_suit_classifier``)."""
    index_suit_classifier: ClassifierSettings | None = None
    """Playing cards: classifier of an index's suit (optional; with ``index_rank_classifier``)."""
    index: IndexParams = IndexParams()
    """Thresholds of the index readings."""
    recognition: RecognitionSettings = RecognitionSettings()

    @property
    def styles(self) -> tuple[str, ...]:
        """The art styles the classifier was trained on (empty when not named)."""
        return self.classifier.styles if self.classifier is not None else ()

    @property
    def detector_stem(self) -> Path:
        return self.folder / self.detector.stem

    @property
    def classifier_stem(self) -> Path:
        if self.classifier is None:
            raise ValueError(f"{self.folder / 'manifest.json'} names no classifier: ship one with `train ship`")
        return self.folder / self.classifier.stem


SECTIONS: dict[str, type] = {
    "detector": DetectorSettings, "classifier": ClassifierSettings, "calibration": Calibration,
    "profile": ProfileSettings, "index_detector": DetectorSettings, "index_classifier": ClassifierSettings,
    "index_rank_classifier": ClassifierSettings, "index_suit_classifier": ClassifierSettings, "index": IndexParams,
    "recognition": RecognitionSettings}
"""The sections of a manifest beside ``deck``, and what each is read into."""


def _expected(tp) -> str:
    if tp is bool:
        return "true or false"
    if tp is int:
        return "a whole number"
    if tp is float:
        return "a number"
    if tp is str:
        return "a string"
    if typing.get_origin(tp) is tuple:
        return "a list of strings"
    return "an object"


def _value(value, tp, where: str, path: Path):
    """``value`` checked against the annotation ``tp`` (``X | None``, bool, int, float, str,
    ``tuple[str, ...]`` or a settings dataclass) and converted (lists to tuples, objects to dataclasses)."""
    args = typing.get_args(tp)
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        if value is None and type(None) in args:
            return None
        (tp,) = [a for a in args if a is not type(None)]
        args = typing.get_args(tp)
    ok = {bool: isinstance(value, bool),
          int: isinstance(value, int) and not isinstance(value, bool),
          float: isinstance(value, (int, float)) and not isinstance(value, bool),
          str: isinstance(value, str)}.get(tp)
    if ok is not None:
        if not ok:
            raise ValueError(f"{path}: {where} is {value!r}: expected {_expected(tp)}")
        return float(value) if tp is float else value
    if typing.get_origin(tp) is tuple:
        if not isinstance(value, list) or not all(isinstance(v, args[0]) for v in value):
            raise ValueError(f"{path}: {where} is {value!r}: expected {_expected(tp)}")
        return tuple(value)
    return _section(tp, value, where, path)


def _section(cls: type, d, where: str, path: Path, required: tuple[str, ...] | None = None):
    """The ``cls`` (a settings dataclass) that object ``d`` describes; ``required``: the keys it must
    hold (default: the fields without a default)."""
    if not isinstance(d, dict):
        raise ValueError(f"{path}: {where} is {d!r}: expected an object")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in d:
        if key not in fields:
            raise ValueError(f"{path}: unknown key {where}.{key} (known: {', '.join(sorted(fields))})")
    if required is None:
        required = tuple(n for n, f in fields.items()
                         if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
    missing = [k for k in required if k not in d]
    if missing:
        raise ValueError(f"{path}: {where} has no {', '.join(missing)} (required: {', '.join(required)})")
    hints = typing.get_type_hints(cls)
    return cls(**{k: _value(v, hints[k], f"{where}.{k}", path) for k, v in d.items()})


def parse_manifest(d, deck: str, folder: Path) -> Manifest:
    """The :class:`Manifest` that the JSON object ``d`` (``folder/manifest.json``) describes; ValueError
    naming the key for anything it does not know, a wrong type or a missing required key."""
    path = folder / "manifest.json"
    if not isinstance(d, dict):
        raise ValueError(f"{path}: expected a JSON object")
    for key in d:
        if key != "deck" and key not in SECTIONS:
            raise ValueError(f"{path}: unknown key {key} (known: {', '.join(sorted(['deck', *SECTIONS]))})")
    if d.get("deck") != deck:
        raise ValueError(f"{path} is for deck {d.get('deck')!r}, not {deck!r}")
    if "detector" not in d:
        raise ValueError(f"{path} names no detector")
    sections = {k: _section(SECTIONS[k], v, k, path, INDEX_REQUIRED if k == "index" else None)
                for k, v in d.items() if k != "deck"}
    turn_below = sections.get("recognition", RecognitionSettings()).turn_below
    if turn_below is not None and not 0.0 < turn_below <= 1.0:
        raise ValueError(f"{path}: recognition.turn_below is {turn_below!r}: expected a probability in (0, 1] or null")
    return Manifest(deck, folder, **sections)


def load_manifest(deck: str, models: str | Path | None = None) -> Manifest:
    """The manifest of ``deck`` in ``models/<deck>/`` (default :func:`models_dir`); ValueError when
    missing or not a manifest this module reads (:func:`parse_manifest`)."""
    if deck not in DECKS:
        raise ValueError(f"unknown deck {deck!r}; expected one of {', '.join(DECKS)}")
    root = (Path(models) if models else models_dir()) / deck
    path = root / "manifest.json"
    if not path.is_file():
        raise ValueError(f"no {deck} models at {root} (missing manifest.json); set FUDABA_MODELS to the models folder")
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON ({e})") from None
    return parse_manifest(d, deck, root)


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
