"""The ``fudaba`` command.

* ``fudaba score [RECORD.jsonl] [--json]`` — replay a game record; print each round's settlement and
  the running totals. Without a record, the embedded sample game is replayed.
* ``fudaba hand GAME CARD... [--ruleset R] [--option K=V] [--json]`` — evaluate a hand.
* ``fudaba rules [GAME] [--ruleset R] [--option K=V] [--json]`` — the rules as implemented.
* ``fudaba simulate GAME [--players N] [--seed S] [--ruleset R] [--option K=V] [-o RECORD]`` — play a
  random legal match and write its record.

Exit status: 0 on success, 2 on bad input (with ``file:line: reason`` for records); nothing is
printed to standard output before the whole answer is known.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any

from scorer import record as records
from scorer import rulesets
from scorer.errors import RecordError, ScorerError, UnknownCardError
from scorer.games import GAME_MODULES, game
from scorer.simulate import play_match

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
        lines.append(f"{spec.title} ({spec.name}), {spec.min_players}-{spec.max_players} players")
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
        raise BadInput(f"{spec.title} seats {spec.min_players}-{spec.max_players} players, not {n}")
    match = spec.match([f"Player {i + 1}" for i in range(n)], options)
    play_match(match, random.Random(args.seed))
    text = records.export(match, ruleset, start="2026-01-01T00:00:00+00:00").dumps()
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        totals = ", ".join(str(t) for t in match.totals)
        return f"wrote {args.output}: {len(match.results)} rounds, totals {totals}\n", 0
    return text, 0


# --------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fudaba",
        description="fudaba: a table-side companion for Hachi-hachi, Bagaji and Poka.",
    )
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

    p = sub.add_parser("simulate", help="play a random legal match and print or write its record")
    p.add_argument("game")
    p.add_argument("--players", type=int, default=0, help="seated players (default: the fewest)")
    p.add_argument("--seed", type=int, default=0, help="random seed (same seed, same record)")
    p.add_argument("-o", "--output", help="write the record here instead of printing it")
    _rules_args(p)
    p.set_defaults(func=cmd_simulate)
    return parser


def _rules_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ruleset", help="ruleset name (default: the seed's)")
    p.add_argument(
        "--option", action="append", default=[], metavar="K=V", help="override an option (repeatable)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        text, code = args.func(args)
    except RecordError as exc:
        print(f"fudaba: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UnknownCardError as exc:
        print(f"fudaba: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ScorerError, BadInput, ValueError, OSError) as exc:
        print(f"fudaba: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sys.stdout.write(text)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
