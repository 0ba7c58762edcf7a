"""Dashboard benchmark: N clients on the live stream; events pushed per second and the delay from a
committed event to its arrival in each client.

The server is the one ``fudaba run`` starts (waitress over a fresh history, in this process). The
clients are one separate process, one thread per client, each holding an ``EventSource``-like
HTTP stream of one session and noting when each snapshot (by ``seq``) arrives
(``time.monotonic``, which is one clock for every process on Linux). The driver enters a simulated
round by the API, one event per POST as fast as the server takes them, and the session notes
when each line was committed (the store's commit returned). Delay = arrival − commit, per client
and event. ``--camera VIDEO`` also follows a video in a second session meanwhile (the tracker
running, as at a table with a camera), frame by frame at real time.

Run from the checkout: ``python bench/dashboard.py [--clients 20] [--events 200] [--camera VIDEO]``.
Prints the figures and writes ``bench/out/dashboard.json`` (``--json``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _client(port: int, sid: int, n: int, until_seq: int, out: Any, ready: Any) -> None:
    """``n`` streams of session ``sid``; each notes (seq, arrival) until ``until_seq`` arrives."""
    arrivals: list[list[tuple[int, float]]] = [[] for _ in range(n)]

    def one(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        conn.request("GET", f"/api/sessions/{sid}/stream")
        resp = conn.getresponse()
        ready.release()
        seq = None
        while True:
            line = resp.fp.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                seq = int(line[4:])
            elif line.startswith(b"data: ") and seq is not None:
                arrivals[k].append((seq, time.monotonic()))
                if seq >= until_seq:
                    conn.close()
                    return

    threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    out.put(arrivals)


def script(events: int, seed: int) -> list[Any]:
    """A simulated Hachi-hachi match (3 seated, the default ruleset) as players enter it
    (:func:`scorer.simulate.entered_rounds`), cut at ``events`` steps."""
    from scorer.simulate import entered_rounds

    rounds = 1
    while True:
        steps, results = entered_rounds("hachi-hachi", 3, seed, rounds)
        if len(steps) >= events or len(results) < rounds:
            return steps[:events]
        rounds *= 2


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--events", type=int, default=200, help="events entered (default 200)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--camera", help="a video to follow in another session meanwhile (the tracker running)")
    p.add_argument("--json", type=Path, default=Path("bench/out/dashboard.json"))
    args = p.parse_args(argv)

    import waitress

    from fudaba.serve import THREADS, build, start_camera

    folder = Path(tempfile.mkdtemp(prefix="fudaba-bench-"))
    app = build(folder / "h.sqlite3", None)
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=max(THREADS, args.clients + 8))
    threading.Thread(target=server.run, daemon=True).start()
    port = server.effective_port
    sessions = app.extensions["fudaba"]["sessions"]
    steps = script(args.events, args.seed)
    # one session per round would change the id; a single session holds the rounds one after another
    session = sessions.create("hachi-hachi", ["Player 1", "Player 2", "Player 3"])
    committed: dict[int, float] = {}
    original = session.store.append

    def noting(sid: int, line: dict, finished: bool = False) -> None:
        original(sid, line, finished)
        committed[line["seq"]] = time.monotonic()

    session.store.append = noting  # type: ignore[method-assign]
    feed = None
    if args.camera:
        _s, feed = start_camera(sessions, args.camera, "poka", 2, None, None, {}, None, None, confirm=False)

    out: Any = mp.get_context("spawn").Queue()
    ready: Any = mp.get_context("spawn").Semaphore(0)
    proc = mp.get_context("spawn").Process(target=_client, args=(port, session.id, args.clients, len(steps), out, ready))
    proc.start()
    for _ in range(args.clients):
        ready.acquire(timeout=60)
    time.sleep(0.5)

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/")
    resp = conn.getresponse()
    page = resp.read().decode()
    cookie = (resp.getheader("Set-Cookie") or "").split(";")[0]
    token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    headers = {"X-CSRF-Token": token, "Cookie": cookie, "Content-Type": "application/json"}
    started = time.monotonic()
    for step in steps:
        if step.kind == "deal":
            body = {"dealer": step.dealer, "face_up": {k: list(v) for k, v in step.face_up.items()}}
            path = "deal"
        else:
            body, path = {"event": dict(step.event)}, "event"
        conn.request("POST", f"/api/sessions/{session.id}/{path}", json.dumps(body), headers)
        r = conn.getresponse()
        r.read()
        if r.status != 200:
            raise SystemExit(f"the server refused step {step}: {r.status}")
    sent = time.monotonic() - started
    arrivals = out.get(timeout=600)
    proc.join(60)
    if feed is not None:
        feed.stop()
    delays = [t - committed[seq] for client in arrivals for seq, t in client if seq in committed and seq > 0]
    complete = sum(1 for client in arrivals if client and client[-1][0] >= len(steps))
    delays.sort()
    result = {
        "clients": args.clients, "events": len(steps), "seconds": round(sent, 3),
        "events_per_s": round(len(steps) / sent, 1),
        "pushes_per_s": round(len(steps) * args.clients / sent, 1),
        "clients_complete": complete,
        "delay_median_ms": round(1000 * statistics.median(delays), 1),
        "delay_p95_ms": round(1000 * delays[int(0.95 * (len(delays) - 1))], 1),
        "delay_max_ms": round(1000 * delays[-1], 1),
        "camera": args.camera, "camera_frames": feed.frames if feed is not None else None,
    }
    print(json.dumps(result, indent=1))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
