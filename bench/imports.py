"""Import benchmark: how long a long record takes to import into the history, and the memory it takes.

The record is a simulated Bagaji match (3 seated, the ``seed`` ruleset with no time limit:
``end-after-minutes=0``), played by :func:`scorer.simulate.play_round` from ``--seed`` until it has
``--lines`` events, written as a record file is (the header, then one JSON object a line, as
:meth:`scorer.record.Record.dumps` writes them, ``at`` included). Every line is a real event of the
game: draws, discards, calls, stops, deals, reshuffles. Then it is imported into a fresh history
in a process of its own, timed from the text in memory: ``seconds``, by
:meth:`fudaba.store.Store.import_record` (checked, replayed, committed); ``with_open_s``, in another
process, by :meth:`fudaba.session.Sessions.import_record` (what ``POST /api/import`` does: that,
and the session opened from the replayed match, its lines read back), and its first snapshot
(``snapshot_s``). The peak resident memory of each process (the record's text included) is read
after, and the CPU time it spent (``cpu_s``: what the wall time would be with the machine to
itself, less the waits for the disk).
``--bad-last`` makes the last line illegal (the import must leave nothing).

Run from the checkout: ``python bench/imports.py [--lines 700000] [--seed 1]``. Prints the figures as
JSON and writes ``bench/out/imports.json`` (``--json``); the record is kept as
``bench/out/long-LINES-SEED.jsonl`` and made again only when missing.
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scorer.simulate import long_record  # noqa: E402


def timed_import(record: Path, opened: bool) -> dict:
    """Import the record file ``record`` into a fresh history (``opened``: and open it, as the API
    does): seconds, peak memory, what is stored."""
    from fudaba.session import Sessions
    from fudaba.store import Store
    from scorer.errors import RecordError

    text = record.read_text(encoding="utf-8")
    path = Path(tempfile.mkdtemp(prefix="fudaba-import-")) / "h.sqlite3"
    store = Store(path)
    cpu = time.process_time()
    started = time.perf_counter()
    error, snapshot = None, None
    try:
        if opened:
            session = Sessions(store).import_record(text, record.name)
            seconds = time.perf_counter() - started
            session.snapshot()
            snapshot = round(time.perf_counter() - started - seconds, 2)
        else:
            store.import_record(text, record.name)
    except RecordError as exc:
        error = str(exc)
    if not opened or error:
        seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    store.close()
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT COUNT(*) FROM lines").fetchone()[0]
        games = db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
    return {"seconds": round(seconds, 2), "cpu_s": round(cpu, 2), "peak_rss_mb": round(peak / 1024), "stored_games": games,
            "stored_lines": rows, "error": error, "snapshot_s": snapshot}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lines", type=int, default=700_000, help="events in the record (default 700000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bad-last", action="store_true", help="make the last line illegal")
    p.add_argument("--json", type=Path, default=Path("bench/out/imports.json"))
    p.add_argument("--import-file", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--opened", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.import_file is not None:  # a child process: the import alone
        print(json.dumps(timed_import(args.import_file, args.opened)))
        return 0

    record = REPO / "bench" / "out" / f"long-{args.lines}-{args.seed}.jsonl"
    if not record.exists():
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(long_record(args.lines, args.seed, start="2026-12-07T20:00:00+00:00"), encoding="utf-8")
    if args.bad_last:
        bad = record.with_name(record.stem + "-bad.jsonl")
        bad.write_text(record.read_text(encoding="utf-8") + '{"type": "discard", "seat": 9, "card": "AS"}\n',
                       encoding="utf-8")
        record = bad
    measured = []
    for opened in ([], ["--opened"]):
        child = subprocess.run([sys.executable, __file__, "--import-file", str(record), *opened], capture_output=True,
                               text=True, check=True, cwd=REPO)
        measured.append(json.loads(child.stdout.strip().splitlines()[-1]))
    store, api = measured
    lines = args.lines + (1 if args.bad_last else 0)
    result = {"lines": lines, "megabytes": round(record.stat().st_size / 1e6, 1), **store,
              "lines_per_s": round(lines / store["seconds"]) if store["seconds"] else None,
              "with_open_s": api["seconds"], "with_open_cpu_s": api["cpu_s"],
              "with_open_peak_rss_mb": api["peak_rss_mb"]}
    result["snapshot_s"] = api["snapshot_s"]
    print(json.dumps(result, indent=1))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
