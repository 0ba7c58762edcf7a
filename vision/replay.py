"""Following a game from frames: ``fudaba replay`` (a video, offline) and ``fudaba track`` (live).

One loop serves both (ARCHITECTURE.md "Data flow"): capture (:mod:`vision.capture`) → table
calibration (:mod:`vision.calibrate`) → stabiliser (:mod:`vision.stabilise`) → tracker
(:mod:`scorer.tracker`) → record (:class:`scorer.record.RecordWriter`, one line on disk per event).
Times are the source's seconds (``Frame.t``).

Record lines: every event the tracker commits is appended with source ``camera`` and evidence
``{"t": seconds, "cost": c}``, where ``c`` is the cost (natural-log units, lower is better) of the
tracker's leading explanation right after the commit: how well the table that confirmed the event
fits the game (omitted when the tracker gives none). Events committed by answering a question carry source ``answer`` (from the answers
file or the terminal) or ``guess`` (nobody answered: the most likely candidate, number 0) and
evidence ``{"t", "cost", "question", "choice", "candidates"}`` (the candidates in words).

Questions never block a replay. The answers file (``--answers``) holds one JSON object per line,
``{"choice": i}`` or ``{"t": seconds, "choice": i}`` (``i`` counts the question's candidates from 0;
blank lines and lines starting with ``#`` are skipped). Its lines answer the questions in the order
they come: the next unused line answers the next question, except that a line with ``t`` waits
for the first question asked at or after ``t`` seconds (questions before it are guessed). A choice
beyond a question's candidates is guessed instead (said in the summary's ``bad_answers``).

Bad input raises :class:`ReplayError` (a ``ValueError``; the command exits with status 2): a
source that cannot be opened, an unknown game or ruleset, a player count the game does not seat,
a recognition deck unlike the game's, a record file that exists (unless ``force``), an unreadable
answers file, and no calibration within ``markers_within_s`` seconds of the source's start.

Flight recorder (``flight_dir``, ``--flight DIR``; :mod:`vision.flight`): every frame is kept for
the last :data:`FLIGHT_SECONDS` seconds, and a clip is saved to ``flight_dir`` when the tracker goes
out of sync (kind ``desync``), asks a question (``question``; a question answered at once, from
the answers file or guessed, is one clip holding its answer), when a typed answer settles a
question later (``correction``) and, with ``flight_commits``, at every commit (``commit``). Each
clip's evidence: ``source``, ``header`` (the record header: game, ruleset, options, players),
``state``, ``table`` (the last table seen, ``TableState.to_json``), ``expected`` (the table the
committed game implies), ``best`` (the leading explanation in words) and ``best_cost``,
``hypotheses`` (up to four: ``events`` in words, ``cost``), ``committed`` (every event so far,
as in the summary), plus ``desync`` (``text``, ``differences``, ``since``), ``question``
(``text``, ``kind``, ``since``, ``candidates``; with ``choice`` and ``source`` once answered) or
``events`` (those committed).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from scorer.events import Event
from scorer.games import game as game_spec
from scorer.match import Match
from scorer.record import Header, RecordWriter
from scorer.tracker import Tracker, TrackerOptions
from vision.zones import ZoneLayout, zone_layout

MARKERS_WITHIN_S = 10.0
"""Seconds from the source's start within which the table's markers must have been found."""
PROGRESS_EVERY_S = 10.0
"""A replay reports its progress every this many seconds of video."""
CALIBRATE_EVERY = 3
"""Markers are searched on every this-many-th frame (the calibration is held between)."""
STAGES = ("read", "flight", "calibrate", "stabilise", "track")
"""The stages of the loop whose time a summary gives (``stage_ms_per_frame``; ``flight``: keeping
frames and saving clips for the flight recorder, 0 without one)."""
FLIGHT_SECONDS = 8.0
"""Seconds of frames the flight recorder keeps before each clip it saves."""


class ReplayError(ValueError):
    """Bad input for a replay or a live track; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Answer:
    """One line of an answers file."""

    choice: int
    """Index of the chosen candidate (from 0)."""
    t: float | None = None
    """Answer only a question asked at or after this time (s); None: the next question."""


