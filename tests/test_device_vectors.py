"""The shared edge-case vectors (``firmware_bridge/vectors/edges.tsv``) on the Python side.

The firmware's parser is checked against the same file in ``tests/test_firmware_native.py``. The
two used to disagree on thousands of checksummed frames (seq 0, over-long numbers, leading zeros,
versions above 255, the order of checks); both now give exactly the file's results.
"""

from __future__ import annotations

import collections
import threading
import time

import serial

from firmware_bridge import edge_vectors
from firmware_bridge.emulator import Emulator
from firmware_bridge.protocol import FrameSplitter, parse_frame

ROWS = edge_vectors.rows()


def test_edge_vectors_are_current_and_cover_every_outcome():
    assert edge_vectors.PATH.read_text(encoding="ascii") == edge_vectors.generate(), (
        "edges.tsv is stale: run python -m firmware_bridge.edge_vectors and review the diff"
    )
    assert len(ROWS) >= 3000
    outcomes = collections.Counter()
    for _, results in ROWS:
        for result in results.split(";"):
            head = result.split(",")
            outcomes[head[0] if head[0] != "NAK" else head[2]] += 1
    assert {"OK", "crc", "parse", "range", "unknown", "long"} <= set(outcomes)
    assert outcomes["OK"] >= 300 and outcomes["range"] >= 300 and outcomes["parse"] >= 300
    seqs = {r.split(",")[1] for _, r in ROWS if r.startswith("NAK,")}
    assert "0" in seqs and "65535" in seqs


def test_python_receiver_gives_every_edge_result():
    wrong = [(f, want, got) for f, want in ROWS if (got := edge_vectors.receive(f)) != want]
    assert not wrong, wrong[:5]


def test_escape_round_trip():
    data = bytes(range(256))
    assert edge_vectors.unescape(edge_vectors.escape(data)) == data
    assert edge_vectors.escape(b"\\x41") == "\\x5Cx41"


def _expected_reply(result: str) -> str | None:
    """The start of the emulator's reply to a frame with this result (None: no reply)."""
    if result == "NONE":
        return None
    if result.startswith("NAK,"):
        _, seq, reason = result.split(",")
        return f"NAK,{seq},BOOT,{reason}"
    _, kind, seq = result.split(",")
    return {"HELLO": f"HELLO,{seq},", "SET": f"ACK,{seq},BOOT", "PING": f"ACK,{seq},BOOT",
            "TEST": f"ACK,{seq},BOOT", "QUERY": f"FB,{seq},BOOT,", "ACK": None}[kind]


def test_the_emulator_answers_every_edge_frame_as_the_firmware_does():
    """Through the emulator's real receive path (pty, splitter, parser, replies)."""
    replies: list[str] = []
    with Emulator(seed=9) as emu, serial.Serial(emu.port, 115200, timeout=0.05) as ser:
        stop = threading.Event()

        def read() -> None:
            splitter = FrameSplitter()
            while not stop.is_set():
                for line in splitter.feed(ser.read(4096)):
                    frame = parse_frame(line)
                    if frame.kind != "BOOT":
                        replies.append(frame.body)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        want = []
        for frame, result in ROWS:
            expected = _expected_reply(result)
            # A '$' or noise before the frame must not merge with the previous one's end.
            ser.write(b"\n" + frame + b"\n")
            if expected is not None:
                want.append(expected.replace("BOOT", str(emu.boot)))
            time.sleep(0.0005)
        deadline = time.monotonic() + 60
        while len(replies) < len(want) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        stop.set()
        reader.join(timeout=5)
    assert len(replies) == len(want)
    wrong = [(w, r) for w, r in zip(want, replies, strict=True) if not r.startswith(w)]
    assert not wrong, wrong[:5]
