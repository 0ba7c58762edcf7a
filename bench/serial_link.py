"""State updates per second and round-trip latency from the host client to the emulator.

The client and the emulator run in this process and talk over a pseudo-terminal, through the
client's real pyserial path; a pty does not pace bytes at 115200 baud, so these figures measure the
software (framing, threads, wake-ups), not the wire: at 115200 8N1 a 6-seat ``SET`` (about 30
bytes) and its ``ACK`` (about 13) take about 3.7 ms on the wire alone.

* round trip: ``set_state`` of a new state until ``wait_acked`` returns (the device applied it).
* updates per second: acknowledged state updates per second, one after another.

Each repeat times ``--updates`` updates; the median over repeats is reported.

    python bench/serial_link.py [--updates 500] [--repeats 5] [--json bench/out/serial_link.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge.client import StoneCounterClient  # noqa: E402
from firmware_bridge.emulator import Emulator  # noqa: E402
from firmware_bridge.protocol import DisplayState  # noqa: E402


def one_repeat(client: StoneCounterClient, updates: int, offset: int) -> tuple[float, float]:
    """(median round trip in ms, acknowledged updates per second) over ``updates`` updates."""
    trips = []
    start = time.perf_counter()
    for i in range(updates):
        n = offset + i
        state = DisplayState(tuple((n + s) % 21 - 10 for s in range(6)), n % 11, n % 7, 255)
        t0 = time.perf_counter()
        client.set_state(state)
        if not client.wait_acked(5.0):
            raise RuntimeError(f"update {i} not acknowledged: {client.status().last_error}")
        trips.append(time.perf_counter() - t0)
    spent = time.perf_counter() - start
    return statistics.median(trips) * 1000.0, updates / spent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--updates", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", default="bench/out/serial_link.json")
    args = ap.parse_args()

    rtts, rates = [], []
    with Emulator(seed=0) as emu, StoneCounterClient(emu.port) as client:
        if not client.wait_connected(10.0):
            print(f"no connection to the emulator: {client.status().last_error}", file=sys.stderr)
            return 1
        one_repeat(client, 50, 0)  # warm-up
        for r in range(args.repeats):
            rtt, rate = one_repeat(client, args.updates, (r + 1) * args.updates)
            rtts.append(rtt)
            rates.append(rate)
            print(f"repeat {r + 1}: round trip median {rtt:.3f} ms, {rate:.0f} updates/s")
        applied = emu.applied_sets

    result = {
        "benchmark": "serial_link",
        "link": "host client <-> emulator over a pty (not paced at 115200 baud)",
        "updates_per_repeat": args.updates,
        "repeats": args.repeats,
        "round_trip_ms_median": round(statistics.median(rtts), 4),
        "updates_per_second_median": round(statistics.median(rates), 1),
        "round_trip_ms_per_repeat": [round(x, 4) for x in rtts],
        "updates_per_second_per_repeat": [round(x, 1) for x in rates],
        "sets_applied_by_device": applied,
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    print(
        f"median: round trip {result['round_trip_ms_median']:.3f} ms,"
        f" {result['updates_per_second_median']:.0f} acknowledged updates/s"
    )
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