def load_answers(path: str | Path) -> list[Answer]:
    """The answers in ``path`` (module docstring); ReplayError naming the bad line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"cannot read the answers file {path}: {exc}") from None
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{path}:{n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or isinstance(obj.get("choice"), bool) or not isinstance(obj.get("choice"), int) \
                or obj["choice"] < 0:
            raise ReplayError(f'{path}:{n}: expected {{"choice": i}} or {{"t": seconds, "choice": i}} with i >= 0')
        t = obj.get("t")
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float))):
            raise ReplayError(f"{path}:{n}: 't' must be a number of seconds")
        out.append(Answer(int(obj["choice"]), None if t is None else float(t)))
    return out


@dataclass
class _Answers:
    """The unused answers, and typed answers from a terminal."""

    pending: list[Answer]
    typed: queue.Queue[int] | None = None

    def for_question(self, at: float) -> int | None:
        for k, a in enumerate(self.pending):
            if a.t is None or a.t <= at:
                del self.pending[k]
                return a.choice
            break
        return None


@dataclass(frozen=True, slots=True)
class Setup:
    """A game to follow, resolved from the command's options."""

    game: str
    ruleset: str
    options: Any
    players: int
    deck: str
    """Recognition deck family: ``hanafuda`` or ``playing``."""
    layout: ZoneLayout

    def match(self) -> Match:
        """A fresh match of this game."""
        spec = game_spec(self.game)
        return spec.match([f"Player {i + 1}" for i in range(self.players)], self.options)


FAMILIES = ("hanafuda", "playing")
"""Recognition decks (the shipped models' families)."""


def _family(deck: str) -> str:
    """The recognition deck of a scorer deck name or deck option value (``hanafuda-1x`` → hanafuda)."""
    return "playing" if deck.startswith("playing") else "hanafuda"


def resolve(game: str, players: int | None = None, ruleset: str | None = None,
            options: Mapping[str, str] | None = None, deck: str | None = None) -> Setup:
    """The game, ruleset, options, player count, recognition deck and zone layout to follow;
    ReplayError for anything unknown or inconsistent.

    ``deck``: a recognition deck (``hanafuda``, ``playing``) or, for a game with a deck option
    (Bagaji), one of its values (``hanafuda-1x``, ``playing-2x``, …), which sets that option. A
    recognition deck unlike the game's default picks the first deck option value of that family
    (``--game bagaji --deck hanafuda``: ``deck=hanafuda-1x``) unless ``options`` name a deck."""
    overrides = dict(options or {})
    try:
        spec = game_spec(game)
        name = ruleset or spec.default_ruleset
        base = spec.options(name)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    choices = _deck_choices(base)
    if deck is not None and deck not in FAMILIES:
        if deck not in choices:
            known = ", ".join(FAMILIES + choices)
            raise ReplayError(f"unknown deck {deck!r} for {spec.title}; decks: {known}")
        if overrides.get("deck", deck) != deck:
            raise ReplayError(f"--deck {deck} and --option deck={overrides['deck']} disagree")
        overrides["deck"] = deck
        deck = _family(deck)
    elif deck is not None and choices and "deck" not in overrides and _family(str(base.deck)) != deck:
        overrides["deck"] = next((c for c in choices if _family(c) == deck), str(base.deck))
    try:
        opts = spec.options(name, overrides)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    n = players or spec.min_players
    if not spec.min_players <= n <= spec.max_players:
        raise ReplayError(f"{spec.title} seats {spec.seats} players, not {n}")
    try:
        match = spec.match([f"Player {i + 1}" for i in range(n)], opts)
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    family = _family(match.deck)
    if deck is not None and deck != family:
        raise ReplayError(f"this {spec.title} match uses the {match.deck} deck, not {deck} cards"
                          + (" (choose the deck with --option deck=…)" if spec.name == "bagaji" else ""))
    return Setup(spec.name, name, opts, n, family, zone_layout(spec.name, n, family))


