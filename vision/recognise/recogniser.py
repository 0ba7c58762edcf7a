"""Recognition: a top-down frame of a table → every card in it, named, outlined, with a confidence.

Pipeline per batch of frames: the oriented detector finds cards and backs, each card's rotated
rectangle its outline (:mod:`.detector`); each outline is cropped square and classified
(:mod:`.classifier`), blended with the user's deck profile when one is loaded (:mod:`.profile`).
The classifier decides face up or down (its classes include the back); the detector's own
face-up/back guess is kept as ``detector_face_up``. A face-up card found twice is kept once
(:func:`.duplicates.one_of_each`) and, with the manifest's ``recognition.one_deck``, a frame's
face-up cards are named as one deck (:mod:`.one_deck`).

With the manifest's ``calibration.both_ways`` each crop is also classified turned 180° and the two
views averaged; ``recognition.turn_below`` limits that to the crops whose one view is below that
probability (the same cards named, about a quarter less time: docs/decisions.md), except with a
deck profile, which was made with every crop turned.

A card is ``unsure`` when its calibrated confidence is below the manifest's ``unsure_below``
(chosen on held-out rendered scenes so that the sure answers are right at least 99.5 % of the
time). Plain cards are named by month (``03-plain``): they are interchangeable in play, and
``card_ids`` lists the ids the name stands for.

Playing cards whose manifest has corner-index models are also read by their printed indices
(:mod:`vision.recognise.index_reader`): that names a card even where the whole-card classifier fails
(a deck unlike the training art) and finds cards of which only a corner shows (a fanned hand).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import numpy as np

from scorer.table import BACK_IDS, sight_name
from vision.cardcrop import upright
from vision.recognise.backends import DEFAULT_ORDER, load_network
from vision.recognise.cards import RecognisedCard
from vision.recognise.classifier import CardClassifier
from vision.recognise.detector import CardDetector, Detection
from vision.recognise.duplicates import one_of_each, one_outline_each
from vision.recognise.index_reader import INDEX_FRACTION, IndexReader, merge, needs_reading
from vision.recognise.index_tiles import tile_origins, tiles_for
from vision.recognise.manifest import IndexParams, Manifest, file_sha256, for_tiles, load_manifest
from vision.recognise.one_deck import assigned, capacities
from vision.recognise.profile import DeckProfile, blend, load_profile, lowered

CARD_ASPECT = {"hanafuda": 54.0 / 87.0, "playing": 63.0 / 88.0}
"""Short side over long side of each deck's cards."""


def card_ids_of(deck: str) -> dict[str, tuple[str, ...]]:
    """Recognition class name → the card ids it stands for (the back: none)."""
    from scorer.cards import BLANK, hanafuda_ids, playing_ids

    ids = hanafuda_ids() + (BLANK,) if deck == "hanafuda" else playing_ids(jokers=True)
    out: dict[str, tuple[str, ...]] = {}
    for cid in ids:
        name = sight_name(cid)
        out[name] = out.get(name, ()) + (cid,)
    return out


def _outline(detection: Detection) -> np.ndarray:
    """A detection's rotated rectangle, portrait-first; ValueError for an axis-aligned box."""
    if detection.polygon is None:
        raise ValueError("a card detection needs its rotated rectangle (an oriented detector's)")
    return upright(np.asarray(detection.polygon, np.float64))


