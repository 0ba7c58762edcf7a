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

``--streams N`` measures the server crowded instead: N live streams held open by one separate
process (one thread, plain sockets), then, while they are open, ``GET /api/sessions/<id>/state``
(``--requests`` times on one kept-alive connection), a page load (the game's page and its
scripts and styles) and taps (``POST .../deal`` and ``.../event``, each timed to its answer and to
its arrival in every open stream); one stream beyond :data:`web.api.MAX_STREAMS` where N fills it;
then the streams are closed and the server's open-stream count is watched until it is 0 (the
session's watchers too, and the worker threads running). The server's memory (RSS) and threads
are noted idle and crowded. The same figures before any stream is opened are the baseline.
``--legacy``: the server as it was before issue 51 (waitress, 48 threads, its connection limit of
100, no read-ahead), to show what crowding did to it (requests give up after ``--timeout`` s).
``bench/out/dashboard-streams.json`` holds the figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import re
import selectors
import socket
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


def _streams(port: int, sid: int, n: int, wait_s: float, pipe: Any) -> None:
    """Hold ``n`` streams of session ``sid`` open (one thread, non-blocking sockets) and answer the
    driver over ``pipe``: ``("ready",)`` once every stream has its status and, where 200, its first
    snapshot (or after ``wait_s``) → (streams answered 200, other statuses, streams not answered);
    ``("seq", s)`` once every 200 stream has seen ``seq`` ≥ s → (how many did, seconds), or
    ("timed out", how many did) after ``wait_s``; ``("close",)`` closes them all → None."""
    sel = selectors.DefaultSelector()
    request = f"GET /api/sessions/{sid}/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    socks, status, seqs, tails = [], [0] * n, [-1] * n, [b""] * n
    for k in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=60)
        s.sendall(request)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, k)
        socks.append(s)

    def pump(timeout: float) -> None:
        for key, _ in sel.select(timeout):
            k = key.data
            try:
                chunk = key.fileobj.recv(1 << 17)
            except BlockingIOError:
                continue
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            data = tails[k] + chunk
            if not status[k]:
                status[k] = int(data.split(b" ", 2)[1])
            for m in re.finditer(rb"\nid: (\d+)\n", data):
                seqs[k] = max(seqs[k], int(m.group(1)))
            tails[k] = data[-40:]

    def done(cmd: tuple) -> Any:
        ok = [k for k in range(n) if status[k] == 200]
        late = time.monotonic() - started > wait_s
        if cmd[0] == "ready":
            if late or (all(status) and all(seqs[k] >= 0 for k in ok)):
                return (len(ok), sorted({s for s in status if s not in (0, 200)}), status.count(0))
        elif all(seqs[k] >= cmd[1] for k in ok):
            return (len(ok), time.monotonic() - started)
        elif late:
            return ("timed out", sum(1 for k in ok if seqs[k] >= cmd[1]))
        return None

    pending, started = None, 0.0
    while True:
        if pending is None and pipe.poll(0):
            pending, started = pipe.recv(), time.monotonic()
            if pending[0] == "close":
                for s in socks:
                    s.close()
                pipe.send(None)
                return
        pump(0.005 if pending else 0.05)
        if pending is not None:
            answer = done(pending)
            if answer is not None:
                pipe.send(answer)
                pending = None


