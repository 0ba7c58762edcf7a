"""The ``fudaba`` command.

* ``fudaba score [RECORD.jsonl] [--json]`` — replay a game record; print each round's settlement and
  the running totals. Without a record, the embedded sample game is replayed.
* ``fudaba hand GAME CARD... [--ruleset R] [--option K=V] [--json]`` — evaluate a hand.
* ``fudaba rules [GAME] [--ruleset R] [--option K=V] [--json]`` — the rules as implemented.
* ``fudaba simulate GAME [--players N] [--seed S] [--ruleset R] [--option K=V] [--max-rounds N]
  [-o RECORD]`` — play a random legal match and write its record; a match not over after
  ``--max-rounds`` rounds (default 10,000: only a match whose options set no end reaches it) is bad input.
* ``fudaba replay VIDEO --game G … -o RECORD`` / ``fudaba track SOURCE --game G …`` — follow a game
  from frames (``vision/replay.py``).
* ``fudaba run [--host H] [--port P] [--data FILE]`` — serve the dashboard (``fudaba/serve.py``).
* ``fudaba device list`` — the serial ports, stone counters (by USB id) first.
* ``fudaba device test [PORT] [--seconds S]`` — light every LED, print button events as they come
  for S seconds (default 10) or until Ctrl-C, then turn the LEDs back.
* ``fudaba device emulate [--seats N] [--drop P] ...`` — run the emulated stone counter; its port
  path is the first line printed; typed lines ``N`` or ``N L`` press button N; Ctrl-C stops it.

Exit status: 0 on success, 2 on bad input (with ``file:line: reason`` for records) or when no stone
counter answers. Except for the ``device`` commands, which report as they go, nothing is printed to
standard output before the whole answer is known.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any

from fudaba import serve
from scorer import record as records
from scorer import rulesets
from scorer.errors import ScorerError
from scorer.games import GAME_MODULES, game
from scorer.simulate import NoEndError, play_match

EXIT_BAD_INPUT = 2


class BadInput(Exception):
    """A user error: the message is printed and the exit status is 2."""


def _parse_options(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise BadInput(f"--option needs KEY=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def _sample_path() -> Any:
    return resources.files("fudaba").joinpath("samples", "hachi-hachi-seed-1910.jsonl")


# --------------------------------------------------------------------------- score
def cmd_score(args: argparse.Namespace) -> tuple[str, int]:
    if args.record is None:
        text = _sample_path().read_text(encoding="utf-8")
        rec = records.loads(text, "<embedded sample: hachi-hachi-seed-1910.jsonl>")
    else:
        rec = records.load(args.record)
    match = rec.replay()
    spec = game(rec.header.game)
    names = {p.seat: p.name for p in match.players}
    if args.json:
        out = {
            "record": rec.path,
            "game": spec.name,
            "ruleset": rec.header.ruleset,
            "options": rulesets.to_json(match.options),
            "players": [p.to_json() for p in match.players],
            "unit": match.UNIT,
            "lower_is_better": match.LOWER_IS_BETTER,
            "events": len(match.events),
            "rounds": [r.to_json() for r in match.results],
            "totals": list(match.totals),
            "over": match.is_over,
            "leaders": list(match.leaders()),
        }
        return json.dumps(out, ensure_ascii=False, indent=2) + "\n", 0
    lines = [
        f"{spec.title} — ruleset {rec.header.ruleset}, {len(match.players)} players, deck {match.deck}",
        f"record: {rec.path} ({len(match.events)} events)",
    ]
    width = max(len(n) for n in names.values())
    for r in match.results:
        lines.append("")
        lines.append(f"Round {r.number} (dealer: seat {r.dealer}, {names[r.dealer]})")
        lines.extend(f"  {line}" for line in r.lines)
        winner = f"seat {r.winner} ({names[r.winner]})" if r.winner else "nobody"
        lines.append(f"  winner: {winner}")
        for seat, (change, total) in enumerate(zip(r.changes, r.totals, strict=True), start=1):
            lines.append(f"    {seat} {names[seat]:<{width}}  {change:+6d}  total {total:6d}")
    lines.append("")
    state = "match over" if match.is_over else "match in progress"
    best = ", ".join(f"{names[s]} (seat {s})" for s in match.leaders())
    unit = match.UNIT + (", lowest wins" if match.LOWER_IS_BETTER else "")
    lines.append(f"{state} after {len(match.results)} round(s); totals in {unit}:")
    for seat, total in enumerate(match.totals, start=1):
        lines.append(f"  {seat} {names[seat]:<{width}}  {total:6d}")
    lines.append(f"{'winner' if match.is_over else 'leading'}: {best}")
    return "\n".join(lines) + "\n", 0


# --------------------------------------------------------------------------- hand
def cmd_hand(args: argparse.Namespace) -> tuple[str, int]:
    spec = game(args.game)
    options = spec.options(args.ruleset, _parse_options(args.option))
    report = spec.evaluate_hand(list(args.cards), options)
    if args.json:
        return json.dumps(report.to_json(), ensure_ascii=False, indent=2) + "\n", 0
    return "\n".join(report.lines()) + "\n", 0


# --------------------------------------------------------------------------- rules
def cmd_rules(args: argparse.Namespace) -> tuple[str, int]:
    specs = [game(args.game)] if args.game else [game(n) for n in GAME_MODULES]
    if args.ruleset and not args.game:
        # --ruleset alone: the games that have that ruleset
        having = [spec for spec in specs if args.ruleset in spec.rulesets]
        if not having:
            known = "; ".join(f"{spec.name}: {', '.join(spec.rulesets)}" for spec in specs)
            raise BadInput(f"no game has a ruleset {args.ruleset!r} (rulesets by game: {known})")
        specs = having
    overrides = _parse_options(args.option)
    if args.json:
        out = []
        for spec in specs:
            names = [args.ruleset] if args.ruleset else list(spec.rulesets)
            out.append(
                {
                    "game": spec.name,
                    "title": spec.title,
                    "players": [spec.min_players, spec.max_players],
                    "default_ruleset": spec.default_ruleset,
                    "rulesets": {n: rulesets.to_json(spec.options(n, overrides)) for n in names},
                }
            )
        return json.dumps(out if len(out) > 1 else out[0], ensure_ascii=False, indent=2) + "\n", 0
    lines: list[str] = []
    for spec in specs:
        lines.append(f"{spec.title} ({spec.name}), {spec.seats} players")
        lines.extend(f"  {line}" for line in spec.summary.splitlines())
        names = [args.ruleset] if args.ruleset else list(spec.rulesets)
        for name in names:
            options = spec.options(name, overrides)
            default = " (default)" if name == spec.default_ruleset else ""
            lines.append(f"  ruleset {name}{default}:")
            for opt, value, doc, choices in rulesets.describe(options):
                allowed = f" [{'/'.join(str(c) for c in choices)}]" if choices else ""
                lines.append(f"    {opt} = {_show(value)}{allowed}  — {doc}")
        lines.append("")
    return "\n".join(lines), 0


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


# --------------------------------------------------------------------------- simulate
def cmd_simulate(args: argparse.Namespace) -> tuple[str, int]:
    spec = game(args.game)
    ruleset = args.ruleset or spec.default_ruleset
    options = spec.options(ruleset, _parse_options(args.option))
    n = args.players or spec.min_players
    if not spec.min_players <= n <= spec.max_players:
        raise BadInput(f"{spec.title} seats {spec.seats} players, not {n}")
    if args.max_rounds < 1:
        raise BadInput(f"--max-rounds must be at least 1, not {args.max_rounds}")
    match = spec.match([f"Player {i + 1}" for i in range(n)], options)
    try:
        play_match(match, random.Random(args.seed), max_rounds=args.max_rounds)
    except NoEndError as exc:
        raise BadInput(f"{exc}; do its options set an end? (or raise --max-rounds)") from None
    text = records.export(match, ruleset, start="2026-01-01T00:00:00+00:00").dumps()
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        totals = ", ".join(str(t) for t in match.totals)
        return f"wrote {args.output}: {len(match.results)} rounds, totals {totals}\n", 0
    return text, 0


# --------------------------------------------------------------------------- mat
def cmd_mat(args: argparse.Namespace) -> tuple[str, int]:
    try:
        from vision.mat import mat_command
    except ImportError as exc:
        raise BadInput(f"fudaba mat needs numpy, OpenCV and Pillow (part of the install: reinstall fudaba): {exc}") from None
    return mat_command(args.game, args.players, args.paper, args.deck, args.output, args.marker_mm, args.dpi), 0


# --------------------------------------------------------------------------- device
def cmd_device_list(args: argparse.Namespace) -> tuple[str, int]:
    from firmware_bridge.ports import list_ports

    ports = list_ports()
    if not ports:
        return "no serial ports found\n", 0
    width = max(len(p.device) for p in ports)
    lines = [f"{'PORT':<{width}}  USB ID     DESCRIPTION"]
    for p in ports:
        mark = "  [stone counter]" if p.matches else ""
        lines.append(f"{p.device:<{width}}  {p.usb_id:<9}  {p.description}{mark}")
    return "\n".join(lines) + "\n", 0


def _say(text: str) -> None:
    print(text, flush=True)


def cmd_device_test(args: argparse.Namespace) -> tuple[str, int]:
    import os
    import queue
    import time

    from firmware_bridge import ports
    from firmware_bridge.client import StoneCounterClient

    port = args.port
    if port is None:
        found = ports.candidates()
        if not found:
            raise BadInput(
                "no stone counter found: no serial port has a known USB id"
                " (`fudaba device list` shows the ports); give its PORT"
            )
        # Each candidate is opened and asked HELLO in turn (up to the banner wait and three
        # HELLOs each); the first stone counter to answer is used.
        wait = len(found) * (args.banner_timeout + 1.5) + 1.0
        where = ", ".join(p.device for p in found)
    elif "://" not in port and not os.path.exists(port):
        raise BadInput(f"no such port: {port}")
    else:
        if "://" not in port:
            _check_serial(port)
        wait = args.banner_timeout + 2.0
        where = port
    client = StoneCounterClient(port, banner_timeout=args.banner_timeout)
    # the client warns at every retry; the test says the last reason once, below
    quiet = logging.getLogger("firmware_bridge.client")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    client.start()
    try:
        if not client.wait_connected(wait):
            raise BadInput(f"no stone counter answered on {where}: {client.status().last_error}")
        st = client.status()
        port = st.port
        lay = st.layout
        _say(
            f"stone counter on {port}: firmware {st.fw_version}, protocol {st.proto_version},"
            f" boot {st.boot}"
        )
        if lay is not None:
            _say(
                f"layout: {lay.seats} seats x {lay.leds_per_seat} LEDs, {lay.pool_leds} pool LEDs,"
                f" 1 status LED ({lay.led_count} in all), brightness limit {lay.max_brightness},"
                f" current budget {lay.power_limit_ma} mA"
            )
        client.set_test(True)
        if not client.wait_test_acked(3.0):
            raise BadInput(f"the stone counter on {port} did not confirm TEST: {client.status().last_error}")
        white = ""
        if lay is not None:
            from firmware_bridge.protocol import estimated_ma, render

            leds = render(lay, lay.initial_state(), link_alive=True, test=True)
            white = f" at level {leds[0][0]} of 255 (about {estimated_ma(leds):.0f} mA)"
        _say(f"every LED lit white{white}; press the buttons ({args.seconds:g} s, Ctrl-C to stop)")
        deadline = time.monotonic() + args.seconds
        try:
            while (left := deadline - time.monotonic()) > 0:
                try:
                    ev = client.buttons.get(timeout=min(left, 0.1))
                except queue.Empty:
                    continue
                name = "undo" if ev.button == 0 else f"seat {ev.button}"
                kind = "long press" if ev.kind == "L" else "press"
                _say(f"button {ev.button} ({name}): {kind}")
        except KeyboardInterrupt:
            pass
        client.set_test(False)
        off = client.wait_test_acked(3.0)
        _say(
            "test over: the LEDs show the counter's state again (the stones a game last sent it; dark but"
            " the status LED after a fresh start)"
            if off
            else "could not turn TEST off: the device did not answer"
        )
    finally:
        client.stop()
        quiet.setLevel(level)
    return "", 0


def _check_serial(path: str) -> None:
    """BadInput, said once, when ``path`` exists but is no serial port (a text file, a folder)."""
    import os
    import stat

    import serial

    mode = os.stat(path).st_mode
    if not stat.S_ISCHR(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a file" if stat.S_ISREG(mode) else "not a device"
        raise BadInput(f"{path} is {kind}, not a serial port (`fudaba device list` shows the ports)")
    try:
        serial.Serial(path).close()
    except serial.SerialException as exc:
        raise BadInput(f"cannot open {path} as a serial port: {exc}") from None


def cmd_device_emulate(args: argparse.Namespace) -> tuple[str, int]:
    import threading
    import time

    from firmware_bridge.emulator import Emulator, Faults
    from firmware_bridge.protocol import Layout

    try:
        layout = Layout(
            args.seats, args.leds_per_seat, args.pool, args.max_brightness, args.power_limit
        )
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    faults = Faults(drop=args.drop, corrupt=args.corrupt, delay=args.delay)
    emu = Emulator(layout, to_device=faults, to_host=faults, reset_on_open=args.reset_on_open)
    emu.start()

    def read_presses() -> None:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            problem = _press_problem(words, layout.seats)
            if problem is None:
                try:
                    emu.press(int(words[0]), words[1].upper() if len(words) > 1 else "P")
                    continue
                except ValueError as exc:
                    problem = str(exc)
            print(
                f"fudaba device emulate: {problem}; type N to press button N (0 undo, 1-{layout.seats} the"
                " seats) or N L to hold it (a long press)",
                file=sys.stderr,
                flush=True,
            )

    try:
        _say(emu.port)
        print(
            f"stone counter emulator on {emu.port} (pty {emu.pty_path}); type N or N L to press"
            " button N; Ctrl-C stops",
            file=sys.stderr,
            flush=True,
        )
        threading.Thread(target=read_presses, daemon=True).start()
        deadline = time.monotonic() + args.seconds if args.seconds else None
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass
    finally:
        emu.stop()
    return "", 0


def _press_problem(words: list[str], seats: int) -> str | None:
    """What is wrong with a line typed into the emulator (``N`` or ``N L``), or None."""
    typed = " ".join(words)
    if len(words) > 2:
        return f"{typed!r} is more than a button and a kind of press"
    if not words[0].isdigit() or not 0 <= int(words[0]) <= seats:
        return f"{words[0]!r} is not a button"
    if len(words) == 2 and words[1].upper() not in ("P", "L"):
        return f"{words[1]!r} is not a kind of press (P: press, L: long press)"
    return None


def _probability(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a probability is 0-1, not {text}")
    return value


def _add_device_parser(sub: Any) -> None:
    dev = sub.add_parser("device", help="the LED stone counter: list, test, emulate")
    dsub = dev.add_subparsers(dest="device_command", metavar="DEVICE_COMMAND")

    def missing(_args: argparse.Namespace) -> tuple[str, int]:
        raise Usage(dev.format_help())

    dev.set_defaults(func=missing)

    p = dsub.add_parser("list", help="list serial ports; stone counters (by USB id) first")
    p.set_defaults(func=cmd_device_list)

    p = dsub.add_parser("test", help="light every LED and print button events")
    p.add_argument("port", nargs="?", help="serial port (default: found by USB id)")
    p.add_argument("--seconds", type=float, default=10.0, help="how long to listen (default 10)")
    p.add_argument(
        "--banner-timeout", type=float, default=2.5, help="seconds to wait for the boot banner"
    )
    p.set_defaults(func=cmd_device_test)

    p = dsub.add_parser("emulate", help="run the emulated stone counter on a pty; print its port")
    p.add_argument("--seats", type=int, default=8, help="seats 1-8 (default 8)")
    p.add_argument("--leds-per-seat", type=int, default=10)
    p.add_argument("--pool", type=int, default=10, help="pool LEDs")
    p.add_argument("--max-brightness", type=int, default=64)
    p.add_argument(
        "--power-limit", type=int, default=450, help="current budget of the strip in mA (default 450)"
    )
    p.add_argument("--drop", type=_probability, default=0.0, help="drop probability per frame")
    p.add_argument("--corrupt", type=_probability, default=0.0, help="corruption probability")
    p.add_argument("--delay", type=_probability, default=0.0, help="delay probability (<= 0.3 s)")
    p.add_argument("--reset-on-open", action="store_true", help="reset when the port opens, as an Uno")
    p.add_argument("--seconds", type=float, default=0.0, help="stop after this long (0: Ctrl-C)")
    p.set_defaults(func=cmd_device_emulate)


# --------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fudaba",
        description="fudaba: a table-side companion for Hachi-hachi, Bagaji and Poka.",
        epilog="Also spelt: fudaba recognize (recognise), fudaba enroll (enrol).",
    )
    parser.add_argument("--version", action="version", version=f"fudaba {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("score", help="replay a game record and print the settlements")
    p.add_argument("record", nargs="?", help="JSON Lines game record (default: the embedded sample)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("hand", help="evaluate a hand of cards")
    p.add_argument("game", help="hachi-hachi, bagaji or poka")
    p.add_argument("cards", nargs="+", metavar="CARD", help="card ids, e.g. 08-moon or QH")
    _rules_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_hand)

    p = sub.add_parser("rules", help="print the rules as implemented")
    p.add_argument("game", nargs="?", help="hachi-hachi, bagaji or poka (default: all)")
    _rules_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_rules)

    sub.add_parser(
        "synth",
        help="render synthetic table scenes and datasets (`fudaba synth --help`)",
        add_help=False,
    )

    for name, what in (("recognise", "name the cards in top-down table images"),
                       ("enrol", "adapt recognition to your own deck from photos of it laid out in a grid"),
                       ("calibrate", "fit the recogniser's confidence on rendered scenes (developers)")):
        sub.add_parser(name, help=f"{what} (`fudaba {name} --help`)", add_help=False)
    sub.add_parser(
        "train",
        help="train and export the card models, offline (`fudaba train --help`; needs the train extra)",
        add_help=False,
    )

    p = sub.add_parser("simulate", help="play a random legal match and print or write its record")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=0, help="seated players (default: the fewest)")
    p.add_argument("--seed", type=int, default=0, help="random seed (same seed, same record)")
    p.add_argument("-o", "--output", help="write the record here instead of printing it")
    p.add_argument(
        "--max-rounds",
        type=int,
        default=10_000,
        metavar="N",
        help="give up (exit 2) when the match has not ended after N rounds (default 10000)",
    )
    _rules_args(p)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("mat", help="write the printable table mat (PDF tiled at 100 %% and PNG) for a game")
    p.add_argument("--game", required=True, help="hachi-hachi, bagaji or poka")
    p.add_argument("--players", type=int, required=True, help="seated players")
    p.add_argument("--paper", default="a3", help="sheets to tile it on: a3 (default), a4x4 (A4) or letter")
    p.add_argument("--deck", help="hanafuda or playing (default: playing for bagaji, else hanafuda)")
    p.add_argument("--marker-mm", type=float, default=40.0, help="side of the markers' black squares (mm)")
    p.add_argument("--dpi", type=float, default=300.0, help="resolution of the PDF's pages (default 300)")
    p.add_argument("-o", "--output", help="PDF to write (default fudaba-mat-GAME-Np-PAPER.pdf); PNGs beside it")
    p.set_defaults(func=cmd_mat)

    for name, what in (("replay", "follow a game in a video file and write its record"),
                       ("track", "follow a game live from a camera or stream; print events and questions")):
        sub.add_parser(name, help=f"{what} (`fudaba {name} --help`)", add_help=False)

    _add_device_parser(sub)
    serve.add_parser(sub)
    return parser


def _rules_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ruleset", help="ruleset name (default: the seed's)")
    p.add_argument(
        "--option", action="append", default=[], metavar="K=V", help="override an option (repeatable)"
    )


ALIASES = {"recognize": "recognise", "enroll": "enrol"}
"""The other spelling of a command, accepted and run as the command's own."""


