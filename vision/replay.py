"""``fudaba replay`` (a video, offline) and ``fudaba track`` (live): following a game from frames
into a record file.

Both run the one follower (:class:`vision.follow.Follower`: capture → calibration → stabiliser →
tracker) into a :class:`vision.sinks.RecordSink` (one line on disk per event, as it is
committed: sources, evidence and repairs in :mod:`vision.follow`). Their options are the
follower's (:mod:`vision.follow_settings`) plus, for ``replay``, ``VIDEO -o RECORD [--force]
[--json]`` and, for ``track``, ``SOURCE [-o RECORD] [--ask] [--seconds S]``.

Questions never block a replay: they are answered from the answers file (``--answers``,
:mod:`vision.answers`) or guessed. ``fudaba track --ask`` waits for a typed number (and takes ``t``
for "the table is like this"); what is still open when the source ends is answered from the
answers file or guessed.

Bad input raises :class:`ReplayError` (a ``ValueError``; the command exits with status 2): a
source that cannot be opened, an unknown game or ruleset, a player count the game does not seat,
a recognition deck unlike the game's, a record file that exists (unless ``force``), an unreadable
answers file, and no calibration within ``markers_within_s`` seconds of the source's start.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from scorer.tracker import Tracker, TrackerOptions
from vision.answers import (
    Answer,
    FromFile,
    FromTerminal,
    QuestionPolicy,
    load_answers,
    typed_numbers,
)
from vision.follow import Follower
from vision.follow_settings import (
    MARKERS_WITHIN_S,
    FollowSettings,
    add_follow_arguments,
    settings_from_args,
)
from vision.game_setup import ReplayError, Setup, resolve
from vision.sinks import RecordSink

__all__ = ["ReplayError", "Setup", "follow", "main", "replay_video", "resolve"]

Say = Callable[[str], None]


def follow(source: Any, setup: Setup, settings: FollowSettings | None = None, *, out: str | Path | None = None,
           force: bool = False, answers: list[Answer] | QuestionPolicy | None = None,
           typed: queue.Queue[int] | None = None, recogniser: Any = None, say: Say | None = None,
           progress: Say | None = None, name: str = "", **changes: Any) -> dict[str, Any]:
    """Follow the game in ``source`` (a :class:`vision.capture.Source`, closed on return) into the
    record ``out`` (None: no record; ``force``: replace one that exists) and return the summary
    (see :func:`replay_video`). ``settings``: the follower's (default: ``setup``'s game, claims
    confirmed only with ``typed``, markers within 10 s), with ``changes`` to its fields (``flight_dir=…``, …).
    ``answers``: the answers file's lines, or a question policy; ``typed``: choices typed in a
    terminal (:func:`vision.answers.typed_numbers`). ``say`` gets a line for every event, question,
    answer and desync; ``progress`` a line every 10 s of source time. Ctrl-C ends the run cleanly:
    the summary says ``interrupted``."""
    settings = replace(settings or FollowSettings(setup.game, setup.players, confirm=typed is not None,
                                                  markers_within_s=MARKERS_WITHIN_S), **changes)
    if isinstance(answers, (list, tuple)) or answers is None:
        lines = list(answers or [])
        answers = FromTerminal(typed, lines) if typed is not None else FromFile(lines)
    try:
        match = setup.match(settings.names)
        sink = RecordSink(match, setup.ruleset, out, force)
    except ReplayError:
        source.close()
        raise
    # made here, from this module's Tracker: a test may record its updates through a subclass
    tracker = Tracker(match, settings.tracker())
    try:
        follower = Follower(source, setup, sink, answers, settings, recogniser=recogniser, tracker=tracker,
                            name=name, say=say, progress=progress)
    except BaseException:
        source.close()
        sink.close(abandoned=True)
        raise
    return follower.run()


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
    flight recorder's: :mod:`vision.follow`; ``flight_commits``: a clip at every commit too)."""
    settings = FollowSettings(game, players, ruleset=ruleset, options=dict(options or {}), deck=deck, profile=profile,
                              fps=fps, markers_within_s=markers_within_s, tracker_options=tracker_options,
                              stabiliser_options=dict(stabiliser_options or {}),
                              flight_dir=str(flight_dir) if flight_dir is not None else None,
                              flight_commits=flight_commits)
    setup = settings.setup()
    parsed = load_answers(answers) if isinstance(answers, (str, Path)) else list(answers or [])
    return _replay(path, setup, settings, parsed, out, force=force, seconds=seconds, recogniser=recogniser,
                   progress=progress, say=say)