def _deck_choices(options: Any) -> tuple[str, ...]:
    """The values of the options' ``deck`` option (none when the game has no deck choice)."""
    from dataclasses import fields

    for f in fields(options):
        if f.name == "deck":
            return tuple(str(c) for c in f.metadata.get("choices", ()))
    return ()


@dataclass
class _Run:
    """Counters of one run."""

    events: int = 0
    questions: int = 0
    guesses: int = 0
    answered: int = 0
    bad_answers: int = 0
    desyncs: int = 0
    retracted: int = 0
    """Committed events taken back by repairs."""
    frames: int = 0
    first_t: float | None = None
    last_t: float = 0.0
    committed: list[dict[str, Any]] = field(default_factory=list)
    question_kinds: dict[str, int] = field(default_factory=dict)
    """Questions by :attr:`scorer.tracker.Question.kind`."""
    stage_s: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))

    def timed(self, stage: str, started: float) -> float:
        """Add the time since ``started`` (``time.perf_counter``) to ``stage``; return the time now."""
        now = time.perf_counter()
        self.stage_s[stage] += now - started
        return now


Say = Callable[[str], None]


def follow(source: Any, setup: Setup, *, recogniser: Any = None, profile: str | None = None,
           out: str | Path | None = None, force: bool = False, answers: list[Answer] | None = None,
           typed: queue.Queue[int] | None = None, say: Say | None = None, progress: Say | None = None,
           markers_within_s: float = MARKERS_WITHIN_S, tracker_options: TrackerOptions | None = None,
           stabiliser_options: Mapping[str, Any] | None = None, name: str = "",
           flight_dir: str | Path | None = None, flight_commits: bool = False) -> dict[str, Any]:
    """Follow the game in ``source`` (a :class:`vision.capture.Source`, closed on return) and
    return a summary (see :func:`replay_video`). ``say`` gets a line for every event, question,
    answer and desync as it happens; ``progress`` a line every :data:`PROGRESS_EVERY_S` seconds of
    source time; ``typed`` delivers choices typed in a terminal (numbers from 1, as shown).
    Ctrl-C ends the run cleanly: the summary says ``interrupted``. ``flight_dir``: save flight
    recorder clips there (module docstring; ``flight_commits``: one at every commit too)."""
    from vision.calibrate import TableCalibrator
    from vision.stabilise import Stabiliser

    if recogniser is None:
        from vision.recognise.recogniser import Recogniser

        try:
            recogniser = Recogniser(setup.deck, profile=profile)
        except (OSError, ValueError) as exc:
            raise ReplayError(f"cannot load the {setup.deck} recogniser: {exc}") from None
    match = setup.match()
    # claims and settlements wait for a player's word only where a player can answer
    tracker = Tracker(match, tracker_options or TrackerOptions(confirm_stones=typed is not None))
    calibrator = TableCalibrator(setup.layout.area_mm, every=CALIBRATE_EVERY)
    stab = Stabiliser(setup.layout, recogniser, **dict(stabiliser_options or {}))
    writer = None
    if out is not None:
        if force and os.path.exists(out):
            os.remove(out)
        try:
            writer = RecordWriter(out, Header.for_match(match, setup.ruleset))
        except (OSError, ValueError) as exc:
            source.close()
            raise ReplayError(str(exc) + ("" if force else " (or pass --force to replace it)")) from None
    say = say or (lambda _line: None)
    run = _Run()
    book = _Answers(list(answers or []), typed)
    typed_held: list[int] = []  # a typed number waiting for a question to open
    calibrated = False
    state = "synced"
    started = time.perf_counter()
    next_progress = PROGRESS_EVERY_S
    interrupted = False
    recorder = None
    if flight_dir is not None:
        from vision.flight import FlightRecorder

        recorder = FlightRecorder(FLIGHT_SECONDS, save_commits=flight_commits)
    header = Header.for_match(match, setup.ruleset).to_json()
    last_best = None  # the leading explanation of the last update that had one (a desync has none)

    def flight_evidence(best: Any, now: str) -> dict[str, Any]:
        """The tracker's evidence now (its state ``now``), for a flight recorder clip (module docstring)."""
        seen = tracker.last_table
        return {"source": name, "header": header, "state": now,
                "table": seen.to_json() if seen is not None else None, "expected": tracker.expected().to_json(),
                "best": best.describe() if best is not None else None,
                "best_cost": best.cost if best is not None else None,
                "hypotheses": [{"events": h.describe(), "cost": h.cost} for h in tracker.hypotheses[:4]],
                "committed": list(run.committed)}

    def fly(kind: str, t: float, evidence: dict[str, Any]) -> None:
        """Save a flight recorder clip of ``kind`` (when there is a recorder that wants it)."""
        if recorder is None or not recorder.wants(kind):
            return
        clock = time.perf_counter()
        path = recorder.save(flight_dir, kind, t, evidence)
        run.timed("flight", clock)
        say(f"{t:8.2f} s  flight recorder: {path}")

    def question_json(q: Any) -> dict[str, Any]:
        return {"text": q.text, "kind": q.kind, "since": q.since,
                "candidates": [{"events": c.describe(), "cost": c.cost} for c in q.candidates]}

    def write(events: tuple[Event, ...], t: float, source_kind: str, cost: float | None,
              extra: Mapping[str, Any] | None = None) -> None:
        evidence: dict[str, Any] = {"t": round(t, 3)}
        if cost is not None and math.isfinite(cost):
            evidence["cost"] = round(cost, 3)
        evidence.update(extra or {})
        for ev in events:
            run.events += 1
            run.committed.append({"t": round(t, 3), "source": source_kind, "event": ev.to_json()})
            if writer is not None:
                writer.append(ev, source=source_kind, evidence=evidence)
            say(f"{t:8.2f} s  {ev.describe()}" + ("" if source_kind == "camera" else f"  [{source_kind}]"))

    def retract(count: int, t: float, source_kind: str, why: str) -> None:
        """Take back the last ``count`` committed events in the record (a repair)."""
        if not count:
            return
        del run.committed[len(run.committed) - count:]
        run.events -= count
        run.retracted += count
        if writer is not None:
            writer.append({"type": "undo", "count": count}, source=source_kind, evidence={"t": round(t, 3), "repair": why})
        say(f"{t:8.2f} s  took back the last {count} events: {why}")

    def answer(t: float) -> None:
        q = tracker.question
        assert q is not None
        evidence = flight_evidence(last_best, "question") if recorder is not None else {}
        run.questions += 1
        run.question_kinds[q.kind] = run.question_kinds.get(q.kind, 0) + 1
        say(f"{t:8.2f} s  question: {q.text}")
        choice = book.for_question(t)
        kind = "answer"
        if choice is not None and choice >= len(q.candidates):
            run.bad_answers += 1
            choice = None
        if choice is None:
            choice, kind = 0, "guess"
            run.guesses += 1
        else:
            run.answered += 1
        extra = {"question": q.text, "choice": choice, "candidates": [c.describe() for c in q.candidates]}
        retract(q.candidates[choice].retract, t, kind, q.text)
        chosen = tracker.choose(choice)
        write(chosen, t, kind, q.candidates[choice].cost, extra)
        if recorder is not None:
            fly("question", t, {**evidence, "question": {**question_json(q), "choice": choice, "source": kind},
                                "events": [ev.to_json() for ev in chosen]})

    def handle(upd: Any, t: float, source_kind: str = "camera") -> None:
        """Write, say and record what one tracker update did."""
        nonlocal last_best, state
        retract(upd.retracted, t, "camera", "a card committed earlier was misread")
        if upd.committed:
            write(upd.committed, t, source_kind, upd.best.cost if upd.best is not None else None)
            if recorder is not None and recorder.wants("commit"):
                fly("commit", t, {**flight_evidence(upd.best, upd.state), "events": [ev.to_json() for ev in upd.committed]})
        if upd.best is not None:
            last_best = upd.best
        if upd.state == "question" and tracker.question is not None:
            if book.typed is None:
                answer(t)
            elif state != "question":
                q = tracker.question
                say(f"{t:8.2f} s  question: {q.text}  (type its number and Enter)")
                if recorder is not None:
                    fly("question", t, {**flight_evidence(upd.best, upd.state), "question": question_json(q)})
        if upd.state == "out-of-sync" and state != "out-of-sync":
            run.desyncs += 1
            say(f"{t:8.2f} s  {upd.desync.text if upd.desync else 'out of sync'}")
            if recorder is not None:
                d = upd.desync
                fly("desync", t, {**flight_evidence(last_best, upd.state),
                                  "desync": {"text": d.text, "differences": list(d.differences), "since": d.since}
                                  if d is not None else None})
        elif state == "out-of-sync" and upd.state != "out-of-sync":
            say(f"{t:8.2f} s  back in sync")
        state = upd.state

    try:
        while True:
            clock = time.perf_counter()
            frame = source.read()
            clock = run.timed("read", clock)
            if frame is None:
                break
            t = frame.t
            if run.first_t is None:
                run.first_t = t
            run.frames += 1
            run.last_t = t
            if recorder is not None:
                recorder.push(frame.image, t)
                clock = run.timed("flight", clock)
            cal = calibrator.update(frame.image, t)
            clock = run.timed("calibrate", clock)
            if cal is not None:
                calibrated = True
            elif not calibrated and t - run.first_t >= markers_within_s:
                raise ReplayError(_no_markers(name, markers_within_s, setup))
            table = stab.push(frame.image, t, cal)
            clock = run.timed("stabilise", clock)
            if progress is not None and t - run.first_t >= next_progress:
                next_progress += PROGRESS_EVERY_S
                wall = time.perf_counter() - started
                progress(f"{name or 'source'}: {t - run.first_t:.0f} s in {wall:.0f} s "
                         f"({(t - run.first_t) / max(wall, 1e-9):.1f}x real time), {run.events} events, "
                         f"{run.questions} questions, {run.desyncs} desyncs")
            if book.typed is not None:
                if not typed_held and not book.typed.empty():
                    typed_held.append(book.typed.get_nowait())
                typed_choice = typed_held[0] if typed_held else None
                if typed_choice == ASSERT_TABLE:
                    typed_held.clear()
                    typed_choice = None
                    if tracker.last_table is None:
                        say(f"{t:8.2f} s  no settled table yet to take as right")
                    else:
                        say(f"{t:8.2f} s  the table is like this: looking for the events that lead to it")
                        handle(tracker.assert_table(tracker.last_table, t), t, "table")
                elif tracker.question is not None:
                    typed_held.clear()  # an answer (a number beyond the candidates is dropped)
                else:
                    typed_choice = None  # a number waits for the next question
                if typed_choice is not None and tracker.question is not None \
                        and 0 <= typed_choice < len(tracker.question.candidates):
                    run.questions += 1
                    run.answered += 1
                    q = tracker.question
                    run.question_kinds[q.kind] = run.question_kinds.get(q.kind, 0) + 1
                    evidence = flight_evidence(last_best, "question") if recorder is not None else {}
                    retract(q.candidates[typed_choice].retract, t, "answer", q.text)
                    chosen = tracker.choose(typed_choice)
                    write(chosen, t, "answer", q.candidates[typed_choice].cost,
                          {"question": q.text, "choice": typed_choice, "candidates": [c.describe() for c in q.candidates]})
                    if recorder is not None:
                        fly("correction", t, {**evidence, "question": {**question_json(q), "choice": typed_choice,
                                                                       "source": "answer"},
                                              "events": [ev.to_json() for ev in chosen]})
            if table is None:
                continue
            upd = tracker.update(table, t)
            clock = run.timed("track", clock)
            handle(upd, t)
        if not calibrated:
            raise ReplayError(_no_markers(name, markers_within_s, setup, ended=True))
        # the source ended: what leads is committed, what is open is asked now
        handle(tracker.finish(run.last_t), run.last_t)
        if tracker.question is not None:  # nobody can type an answer any more: the answers file, or a guess
            answer(run.last_t)
    except KeyboardInterrupt:
        interrupted = True
    except ReplayError:
        if writer is not None and not run.events:
            writer.close()
            os.remove(writer.path)  # nothing followed: leave no record behind
        raise
    finally:
        source.close()
        if writer is not None:
            writer.close()
    wall = time.perf_counter() - started
    seconds = run.last_t - (run.first_t or 0.0)
    st = stab.stats
    return {
        "source": name,
        "record": str(out) if out is not None else None,
        "game": setup.game, "ruleset": setup.ruleset, "players": setup.players,
        "events": run.events, "questions": run.questions, "guesses": run.guesses, "answered": run.answered,
        "bad_answers": run.bad_answers, "question_kinds": dict(run.question_kinds), "desyncs": run.desyncs, "retracted": run.retracted,
        "seconds": round(seconds, 3), "wall_seconds": round(wall, 3),
        "speed_x_real_time": round(seconds / wall, 2) if wall > 0 else None,
        "frames": run.frames, "states": st.states, "recognitions": st.readings, "pile_recognitions": st.pile_readings,
        "gate_ms_per_frame": round(st.gate_ms / max(1, st.frames), 2),
        "recognise_ms_per_reading": round(st.recognise_ms / max(1, st.readings + st.pile_readings), 1),
        "over": tracker.match.is_over, "results": [r.to_json() for r in tracker.match.results],
        "stage_ms_per_frame": {k: round(1000 * v / max(1, run.frames), 2) for k, v in run.stage_s.items()},
        "interrupted": interrupted, "committed": run.committed,
        "flight_clips": [str(p) for p in recorder.saved] if recorder is not None else [],
    }