def _memory() -> dict[str, Any]:
    """This process's resident memory (MiB) and threads now."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {"rss_mib": round(int(fields["VmRSS"].split()[0]) / 1024, 1), "threads": int(fields["Threads"])}


def _stats(times: list[float]) -> dict[str, Any]:
    if not times:
        return {"n": 0}
    times = sorted(times)
    return {"n": len(times), "median_ms": round(1000 * statistics.median(times), 1),
            "p95_ms": round(1000 * times[int(0.95 * (len(times) - 1))], 1), "max_ms": round(1000 * times[-1], 1)}


def _timed(conn: http.client.HTTPConnection, method: str, path: str, body: str | None = None,
           headers: dict[str, str] | None = None) -> tuple[float, int, bytes]:
    """One request on ``conn``: (seconds to the whole answer, status, body); status 0 where it gave up."""
    t = time.monotonic()
    try:
        conn.request(method, path, body, headers or {})
        resp = conn.getresponse()
        data = resp.read()
    except OSError:
        conn.close()
        return time.monotonic() - t, 0, b""
    return time.monotonic() - t, resp.status, data


def _crowd_figures(port: int, sid: int, requests: int, timeout: float, steps: list[Any]) -> dict[str, Any]:
    """State, page load and taps timed on a fresh connection; each tap's arrival is not waited for here."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    took, status, page = _timed(conn, "GET", f"/session/{sid}")
    out: dict[str, Any] = {"page_status": status}
    if status != 200:
        return out | {"gave_up_after_s": round(took, 1)}
    state = [_timed(conn, "GET", f"/api/sessions/{sid}/state")[0] for _ in range(requests)]
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.decode())
    loads = []
    for _ in range(5):
        t = time.monotonic()
        for path in [f"/session/{sid}", *assets]:
            _timed(conn, "GET", path)
        loads.append(time.monotonic() - t)
    out |= {"state": _stats(state), "page_load": _stats(loads), "page_assets": len(assets)}
    conn.close()
    return out


def _tap(conn: http.client.HTTPConnection, headers: dict[str, str], sid: int, step: Any) -> tuple[float, int, int]:
    """One step entered as the page does: (seconds to the answer, status, the answer's seq)."""
    if step.kind == "deal":
        body = {"dealer": step.dealer, "face_up": {k: list(v) for k, v in step.face_up.items()}}
        path = "deal"
    else:
        body, path = {"event": dict(step.event)}, "event"
    took, status, data = _timed(conn, "POST", f"/api/sessions/{sid}/{path}", json.dumps(body), headers)
    return took, status, json.loads(data).get("seq", -1) if status == 200 else -1