def _replay(path: str | Path, setup: Setup, settings: FollowSettings, answers: list[Answer],
            out: str | Path | None, *, force: bool = False, seconds: float | None = None, recogniser: Any = None,
            progress: Say | None = None, say: Say | None = None) -> dict[str, Any]:
    """``fudaba replay``: open the video at ``path`` (every frame, in order) and follow it."""
    from vision.capture import CaptureError, open_source

    if not Path(path).exists():
        raise ReplayError(f"no such video: {path}")
    try:
        source = open_source(str(path), fps=settings.fps)
    except CaptureError as exc:
        raise ReplayError(str(exc)) from None
    if seconds is not None:
        source = _Limited(source, seconds)
    return follow(source, setup, settings, out=out, force=force, answers=answers, recogniser=recogniser, say=say,
                  progress=progress, name=str(path))


def _track(args: argparse.Namespace, setup: Setup, settings: FollowSettings, answers: list[Answer]) -> dict[str, Any]:
    """``fudaba track``: open the source live (a file or folder played at real time) and follow it."""
    from vision.capture import CaptureError, open_source, parse_spec

    try:
        kind = parse_spec(args.source).kind
        source = open_source(args.source, fps=settings.fps, pace=kind in ("file", "folder"),
                             on_status=lambda st: _stderr(f"source: {st.message}") if st.state in ("reconnecting", "failed") else None)
    except CaptureError as exc:
        raise ReplayError(str(exc)) from None
    if args.seconds > 0:
        source = _Limited(source, args.seconds)
    typed = typed_numbers(sys.stdin) if args.ask else None
    return follow(source, setup, settings, out=args.output, force=args.force, answers=answers, typed=typed,
                  say=_stdout, name=str(args.source))


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
    add_follow_arguments(ap, command)
    ap.add_argument("--force", action="store_true", help="replace the record file when it exists")
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    return ap


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


def main(command: str, argv: list[str]) -> int:
    """Run ``command`` (``replay`` or ``track``) with ``argv``; returns the exit status (0, 2 for
    bad input, 130 when Ctrl-C ended it)."""
    args = _parser(command).parse_args(argv)
    try:
        settings = settings_from_args(args)
        setup = settings.setup()
        answers = load_answers(settings.answers) if settings.answers else []
        if command == "replay":
            summary = _replay(args.source, setup, settings, answers, args.output, force=args.force, progress=_stderr)
        else:
            summary = _track(args, setup, settings, answers)
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


class _Limited:
    """A source that ends after ``seconds`` of its time."""

    def __init__(self, source: Any, seconds: float) -> None:
        self.source = source
        self.seconds = seconds
        self._t0: float | None = None
        self._over = False

    def read(self, timeout: float | None = None) -> Any:
        if self._over:
            return None
        frame = self.source.read(timeout)
        if frame is None:
            return None
        if self._t0 is None:
            self._t0 = frame.t
        self._over = frame.t - self._t0 > self.seconds
        return None if self._over else frame

    def status(self) -> Any:
        """The source's status; ``ended`` once its time is up."""
        from vision.capture import SourceStatus

        st = self.source.status()
        if not self._over:
            return st
        return SourceStatus("ended", f"stopped after {self.seconds:g} s", st.frames_read, st.dropped_total,
                            st.reconnects)

    def close(self) -> None:
        self.source.close()