def _no_markers(name: str, within: float, setup: Setup, ended: bool = False) -> str:
    where = f"in {name}" if ended else f"in the first {within:g} s of {name}"
    return (f"no calibration markers seen {where}: print the mat with `fudaba mat --game {setup.game} "
            f"--players {setup.players}` and keep its four corner markers (ArUco 0-3) in view")


def replay_video(path: str | Path, game: str, players: int | None = None, ruleset: str | None = None,
                 options: Mapping[str, str] | None = None, deck: str | None = None, profile: str | None = None,
                 answers: str | Path | list[Answer] | None = None, out: str | Path | None = None, *,
                 force: bool = False, fps: float | None = None, seconds: float | None = None, recogniser: Any = None,
                 progress: Say | None = None, say: Say | None = None, markers_within_s: float = MARKERS_WITHIN_S,
                 tracker_options: TrackerOptions | None = None,
                 stabiliser_options: Mapping[str, Any] | None = None, flight_dir: str | Path | None = None,
                 flight_commits: bool = False) -> dict[str, Any]:
    """Follow the game in the video (or image folder) at ``path``, every frame in order, and write
    its record to ``out`` (None: no record). ``answers``: an answers file or its parsed lines.
    ``recogniser``: one already loaded (for many replays), else one for the game's deck and
    ``profile``. ``seconds``: stop after this much video. Returns a summary: ``events``, ``questions`` (``guesses``, ``answered``,
    ``bad_answers``), ``desyncs``, ``seconds`` of video, ``wall_seconds``, ``speed_x_real_time``,
    ``frames``, ``states`` emitted by the stabiliser, ``recognitions`` (whole-view readings),
    ``pile_recognitions``, ``gate_ms_per_frame``, ``recognise_ms_per_reading``, ``over``,
    ``results`` (settled rounds), ``stage_ms_per_frame`` (time per frame in reading frames,
    calibration, the stabiliser and the tracker, ms), ``interrupted``, ``committed`` (``t``,
    ``source``, ``event``) and ``flight_clips`` (the clip folders saved to ``flight_dir``, the
    flight recorder's: module docstring; ``flight_commits``: a clip at every commit too)."""
    from vision.capture import CaptureError, open_source

    setup = resolve(game, players, ruleset, options, deck)
    parsed = load_answers(answers) if isinstance(answers, (str, Path)) else list(answers or [])
    if not Path(path).exists():
        raise ReplayError(f"no such video: {path}")
    try:
        source = open_source(str(path), fps=fps)
    except CaptureError as exc:
        raise ReplayError(str(exc)) from None
    if seconds is not None:
        source = _Limited(source, seconds)
    return follow(source, setup, recogniser=recogniser, profile=profile, out=out, force=force, answers=parsed,
                  say=say, progress=progress, markers_within_s=markers_within_s, tracker_options=tracker_options,
                  stabiliser_options=stabiliser_options, name=str(path), flight_dir=flight_dir,
                  flight_commits=flight_commits)


