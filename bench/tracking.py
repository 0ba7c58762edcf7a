"""Tracking benchmark: the tracker's record against the truth of rendered game videos.

``--perception perfect`` feeds the tracker the table states a perfect camera and stabiliser would
report (:mod:`vision.synth.oracle`; no frames are rendered), optionally with single-state
misreadings (``--misread``): it measures the tracker alone. ``--perception camera`` renders each
video (1280 × 720, 15 fps; kept under ``--videos`` and reused) and follows it with ``fudaba
replay``'s loop (:func:`vision.replay.replay_video`): the whole path. Per game video:

* observable events: truth events that change what a camera sees (the sight table before and after
  differ), compared by type, seat and cards by sight name (a deal: dealer and face-up cards);
  found = the longest common subsequence of the two event lists;
* settlement: every settled round's changes equal the truth's;
* silent error: a wrong or missing settlement with no question and no out-of-sync report;
* questions and desyncs (state changes into them), latency from the truth event's ``at`` (its
  action done) to its commit, in video seconds. A question is answered at once with the most
  likely candidate, as ``fudaba replay`` does with no answers file (a guess).

Writes JSON (``--json``) and prints a summary per game. Run from the checkout:
``python bench/tracking.py --games poka --seeds 3``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import fields
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.events import Event  # noqa: E402
from scorer.games import game  # noqa: E402
from scorer.table import expected_table, sight_name  # noqa: E402
from scorer.tracker import Tracker  # noqa: E402
from vision.synth.oracle import perfect_states  # noqa: E402
from vision.synth.video import GameVideo, VideoSpec  # noqa: E402

SETTINGS = {
    "poka": [("poka", 2, None)],
    "hachi-hachi": [("hachi-hachi", 3, "seed-1910"), ("hachi-hachi", 4, "standard")],
    "bagaji": [("bagaji", 3, None)],
}


def observable_key(ev: Event) -> tuple:
    """An event as a camera can tell it: type, seat and cards by sight name (a deal: its dealer and
    face-up cards)."""
    if ev.TYPE == "deal":
        shown = getattr(ev, "field", None) or ((getattr(ev, "table", None),) if hasattr(ev, "table") else ())
        return ("deal", getattr(ev, "dealer", None), tuple(sorted(sight_name(c) for c in shown if c)))
    out: list[object] = [ev.TYPE]
    for f in fields(ev):
        if f.name == "at":
            continue
        v = getattr(ev, f.name)
        if isinstance(v, str):
            v = sight_name(v)
        elif isinstance(v, tuple):
            v = tuple(sorted(sight_name(c) if isinstance(c, str) else c for c in v))
        out.append(v)
    return tuple(out)


def observable_events(video: GameVideo) -> list[tuple[int, Event]]:
    """(index, event) of the truth events that change the sight table."""
    spec = game(video.playout.game)
    match = spec.match(video.playout.match.players, video.playout.match.options)
    out = []
    for i, ev in enumerate(video.playout.events):
        before = expected_table(match.table_places(), match.table_sitout()).signature()
        match.apply(ev)
        after = expected_table(match.table_places(), match.table_sitout()).signature()
        if before != after:
            out.append((i, ev))
    return out


def lcs_pairs(a: list[tuple], b: list[tuple]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence of ``a`` and ``b``."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def run_camera(video: GameVideo, folder: Path, recogniser: object) -> dict:
    """Render ``video`` into ``folder`` (kept: a rerun reuses it) and follow it with
    :func:`vision.replay.replay_video`; the committed events, questions, desyncs and speed."""
    from vision.replay import replay_video
    from vision.synth.video import write_video

    if not (folder / "done").exists():
        write_video(video.spec, folder)
        (folder / "done").write_text("")
    path = next(p for p in (folder / "video.mp4", folder / "video.avi") if p.exists())
    ruleset = video.playout.ruleset
    summary = replay_video(path, video.playout.game, players=video.spec.players, ruleset=ruleset,
                           out=folder / "tracked.jsonl", force=True, recogniser=recogniser)
    events = game(video.playout.game).match(video.playout.match.players, video.playout.match.options).EVENTS
    committed = [(c["t"], events.from_json({k: v for k, v in c["event"].items() if k != "at"}))
                 for c in summary["committed"]]
    results = [tuple(r["changes"]) for r in summary["results"]]
    return {"committed": committed, "results": results, "questions": summary["questions"],
            "guesses": summary["guesses"], "desyncs": summary["desyncs"], "kinds": {},
            "seconds": summary["wall_seconds"], "speed": summary["speed_x_real_time"],
            "recognitions": summary["recognitions"]}


def run_perfect(video: GameVideo, misread: float, seed: int) -> dict:
    """Follow ``video`` from the table states a perfect camera would give (no frames rendered)."""
    spec = game(video.playout.game)
    match = spec.match(video.playout.match.players, video.playout.match.options)
    tracker = Tracker(match)
    committed: list[tuple[float, Event]] = []
    states: Counter[str] = Counter()
    previous = "synced"
    kinds: Counter[str] = Counter()
    guesses = 0
    started = time.perf_counter()
    for ts in perfect_states(video, misread, seed):
        u = tracker.update(ts.table, ts.t)
        del committed[len(committed) - u.retracted:]
        committed.extend((ts.t, e) for e in u.committed)
        if u.state != previous and u.state in ("question", "out-of-sync"):
            states[u.state] += 1
            if u.question is not None:
                kinds[u.question.kind] += 1
        if u.question is not None:
            # as `fudaba replay` does with no answers file: the most likely answer, as a guess
            del committed[len(committed) - u.question.candidates[0].retract:]
            committed.extend((ts.t, e) for e in tracker.choose(0))
            guesses += 1
        previous = u.state
    seconds = time.perf_counter() - started
    return {"committed": committed, "results": [r.changes for r in match.results], "questions": states["question"],
            "guesses": guesses, "desyncs": states["out-of-sync"], "kinds": dict(kinds), "seconds": seconds,
            "speed": video.timeline.duration / max(seconds, 1e-9)}


def run_one(name: str, players: int, ruleset: str | None, seed: int, rounds: int, args: argparse.Namespace,
            recogniser: object = None) -> dict:
    spec = game(name)
    video = GameVideo(VideoSpec(game=name, players=players, ruleset=ruleset, seed=seed, rounds=rounds, fps=15.0,
                                style=args.style, camera=args.camera, difficulty=args.difficulty,
                                art_dir=args.art_dir))
    if args.perception == "camera":
        tag = f"{name}-{players}-{video.playout.ruleset}-{args.style or 'default'}-{args.camera}-{args.difficulty}-{seed}"
        run = run_camera(video, args.videos / tag, recogniser)
    else:
        run = run_perfect(video, args.misread, seed)
    committed = run["committed"]
    truth = observable_events(video)
    truth_keys = [observable_key(e) for _, e in truth]
    got_keys = [observable_key(e) for _, e in committed]
    pairs = lcs_pairs(truth_keys, got_keys)
    times = video.timeline.event_times
    latency = [committed[j][0] - times[truth[i][0]] for i, j in pairs]
    truth_results = [tuple(r.changes) for r in video.playout.match.results]
    got_results = [tuple(r) for r in run["results"]]
    right = truth_results == got_results
    return {
        "game": name, "players": players, "ruleset": ruleset or spec.default_ruleset, "seed": seed,
        "style": args.style, "camera": args.camera, "difficulty": args.difficulty,
        "video_seconds": round(video.timeline.duration, 2), "tracker_seconds": round(run["seconds"], 2),
        "speed_x_real_time": round(run["speed"], 2),
        "observable": len(truth), "found": len(pairs), "committed": len(committed),
        "settlement_right": right, "silent_error": (not right) and not (run["questions"] or run["desyncs"]),
        "questions": run["questions"], "question_kinds": run["kinds"], "guesses": run["guesses"],
        "desyncs": run["desyncs"],
        "latency_s": [round(x, 3) for x in latency],
        "truth_results": [list(r) for r in truth_results], "tracked_results": [list(r) for r in got_results],
    }


def summary(rows: list[dict]) -> dict:
    lat = [x for r in rows for x in r["latency_s"]]
    obs = sum(r["observable"] for r in rows)
    return {
        "videos": len(rows),
        "events_found": f"{sum(r['found'] for r in rows)}/{obs}",
        "events_found_pct": round(100 * sum(r["found"] for r in rows) / max(1, obs), 2),
        "settlements_right": f"{sum(r['settlement_right'] for r in rows)}/{len(rows)}",
        "silent_errors": sum(r["silent_error"] for r in rows),
        "questions": sum(r["questions"] for r in rows),
        "desyncs": sum(r["desyncs"] for r in rows),
        "latency_median_s": round(statistics.median(lat), 3) if lat else None,
        "latency_p95_s": round(sorted(lat)[int(0.95 * (len(lat) - 1))], 3) if lat else None,
        "speed_x_real_time_median": round(statistics.median(r["speed_x_real_time"] for r in rows), 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    p.add_argument("--seeds", type=int, default=3, help="videos per setting (seeds 1000, 1001, …: no tuning used them)")
    p.add_argument("--first-seed", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--perception", choices=["perfect", "camera"], default="perfect",
                   help="perfect: table states from the timeline; camera: render the video and run fudaba replay")
    p.add_argument("--style", default=None, help="art style (default: the renderer's)")
    p.add_argument("--art-dir", default=None, help="folder laid out like shared/assets (more styles)")
    p.add_argument("--camera", choices=["top", "tilted"], default="top")
    p.add_argument("--difficulty", choices=["easy", "normal", "hard"], default="normal")
    p.add_argument("--videos", type=Path, default=Path("bench/out/videos"), help="rendered videos (kept, reused)")
    p.add_argument("--misread", type=float, default=0.0, help="probability a card is misread in one state")
    p.add_argument("--json", type=Path, default=Path("bench/out/tracking.json"))
    args = p.parse_args(argv)
    out: dict[str, object] = {"perception": args.perception, "misread": args.misread, "style": args.style,
                              "camera": args.camera, "difficulty": args.difficulty, "games": {}}
    recognisers: dict[str, object] = {}
    for g in args.games:
        rows = []
        for name, players, ruleset in SETTINGS[g]:
            for k in range(args.seeds):
                recogniser = None
                if args.perception == "camera":
                    from vision.recognise.recogniser import Recogniser

                    deck = "playing" if name == "bagaji" else "hanafuda"
                    recogniser = recognisers.setdefault(deck, Recogniser(deck))
                row = run_one(name, players, ruleset, args.first_seed + k, args.rounds, args, recogniser)
                rows.append(row)
                print(f"{name} {players}p {row['ruleset']} seed {row['seed']}: {row['found']}/{row['observable']} events, "
                      f"settlement {'right' if row['settlement_right'] else 'WRONG'}, questions {row['questions']}, "
                      f"desyncs {row['desyncs']}, {row['tracker_seconds']} s for {row['video_seconds']} s "
                      f"({row['speed_x_real_time']}x)", flush=True)
        s = summary(rows)
        print(f"== {g}: {json.dumps(s)}")
        out["games"][g] = {"summary": s, "videos": rows}  # type: ignore[index]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=1))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
