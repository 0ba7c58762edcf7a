"""Random full rounds per second for each game, on one core.

A "random full round" starts from a random fully known deal and applies random legal events
(``Match.random_event``, chance included) until the round is settled — the engines' ``apply`` with
its checks and undo stack, and ``legal_events`` for every choice. Each game is timed in several
repeats; the median rate is reported. Target: >= 1,000 Hachi-hachi rounds/s on one core.

    python bench/scorer.py [--seconds 3] [--repeats 5] [--json bench/out/scorer.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.games import game  # noqa: E402
from scorer.simulate import play_round  # noqa: E402

CASES = [
    ("hachi-hachi", "seed-1910", 3, {}),
    ("hachi-hachi", "standard", 3, {}),
    ("hachi-hachi", "standard", 6, {}),
    ("bagaji", "seed", 4, {"end-after-minutes": "0"}),
    ("poka", "seed", 2, {}),
]


def rate(name: str, ruleset: str, players: int, overrides: dict, seconds: float, seed: int) -> tuple[float, float]:
    """(rounds per second, events per second) over about ``seconds`` of CPU time."""
    spec = game(name)
    options = spec.options(ruleset, overrides)
    rng = random.Random(seed)
    rounds = events = 0
    match = spec.match([f"P{i + 1}" for i in range(players)], options)
    start = time.process_time()
    while time.process_time() - start < seconds:
        if match.is_over:
            match = spec.match([f"P{i + 1}" for i in range(players)], options)
        events += len(play_round(match, rng))
        rounds += 1
    spent = time.process_time() - start
    return rounds / spent, events / spent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per repeat")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", default="bench/out/scorer.json")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    rows = []
    for name, ruleset, players, overrides in CASES:
        runs = [rate(name, ruleset, players, overrides, args.seconds, seed) for seed in range(args.repeats)]
        rounds = statistics.median(r for r, _ in runs)
        events = statistics.median(e for _, e in runs)
        rows.append(
            {
                "game": name,
                "ruleset": ruleset,
                "players": players,
                "options": overrides,
                "rounds_per_s_median": round(rounds, 1),
                "rounds_per_s_runs": [round(r, 1) for r, _ in runs],
                "events_per_s_median": round(events),
            }
        )
        print(f"{name:12s} {ruleset:10s} {players} players: {rounds:8.1f} rounds/s (median of {args.repeats}), {events:9.0f} events/s")
    out = {
        "benchmark": "scorer random full rounds",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_seconds_per_repeat": args.seconds,
        "one_core": hasattr(os, "sched_setaffinity"),
        "results": rows,
    }
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