# --------------------------------------------------------------------------- command line
def _parser(command: str) -> argparse.ArgumentParser:
    if command == "replay":
        ap = argparse.ArgumentParser(prog="fudaba replay",
                                     description="Follow a game in a video file (every frame) and write its record.")
        ap.add_argument("source", metavar="VIDEO", help="video file or image folder of the table seen from above")
        ap.add_argument("-o", "--output", required=True, metavar="RECORD.jsonl", help="record to write")
    else:
        ap = argparse.ArgumentParser(prog="fudaba track",
                                     description="Follow a game live and print events, questions and desyncs.")
        ap.add_argument("source", metavar="SOURCE",
                        help="webcam number, stream URL (http://…, rtsp://…), video file or image folder (played at real time)")
        ap.add_argument("-o", "--output", metavar="RECORD.jsonl", help="also write the record here")
        ap.add_argument("--ask", action="store_true",
                        help="answer questions by typing a candidate's number and Enter (else: --answers, or the most "
                             "likely), confirm claims and settlements, and type t when the table is right and the game "
                             "is not (the tracker finds the events that lead to it)")
        ap.add_argument("--seconds", type=float, default=0.0, help="stop after this many seconds (0: Ctrl-C)")
    ap.add_argument("--game", required=True, help="hachi-hachi, bagaji or poka")
    ap.add_argument("--players", type=int, default=0, help="seated players (default: the fewest)")
    ap.add_argument("--ruleset", help="ruleset name (default: the seed's)")
    ap.add_argument("--option", action="append", default=[], metavar="K=V", help="override an option (repeatable)")
    ap.add_argument("--deck", metavar="D",
                    help="recognition deck, hanafuda or playing (default: the game's); for Bagaji also a deck "
                         "option value (playing-2x, hanafuda-1x, hanafuda-2x); --deck hanafuda means hanafuda-1x there")
    ap.add_argument("--profile", help="deck profile written by `fudaba enrol`")
    ap.add_argument("--answers", metavar="FILE", help='answers to questions, one JSON line each: {"choice": i} or {"t": s, "choice": i}')
    ap.add_argument("--force", action="store_true", help="replace the record file when it exists")
    ap.add_argument("--fps", type=float, help="frame rate for the timestamps of files and folders (default: the file's)")
    ap.add_argument("--markers-within", type=float, default=MARKERS_WITHIN_S, metavar="S",
                    help=f"give up when no markers are seen in the first S seconds (default {MARKERS_WITHIN_S:g})")
    ap.add_argument("--flight", metavar="DIR",
                    help=f"flight recorder: save the last {FLIGHT_SECONDS:g} s of frames and the tracker's evidence to DIR "
                         "at every desync, question and answer (a clip's frames/ folder replays)")
    ap.add_argument("--flight-commits", action="store_true", help="with --flight, save a clip at every commit too")
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    return ap