class Recogniser:
    """Recognises one deck's cards; load once, call per frame or per batch of frames."""

    def __init__(self, deck: str, models: str | Path | None = None, backends: Sequence[str] | None = None,
                 profile: DeckProfile | str | Path | None = None, detector_size: int | None = None,
                 indices: bool = True) -> None:
        self.manifest: Manifest = load_manifest(deck, models)
        m = self.manifest
        self.deck = deck
        if not m.detector.oriented:
            raise ValueError(f"{m.folder / 'manifest.json'}: the card detector must give rotated rectangles "
                             "(\"oriented\": true; train obb)")
        self.detector = CardDetector.from_manifest(load_network(m.detector_stem, backends, "detector"), m.detector,
                                                   detector_size)
        cls = m.classifier
        if cls is None:
            raise ValueError(f"{m.folder}/manifest.json names no classifier: ship one with `train ship`")
        self.classifier = CardClassifier(load_network(m.classifier_stem, backends), cls.names, cls.side,
                                         m.calibration.temperature, m.calibration.both_ways, m.recognition.turn_below)
        self._shipped_classifier = self.classifier
        self._backends = tuple(backends) if backends else None
        self.classifier_file: Path = m.classifier_stem.with_suffix(".onnx")
        """The ONNX file of the classifier in use (the shipped one, or one fine-tuned on a deck)."""
        self.classifier_tuned = False
        """Whether the classifier in use is one fine-tuned on a deck (:meth:`use_classifier`)."""
        self.unsure_below = m.calibration.unsure_below
        self.profile_weight = m.profile.weight
        self.profile_tau = m.profile.tau
        self.aspect = CARD_ASPECT[deck]
        self._ids = card_ids_of(deck)
        self._back = BACK_IDS[deck]
        if self._back not in self.classifier.names:
            raise ValueError(f"the {deck} classifier has no {self._back!r} class")
        self.index_reader: IndexReader | None = None
        self.index_params: IndexParams = m.index
        if indices and m.index_detector is not None and m.index_classifier is not None:
            idet, icls = m.index_detector, m.index_classifier
            factors = [CardClassifier(load_network(m.folder / e.stem, backends), e.names, e.side)
                       for e in (m.index_rank_classifier, m.index_suit_classifier) if e is not None]
            if len(factors) == 1:
                raise ValueError(f"{m.folder / 'manifest.json'}: index_rank_classifier and index_suit_classifier "
                                 "come as a pair (train ship --index --part rank|suit)")
            self.index_reader = IndexReader(
                CardDetector.from_manifest(load_network(m.folder / idet.stem, backends, "detector"), idet),
                CardClassifier(load_network(m.folder / icls.stem, backends), icls.names, icls.side),
                self.index_params.turns, *(factors or (None, None)), self.index_params.factor_weight)
        self.one_deck = m.recognition.one_deck
        """Whether the face-up cards of a frame are named together, no name given to more cards than
        one deck holds (:mod:`~vision.recognise.one_deck`; without an index reader)."""
        self._capacity = capacities(self._ids)
        self.profile: DeckProfile | None = None
        if profile is not None:
            self.use_profile(profile)

    @property
    def backend(self) -> str:
        """The backend running the networks (``onnxruntime``, ``openvino`` or ``torch``)."""
        return self.classifier.network.backend

    def classifier_sha256(self) -> str:
        """SHA-256 of the classifier in use (a profile's embeddings belong to it)."""
        if self.classifier_tuned:
            return file_sha256(self.classifier_file)
        return self.manifest.classifier.sha256 or file_sha256(self.classifier_file)

    def use_classifier(self, onnx: str | Path | None) -> None:
        """Classify with this ONNX classifier (one fine-tuned on a deck: same classes and input side)
        from now on; None: the shipped one again."""
        if onnx is None:
            self.classifier = self._shipped_classifier
            self.classifier_file = self.manifest.classifier_stem.with_suffix(".onnx")
            self.classifier_tuned = False
            return
        onnx = Path(onnx)
        # only an ONNX file is kept: the asked backends that read it, ONNX Runtime last of all
        order = tuple(dict.fromkeys([b for b in self._backends or DEFAULT_ORDER if b != "torch"] + ["onnxruntime"]))
        network = load_network(onnx.with_suffix(""), order)
        base = self._shipped_classifier
        self.classifier = CardClassifier(network, base.names, base.side, base.temperature, base.both_ways,
                                         base.turn_below)
        self.classifier_file = onnx
        self.classifier_tuned = True

    def use_profile(self, profile: DeckProfile | str | Path | None) -> None:
        """Recognise with this deck profile from now on (None: without one); a profile with its own
        fine-tuned classifier brings that classifier in."""
        if profile is not None and not isinstance(profile, DeckProfile):
            profile = load_profile(profile)
        before = (self.classifier, self.classifier_file, self.classifier_tuned)
        self.use_classifier(profile.classifier if profile is not None else None)
        if profile is not None:
            problem = None
            if profile.deck != self.deck:
                problem = f"profile is for {profile.deck}, not {self.deck}"
            elif profile.classifier_sha256 != self.classifier_sha256():
                problem = "profile was made with another classifier; enrol the deck again"
            elif tuple(profile.names) != self.classifier.names:
                problem = "profile's class names differ from the classifier's"
            if problem:
                self.classifier, self.classifier_file, self.classifier_tuned = before
                raise ValueError(problem)
        self.profile = profile

    @property
    def card_unsure_below(self) -> float:
        """Confidence under which a whole-card answer is unsure: the profile's own threshold
        (set at enrolment) when a profile with one is loaded, else the manifest's calibration."""
        if self.profile is not None and "unsure_below" in self.profile.meta:
            return float(self.profile.meta["unsure_below"])
        return self.unsure_below

    def outlines(self, frame: np.ndarray, detections: Sequence[Detection]) -> list[np.ndarray]:
        """Outlines of ``detections`` in ``frame``, portrait-first (see :meth:`named_outlines`)."""
        return self.named_outlines(frame, detections)[0]

    def named_outlines(self, frame: np.ndarray, detections: Sequence[Detection],
                       score: Callable[[Sequence[np.ndarray]], tuple[np.ndarray, np.ndarray]] | None = None,
                       ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        """(outline, probabilities, embeddings) of each of ``detections`` in ``frame``: its rotated
        rectangle, portrait-first (:func:`vision.cardcrop.upright`), and what ``score`` makes of its
        crop. ``score`` maps crops to (probabilities, embeddings); default :meth:`probabilities`
        (calibrated, the profile blended in)."""
        return self._outlined([frame], [detections], score)[0]

    def _outlined(self, frames: Sequence[np.ndarray], detections: Sequence[Sequence[Detection]], score=None,
                  ) -> list[tuple[list[np.ndarray], np.ndarray, np.ndarray]]:
        """:meth:`named_outlines` of every frame, all frames' crops classified together."""
        score = score or self.probabilities
        outlines = [[_outline(d) for d in ds] for ds in detections]
        crops = [c for frame, polys in zip(frames, outlines, strict=True) for c in self.classifier.crops(frame, polys)]
        if not crops:
            n = len(self.classifier.names)
            return [([], np.zeros((0, n)), np.zeros((0, 0), np.float32)) for _ in frames]
        probs, embs = score(crops)
        out, k = [], 0
        for polys in outlines:
            out.append((polys, probs[k:k + len(polys)], embs[k:k + len(polys)]))
            k += len(polys)
        return out

    def probabilities(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(calibrated probabilities, embeddings) of crops, with the profile blended in if loaded (and
        the classes its deck does not have lowered, :func:`vision.recognise.profile.lowered`).
        With a profile every crop is classified both ways up (``turn_below`` set aside), as the
        profile's references and its ``unsure_below`` were made (:func:`vision.recognise.enrol.enrol`)."""
        with self.classifier.turning_every_crop() if self.profile is not None else nullcontext():
            scores = self.classifier.classify(crops)
        probs = scores.probs
        if self.profile is not None and len(crops):
            sims, temperature = self.profile.class_scores(scores.embeddings)
            probs = blend(probs, sims, self.profile.enrolled, self.profile_weight, temperature or self.profile_tau)
            probs = lowered(probs, self.profile.absent)
        return probs, scores.embeddings

    def recognise(self, frame: np.ndarray) -> list[RecognisedCard]:
        """The cards in one top-down BGR frame."""
        return self.recognise_batch([frame])[0]

    def recognise_carefully(self, frame: np.ndarray) -> list[RecognisedCard]:
        """The cards in one BGR frame, each card's corner indices read at the frame's own resolution:
        for a crop of the table read again (a hand laid down, a contradicted zone), where a second
        or two is fine. The whole cards as :meth:`recognise` finds them; with a corner-index reader,
        the frame is read in detector-sized tiles over every card found
        (:func:`vision.recognise.index_tiles.tile_origins`; the tile settings of ``index``), not only
        those in doubt and whatever the manifest's ``tiles``. Without a reader, or a frame smaller
        than one tile, as :meth:`recognise`."""
        if self.index_reader is None:
            return self.recognise(frame)
        tile = self.index_reader.detector.size
        size = (frame.shape[1], frame.shape[0])
        if min(size) < tile:
            return self.recognise(frame)
        cards, _probs = self.whole_cards([frame])
        boxes = [tuple(float(v) for v in c.box) for c in cards[0]]
        if not boxes:
            return self.recognise(frame)
        params = self.index_params if self.profile is None else replace(self.index_params, unread_min=0.0)
        tparams = for_tiles(params)
        readings = self.index_reader.read_tiled(frame, tile_origins(size, boxes, tile), tparams.factor_weight)
        return one_outline_each(merge(cards[0], readings, self.index_reader.names, tparams, 1.0, trust_sure=True))

    def recognise_batch(self, frames: Sequence[np.ndarray]) -> list[list[RecognisedCard]]:
        """The cards in each of ``frames`` (BGR uint8, all the same size)."""
        cards, probs = self.whole_cards(frames)
        if self.index_reader is None:
            return [one_outline_each(self._kept(c, p)) for c, p in zip(cards, probs, strict=True)]
        scale = self.index_reader.scale(frames[0]) if frames else 0.0
        # with the user's own deck enrolled, the whole-card names need no index to confirm them
        params = self.index_params if self.profile is None else replace(self.index_params, unread_min=0.0)
        tile = self.index_reader.detector.size
        size = (frames[0].shape[1], frames[0].shape[0]) if frames else (0, 0)
        tiled = {i: origins for i, c in enumerate(cards)
                 if self.index_params.tiles and (origins := tiles_for(size, tile, c, params.close_px, INDEX_FRACTION))}
        wanted = [i for i, c in enumerate(cards) if i not in tiled and needs_reading(c, scale, params)]
        read = dict(zip(wanted, self.index_reader.read([frames[i] for i in wanted]) if wanted else [], strict=True))
        tparams = for_tiles(params)
        read.update({i: self.index_reader.read_tiled(frames[i], origins, tparams.factor_weight)
                     for i, origins in tiled.items()})
        readings = [read.get(i, []) for i in range(len(frames))]
        # a tiled frame's readings are at its own resolution: the index detector's input scale is 1 there
        return [one_outline_each(merge(c, r, self.index_reader.names, tparams, 1.0, trust_sure=True) if i in tiled
                                 else merge(c, r, self.index_reader.names, params, scale))
                for i, (c, r) in enumerate(zip(cards, readings, strict=True))]

    def _kept(self, cards: list[RecognisedCard], probs: np.ndarray) -> list[RecognisedCard]:
        """One frame's whole cards with a card found twice kept once (:func:`one_of_each`) and the
        face-up cards named as one deck (``one_deck``)."""
        kept = one_of_each(cards)
        if not self.one_deck:
            return kept
        row = {id(c): i for i, c in enumerate(cards)}
        up = [c for c in kept if c.face_up]
        if not up:
            return kept
        p = probs[[row[id(c)] for c in up]]
        names = assigned(p, self.classifier.names, self._capacity)
        renamed = {id(c): self._renamed(c, p[k], int(names[k])) for k, c in enumerate(up)}
        return [renamed.get(id(c), c) for c in kept]

    def _renamed(self, card: RecognisedCard, p: np.ndarray, k: int) -> RecognisedCard:
        """``card`` named class ``k`` of its probabilities ``p`` (itself when that is its name already)."""
        return card if self.classifier.names[k] == card.label else replace(card, **self._naming(p, k))

    def _naming(self, p: np.ndarray, k: int) -> dict:
        """The fields of a card named class ``k`` of its probabilities ``p``: label, card ids, face up,
        confidence ``p[k]``, unsure below the threshold, and the next most likely labels (up to 3)."""
        label = self.classifier.names[k]
        conf = float(p[k])
        others = [int(i) for i in np.argsort(-p) if int(i) != k][:3]
        return {"label": label, "card_ids": self._ids.get(label, ()), "face_up": label != self._back,
                "confidence": conf, "unsure": conf < self.card_unsure_below,
                "alternatives": tuple((self.classifier.names[i], float(p[i])) for i in others)}

    def whole_cards(self, frames: Sequence[np.ndarray]) -> tuple[list[list[RecognisedCard]], list[np.ndarray]]:
        """The cards each frame's whole-card detector and classifier find, and their probabilities."""
        return self.named_detections(frames, self.detector.detect(frames))

    def named_detections(self, frames: Sequence[np.ndarray], detections: Sequence[Sequence[Detection]],
                         ) -> tuple[list[list[RecognisedCard]], list[np.ndarray]]:
        """The cards the whole-card classifier names at each frame's ``detections``, and their probabilities."""
        out, per_frame = [], []
        for ds, (polys, probs, _) in zip(detections, self._outlined(frames, detections), strict=True):
            out.append([self._card(d, p, probs[i]) for i, (d, p) in enumerate(zip(ds, polys, strict=True))])
            per_frame.append(probs)
        return out, per_frame

    def _card(self, d: Detection, poly: np.ndarray, p: np.ndarray) -> RecognisedCard:
        """The card at ``d``, outlined by ``poly``, named by its most likely class."""
        return RecognisedCard(polygon=tuple((float(x), float(y)) for x, y in poly), box=d.box,
                              detection_score=d.score, detector_face_up=d.face_up,
                              **self._naming(p, int(np.argmax(p))))