def crowded(args: argparse.Namespace) -> dict[str, Any]:
    """``--streams N``: the figures of the module docstring."""
    from fudaba.counter import CounterControl
    from fudaba.serve import build, http_server
    from web.api import MAX_STREAMS, streams_open

    folder = Path(tempfile.mkdtemp(prefix="fudaba-bench-"))
    before = _memory()
    app = build(folder / "h.sqlite3", None, (), CounterControl())
    if args.legacy:
        import waitress

        server = waitress.create_server(app, host="127.0.0.1", port=0, threads=48, channel_timeout=3600)
    else:
        server = http_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    port = server.effective_port
    session = app.extensions["fudaba"]["sessions"].create("hachi-hachi", ["Player 1", "Player 2", "Player 3"])
    steps = script(args.taps * 2 + 1, args.seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=args.timeout)
    conn.request("GET", "/")  # the home page: its cookie and the CSRF token it shows, for the taps
    resp = conn.getresponse()
    page = resp.read()
    cookie = (resp.getheader("Set-Cookie") or "").split(";")[0]
    token = page.decode().split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    headers = {"X-CSRF-Token": token, "Cookie": cookie, "Content-Type": "application/json"}
    taps = [_tap(conn, headers, session.id, step) for step in steps[: args.taps]]
    result: dict[str, Any] = {
        "model": "legacy: waitress, 48 threads" if args.legacy else "waitress, THREADS, MAX_STREAMS, read-ahead",
        "streams": args.streams, "max_streams": MAX_STREAMS, "cpus": os.cpu_count(),
        "memory_idle": _memory() | {"rss_before_server_mib": before["rss_mib"]},
        "idle": _crowd_figures(port, session.id, args.requests, args.timeout, steps)
        | {"tap": _stats([t for t, _, _ in taps])},
    }
    conn.close()

    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe()
    wait_s = args.timeout + 20
    proc = ctx.Process(target=_streams, args=(port, session.id, args.streams, wait_s, there), daemon=True)
    t = time.monotonic()
    proc.start()
    there.close()
    here.send(("ready",))
    got = here.recv() if here.poll(wait_s + 30) else (None, None, None)
    result["streams_open"] = {"answered_200": got[0], "other_statuses": got[1], "not_answered": got[2],
                              "seconds_to_open": round(time.monotonic() - t, 2),
                              "server_count": streams_open(app), "watchers": session.watchers}
    result["memory_crowded"] = _memory()
    if args.streams >= MAX_STREAMS and not args.legacy:
        extra = http.client.HTTPConnection("127.0.0.1", port, timeout=args.timeout)
        t = time.monotonic()
        extra.request("GET", f"/api/sessions/{session.id}/stream")
        resp = extra.getresponse()
        resp.read()
        result["one_more_stream"] = {"status": resp.status, "retry_after": resp.getheader("Retry-After"),
                                     "ms": round(1000 * (time.monotonic() - t), 1)}
        extra.close()
    result["crowded"] = _crowd_figures(port, session.id, args.requests, args.timeout, steps)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=args.timeout)
    answers, arrivals = [], []
    for step in steps[args.taps: 2 * args.taps]:
        took, status, seq = _tap(conn, headers, session.id, step)
        if status != 200:
            result["crowded"]["tap_refused"] = status
            break
        answers.append(took)
        here.send(("seq", seq))
        got = here.recv() if here.poll(wait_s + 30) else ("timed out", None)
        if got[0] == "timed out":
            result["crowded"]["tap_not_delivered"] = got
            break
        arrivals.append(took + got[1])
    conn.close()
    result["crowded"]["tap"] = _stats(answers)
    result["crowded"]["tap_to_every_stream"] = _stats(arrivals)

    workers = getattr(server, "task_dispatcher", None)
    here.send(("close",))
    here.poll(30)
    closed = time.monotonic()
    freed: dict[str, Any] = {}
    while time.monotonic() - closed < 30:
        now = round(time.monotonic() - closed, 3)
        if "streams_ms" not in freed and streams_open(app) == 0:
            freed["streams_ms"] = round(1000 * now)
        if "watchers_ms" not in freed and session.watchers == 0:
            freed["watchers_ms"] = round(1000 * now)
        if "threads_ms" not in freed and workers is not None and workers.active_count == 0:
            freed["threads_ms"] = round(1000 * now)
        if len(freed) == 3:
            break
        time.sleep(0.01)
    result["closed"] = freed | {"after_30_s": {"streams": streams_open(app), "watchers": session.watchers,
                                              "threads_busy": workers.active_count if workers else None}}
    result["after"] = _crowd_figures(port, session.id, args.requests, args.timeout, steps)
    proc.join(10)
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--events", type=int, default=200, help="events entered (default 200)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--camera", help="a video to follow in another session meanwhile (the tracker running)")
    p.add_argument("--json", type=Path)
    p.add_argument("--streams", type=int, help="the crowded server instead: N streams held open (module docstring)")
    p.add_argument("--requests", type=int, default=100, help="--streams: GET state this many times (default 100)")
    p.add_argument("--taps", type=int, default=20, help="--streams: taps timed idle and crowded (default 20)")
    p.add_argument("--timeout", type=float, default=10.0, help="--streams: seconds a request may take (default 10)")
    p.add_argument("--legacy", action="store_true", help="--streams: the server as before issue 51")
    args = p.parse_args(argv)
    if args.streams is not None:
        result = crowded(args)
        print(json.dumps(result, indent=1))
        path = args.json or Path("bench/out/dashboard-streams.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=1))
        print(f"wrote {path}")
        return 0
    args.json = args.json or Path("bench/out/dashboard.json")

    from fudaba.serve import build, http_server, start_camera
    from vision.follow_settings import FollowSettings

    folder = Path(tempfile.mkdtemp(prefix="fudaba-bench-"))
    app = build(folder / "h.sqlite3", None)
    server = http_server(app, "127.0.0.1", 0)
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
        _s, feed = start_camera(sessions, args.camera, FollowSettings("poka", 2, confirm=False))

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