def _options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise ReplayError(f"--option needs KEY=VALUE, got {pair!r}")
        k, v = pair.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _summary_line(s: Mapping[str, Any]) -> str:
    what = f"wrote {s['record']}: " if s.get("record") else ""
    stop = " (interrupted)" if s["interrupted"] else ""
    return (f"{what}{s['events']} events, {s['questions']} questions ({s['guesses']} guessed, {s['answered']} answered), "
            f"{s['desyncs']} desyncs from {s['seconds']:.1f} s in {s['wall_seconds']:.1f} s "
            f"({s['speed_x_real_time']}x real time){stop}\n")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _stdout(line: str) -> None:
    print(line, flush=True)


ASSERT_TABLE = -1
"""What :func:`_typed_numbers` delivers for ``t``: the table is like this (:meth:`Tracker.assert_table`)."""


def _typed_numbers(stream: TextIO) -> queue.Queue[int]:
    """Numbers typed on ``stream`` (shown from 1), as candidate indices (from 0); ``t`` (the table
    is right as the camera sees it) as :data:`ASSERT_TABLE`."""
    out: queue.Queue[int] = queue.Queue()

    def read() -> None:
        for line in stream:
            word = line.strip()
            if word.isdigit() and int(word) >= 1:
                out.put(int(word) - 1)
            elif word.lower() in ("t", "table"):
                out.put(ASSERT_TABLE)
            elif word:
                _stderr("type the number of a candidate, or t when the table is right, then Enter")

    threading.Thread(target=read, daemon=True).start()
    return out


