"""The follower's settings, and the command-line options that set them, defined once for every
command that follows a game from a camera: ``fudaba replay``, ``fudaba track``, ``fudaba run
--camera`` (:func:`add_follow_arguments`, :func:`settings_from_args`) and ``fudaba demo`` (which
builds its :class:`FollowSettings` itself).

Options every one of those commands takes (``fudaba run``: with ``--camera``): ``--game``,
``--players``, ``--names``, ``--ruleset``, ``--option K=V`` (repeatable), ``--deck``, ``--profile``,
``--fps``, ``--flight DIR``, ``--flight-commits``. ``fudaba replay`` and ``track`` also take
``--answers FILE`` and ``--markers-within S``; ``fudaba run`` takes ``--no-confirm``.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vision.game_setup import ReplayError, Setup, resolve

if TYPE_CHECKING:
    from scorer.tracker import TrackerOptions

MARKERS_WITHIN_S = 10.0
"""Seconds from the source's start within which the table's markers must have been found."""
FLIGHT_SECONDS = 8.0
"""Seconds of frames the flight recorder keeps before each clip it saves."""


@dataclass(frozen=True, slots=True)
class FollowSettings:
    """What to follow and how: the game (resolved by :meth:`setup`) and the follower's settings."""

    game: str
    """``hachi-hachi``, ``bagaji`` or ``poka``."""
    players: int | None = None
    """Seated players (None: as many as ``names``, else the fewest the game seats)."""
    names: tuple[str, ...] | None = None
    """The players' names in seat order (None: ``Player 1``, …)."""
    ruleset: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)
    """Option overrides by name (``--option K=V``)."""
    deck: str | None = None
    """Recognition deck, or for Bagaji a deck option value (:func:`vision.game_setup.resolve`)."""
    profile: str | None = None
    """Deck profile written by ``fudaba enrol`` (None: the shipped recogniser alone)."""
    answers: str | None = None
    """Answers file (:mod:`vision.answers`) for the questions nobody at the table answers."""
    confirm: bool = False
    """Claims and settlements wait for a player's word (``TrackerOptions.confirm_stones``): only
    where a player can answer (``fudaba run`` unless ``--no-confirm``, ``fudaba track --ask``)."""
    fps: float | None = None
    """Frame rate for the timestamps of a file or folder (None: the file's, else 15)."""
    markers_within_s: float | None = None
    """Give up when no calibration markers are seen this many seconds into the source, or by its
    end (None: wait for them, or for corners set by hand, as long as it runs: the dashboard's)."""
    flight_dir: str | None = None
    """Flight recorder: save clips here (None: no recorder)."""
    flight_commits: bool = False
    """With ``flight_dir``: a clip at every commit too."""
    realtime: bool = False
    """Keep an offline source (a file or folder read frame by frame) to its timestamps: every frame
    is followed, none sooner than its time (later when the machine cannot keep up)."""
    tracker_options: TrackerOptions | None = None
    """The tracker's settings (None: the defaults, with ``confirm``)."""
    stabiliser_options: Mapping[str, Any] = field(default_factory=dict)
    """Keyword arguments for :class:`vision.stabilise.Stabiliser`."""

    def setup(self) -> Setup:
        """The game resolved (ReplayError for anything unknown or inconsistent, or ``names`` that do
        not fill the seats)."""
        setup = resolve(self.game, self.players or (len(self.names) if self.names else None), self.ruleset,
                        self.options, self.deck)
        if self.names and len(self.names) != setup.players:
            raise ReplayError(f"{len(self.names)} names for {setup.players} players")
        return setup

    def tracker(self) -> TrackerOptions:
        """The tracker's settings: :attr:`tracker_options`, else the defaults with :attr:`confirm`."""
        from scorer.tracker import TrackerOptions

        return self.tracker_options or TrackerOptions(confirm_stones=self.confirm)


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``--option`` values (``K=V``) by key; ReplayError for one without ``=``."""
    out = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq:
            raise ReplayError(f"--option needs KEY=VALUE, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def add_follow_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    """Add the follower's options (module docstring) to ``command``'s parser (``replay``, ``track``
    or ``run``; for ``run`` they apply with ``--camera``, which needs ``--game``)."""
    run = command == "run"
    w = "with --camera: " if run else ""
    parser.add_argument("--game", required=not run, help=f"{w}hachi-hachi, bagaji or poka")
    parser.add_argument("--players", type=int, help=f"{w}seated players (default: the fewest, or --names)")
    parser.add_argument("--names", nargs="+", metavar="NAME", help=f"{w}the players' names in seat order")
    parser.add_argument("--ruleset", help=f"{w}ruleset name (default: the seed's)")
    parser.add_argument("--option", action="append", default=[], metavar="K=V",
                        help=f"{w}override an option (repeatable)")
    parser.add_argument("--deck", metavar="D",
                        help=f"{w}recognition deck, hanafuda or playing (default: the game's); for Bagaji also a "
                             "deck option value (playing-2x, hanafuda-1x, hanafuda-2x); --deck hanafuda means "
                             "hanafuda-1x there")
    parser.add_argument("--profile", help=f"{w}deck profile written by `fudaba enrol`")
    parser.add_argument("--fps", type=float,
                        help=f"{w}frame rate for the timestamps of files and folders (default: the file's)")
    if run:
        parser.add_argument("--no-confirm", action="store_true",
                            help=f"{w}commit claims and settlements without waiting for a tap on confirm")
    else:
        parser.add_argument("--answers", metavar="FILE",
                            help='answers to questions, one JSON line each: {"choice": i} or {"t": s, "choice": i}')
        parser.add_argument("--markers-within", type=float, default=MARKERS_WITHIN_S, metavar="S",
                            help=f"give up when no markers are seen in the first S seconds (default {MARKERS_WITHIN_S:g})")
    parser.add_argument("--flight", metavar="DIR",
                        help=f"{w}flight recorder: save the last {FLIGHT_SECONDS:g} s of frames and the tracker's "
                             "evidence to DIR at every desync, question and answer (a clip's frames/ folder replays)")
    parser.add_argument("--flight-commits", action="store_true", help="with --flight, save a clip at every commit too")


def settings_from_args(args: argparse.Namespace) -> FollowSettings:
    """The settings :func:`add_follow_arguments`' options give (ReplayError for a bad ``--option``).
    Claims and settlements wait for a player with ``fudaba run`` (unless ``--no-confirm``) and
    ``fudaba track --ask``."""
    confirm = not args.no_confirm if hasattr(args, "no_confirm") else bool(getattr(args, "ask", False))
    return FollowSettings(
        game=args.game, players=args.players or None, names=tuple(args.names) if args.names else None,
        ruleset=args.ruleset, options=parse_options(args.option), deck=args.deck, profile=args.profile,
        answers=getattr(args, "answers", None), confirm=confirm, fps=args.fps,
        markers_within_s=getattr(args, "markers_within", None), flight_dir=args.flight,
        flight_commits=args.flight_commits)