class Usage(Exception):
    """A missing command: the help is printed on standard error and the exit status is 2."""


def version() -> str:
    """fudaba's installed version (the project's own when run from a checkout that is not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("fudaba")
    except PackageNotFoundError:
        from fudaba import __version__

        return __version__


def _who(args: argparse.Namespace) -> str:
    """``fudaba hand``, ``fudaba device test``: the command that speaks in a message."""
    words = ["fudaba", args.command]
    if getattr(args, "device_command", None):
        words.append(args.device_command)
    return " ".join(words)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``fudaba`` command line; returns the exit status: 0 done, 2 bad input or usage."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ALIASES:
        argv[0] = ALIASES[argv[0]]
    if argv[:1] == ["synth"]:
        from vision.synth.cli import main as synth_main

        return synth_main(argv[1:])
    if argv[:1] and argv[0] in ("recognise", "enrol", "calibrate"):
        from vision.recognise.cli import main as recognise_main

        return recognise_main(argv[0], argv[1:])
    if argv[:1] and argv[0] in ("replay", "track"):
        from vision.replay import main as replay_main

        return replay_main(argv[0], argv[1:])
    if argv[:1] == ["train"]:
        from vision.train.cli import main as train_main

        return train_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        text, code = args.func(args)
    except Usage as exc:
        print(exc, file=sys.stderr, end="")
        return EXIT_BAD_INPUT
    except (ScorerError, BadInput, ValueError, OSError) as exc:  # records and card ids among them
        print(f"{_who(args)}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sys.stdout.write(text)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