def main(command: str, argv: list[str]) -> int:
    """Run ``command`` (``replay`` or ``track``) with ``argv``; returns the exit status (0, 2 for
    bad input, 130 when Ctrl-C ended it)."""
    args = _parser(command).parse_args(argv)
    try:
        setup = resolve(args.game, args.players or None, args.ruleset, _options(args.option), args.deck)
        answers = load_answers(args.answers) if args.answers else []
        if command == "replay":
            summary = replay_video(args.source, setup.game, setup.players, setup.ruleset, _options(args.option),
                                   args.deck, args.profile, answers, args.output, force=args.force, fps=args.fps,
                                   progress=_stderr, markers_within_s=args.markers_within, flight_dir=args.flight,
                                   flight_commits=args.flight_commits)
        else:
            summary = _track(args, setup, answers)
    except ReplayError as exc:
        print(f"fudaba {command}: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"fudaba {command}: {exc.name or exc} is missing: reinstall fudaba (pip install .)", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(json.dumps({k: v for k, v in summary.items() if k != "committed"}, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(_summary_line(summary))
    return 130 if summary["interrupted"] else 0


def _track(args: argparse.Namespace, setup: Setup, answers: list[Answer]) -> dict[str, Any]:
    from vision.capture import CaptureError, open_source, parse_spec

    try:
        kind = parse_spec(args.source).kind
        source = open_source(args.source, fps=args.fps, pace=kind in ("file", "folder"),
                             on_status=lambda st: _stderr(f"source: {st.message}") if st.state in ("reconnecting", "failed") else None)
    except CaptureError as exc:
        raise ReplayError(str(exc)) from None
    if args.seconds > 0:
        source = _Limited(source, args.seconds)
    typed = _typed_numbers(sys.stdin) if args.ask else None
    return follow(source, setup, profile=args.profile, out=args.output, force=args.force, answers=answers,
                  typed=typed, say=_stdout, markers_within_s=args.markers_within, name=str(args.source),
                  flight_dir=args.flight, flight_commits=args.flight_commits)


class _Limited:
    """A source that ends after ``seconds`` of its time."""

    def __init__(self, source: Any, seconds: float) -> None:
        self.source = source
        self.seconds = seconds
        self._t0: float | None = None

    def read(self, timeout: float | None = None) -> Any:
        frame = self.source.read(timeout)
        if frame is None:
            return None
        if self._t0 is None:
            self._t0 = frame.t
        return None if frame.t - self._t0 > self.seconds else frame

    def close(self) -> None:
        self.source.close()
