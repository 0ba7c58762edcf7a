"""Edge-case host frames for ``firmware_bridge/vectors/edges.tsv``, shared by both parsers.

The emulator's parser (``protocol.parse_frame(sender="host")`` behind ``FrameSplitter``) and the
firmware's (``proto_rx_byte`` and ``proto_parse``, compiled natively by ``make test``) must agree
on every frame a host could send, including the odd ones: seq 0 and 65536, over-long numbers,
leading zeros, signs, versions above 255, too many or too few fields, a parse error and a range
error in one frame (which is reported), bad CRC text, bytes outside printable ASCII, ``\\r`` and
``$`` in odd places, lengths around the 96-byte limit. Nearly all carry a correct CRC, so that
they reach the parser.

``python -m firmware_bridge.edge_vectors`` rewrites ``edges.tsv``; the results in it are what
``receive`` (this module, the Python side) gives, and ``tests/test_device_protocol.py`` checks that
the file is current, ``tests/test_firmware_native.py`` that the firmware gives the same.

File format, one frame per line, TAB-separated: FRAME, RESULTS.

* FRAME: the bytes the device receives before a final ``\\n``, printable ASCII as is, any other
  byte and ``\\`` as ``\\xHH``.
* RESULTS: what the device does with each frame that ends, in order, separated by ``;``:
  ``OK,KIND,SEQ`` (taken) or ``NAK,SEQ,REASON`` (the ``NAK`` it answers); ``NONE`` when no frame
  ends. The layout is the default: 8 seats x 10 LEDs, 10 pool LEDs.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from firmware_bridge.protocol import (
    MAX_HOST_FRAME,
    FrameError,
    FrameSplitter,
    Layout,
    crc16,
    parse_frame,
)

PATH = Path(__file__).resolve().parent / "vectors" / "edges.tsv"
SEED = 37

NUMBERS = (
    "", "0", "-0", "00", "1", "01", "001", "0000000001", "-1", "+1", " 1", "1 ", "1a", "0x1",
    "-", "--1", "1-", "2", "7", "8", "9", "10", "11", "-10", "-11", "64", "127", "128", "-128",
    "255", "256", "-255", "-256", "999", "65535", "65536", "065535", "99999", "100000",
    "999999", "1000000", "1000001", "9999999", "4294967296", "99999999999999999999",
    "-99999999999999999999", "1.0", "1e3", "١",
)
"""Numeric field texts: well-formed, malformed, in range and beyond every range."""
WORDS = ("on", "off", "ON", "On", "", "onn", " on", "of", "off ", "1", "0")
KINDS = ("HELLO", "SET", "PING", "QUERY", "TEST", "ACK", "BOOT", "BTN", "NAK", "FB", "hello",
         "SETX", "", "SET ", " SET", "PIN", "ACK5")


def escape(data: bytes) -> str:
    return "".join(
        chr(b) if 0x20 <= b <= 0x7E and b != 0x5C else f"\\x{b:02X}" for b in data
    )


def unescape(text: str) -> bytes:
    return re.sub(
        rb"\\x([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]), text.encode("ascii")
    )


def receive(data: bytes, layout: Layout | None = None) -> str:
    """What the device makes of ``data`` + ``\\n``, in the RESULTS column's words."""
    layout = layout or Layout()
    out = []
    for line in FrameSplitter(MAX_HOST_FRAME).feed(data + b"\n"):
        try:
            frame = parse_frame(line, sender="host", layout=layout)
            out.append(f"OK,{frame.kind},{frame.seq}")
        except FrameError as exc:
            out.append(f"NAK,{exc.seq},{exc.reason}")
    return ";".join(out) or "NONE"


def _frame(body: bytes, crc: bytes | None = None) -> bytes:
    return b"$" + body + b"*" + (crc if crc is not None else f"{crc16(body):04X}".encode())


def _bodies() -> list[str]:
    """Systematic bodies: each field of each frame type through the edge values."""
    out: list[str] = []
    tails = {
        "HELLO": ["2"], "SET": ["255", "1", "7", "2", "1"], "PING": [], "QUERY": [],
        "TEST": ["on"], "ACK": [], "BOOT": ["2.0.0", "2", "7"], "BTN": ["7", "1", "P"],
        "NAK": ["7", "crc"], "FB": ["7", "1", "000000"],
    }
    for kind in KINDS:
        tail = tails.get(kind, [])
        for seq in NUMBERS:
            out.append(",".join([kind, seq, *tail]))
        out.append(kind)  # no seq at all
    for proto in NUMBERS:
        out.append(f"HELLO,3,{proto}")
    out += ["HELLO,3", "HELLO,3,2,", "HELLO,3,2,2", "HELLO,3,,2",
            "HELLO,3,2.0.0,2,7,8,10,10,64,450,1", "HELLO,x,256", "HELLO,0,x", "HELLO,0,256"]
    base = ["SET", "4", "255", "1", "7", "2", "-1"]
    for at in range(2, 7):
        for value in NUMBERS:
            fields = list(base)
            fields[at] = value
            out.append(",".join(fields))
    for n in range(0, 12):  # 0-11 seat values
        out.append(",".join(["SET", "5", "64", "0", "0", *["1"] * n]))
        out.append(",".join(["SET", "5", "64", "0", "0", *["1"] * n, "x"]))
        out.append(",".join(["SET", "5", "64", "0", "0", *["1"] * n, "11"]))
        out.append(",".join(["SET", "5", "64", "9", "0", *["1"] * n]))
        out.append(",".join(["SET", "5", "64", "0", "0", *["1"] * n, ""]))
    for word in WORDS:
        out.append(f"TEST,6,{word}")
    out += ["TEST,6", "TEST,6,on,on", "TEST,0,on", "TEST,x,maybe", "TEST,0,maybe"]
    for kind in ("PING", "QUERY", "ACK"):
        out += [f"{kind},7,", f"{kind},7,1", f"{kind},7,,", f"{kind},0,1", f"{kind},x,1",
                f"{kind},,", f"{kind},7,x"]
    # order of checks inside SET: parse (anywhere) beats range (anywhere)
    out += ["SET,8,256,9,11,11,x", "SET,8,x,9,11,11", "SET,8,256,x,11,11", "SET,8,256,9,x,11",
            "SET,0,x,0,0,1", "SET,0,256,0,0,1", "SET,65536,255,0,0,1", "SET,x,256,0,0,1",
            "SET,8,255,0,0,1,2,3,4,5,6,7,8,9,x", "SET,8,255,0,0,1,2,3,4,5,6,7,8,9,-",
            "SET,8,255,0,0,1,2,3,4,5,6,7,8,9,10", "SET,8,255,0,0,1,2,3,4,5,6,7,8,9,",
            "SET,8,256,0,0,1,2,3,4,5,6,7,8,9", "SET,8,255,0,0,-0,-00,00,0,0,0,0,0",
            "SET,08,255,0,0,1", "SET,-8,255,0,0,1", "SET,8,0255,08,010,010,-010"]
    return out


def _cases(rng: random.Random) -> list[bytes]:
    cases: list[bytes] = []
    bodies = _bodies()
    for body in bodies:
        cases.append(_frame(body.encode("utf-8")))
    # CRC text: lower case, short, long, not hex, missing, '*' in the body
    for body in (b"PING,9", b"SET,9,255,0,0,1", b"HELLO,9,2", b"FOO,9", b"PING,0", b"PING,x"):
        good = f"{crc16(body):04X}".encode()
        for crc in (good, good.lower(), good[:3], good + b"0", b"00000"[:4], b"GGGG", b"",
                    b" " + good[:3], good[:2] + b"\r" + good[3:], b"-123", b"*" + good):
            cases.append(_frame(body, crc))
        cases.append(b"$" + body)  # no '*'
        cases.append(b"$" + body + b"*" + good + b"*" + good)
        cases.append(_frame(body + b"*" + good))
        cases.append(_frame(body[:2] + b"*" + body[2:]))
    # bytes outside printable ASCII, with a CRC that matches them
    for byte in (0x00, 0x01, 0x09, 0x0D, 0x1F, 0x7F, 0x80, 0xA0, 0xFF):
        for body in (b"PING,10", b"SET,10,255,0,0,1", b"TEST,10,on"):
            for at in (0, 2, len(body) - 1, len(body)):
                cases.append(_frame(body[:at] + bytes([byte]) + body[at:]))
    # '\r' before '\n': one is ignored, two are not; '$' restarts; noise before '$'
    for body in (b"PING,11", b"SET,11,255,0,0,1"):
        frame = _frame(body)
        cases += [frame + b"\r", frame + b"\r\r", frame + b" ", b"\r" + frame, b"noise" + frame,
                  b"$PI" + frame, frame[:5] + b"$" + frame, b"\x00\xff\r" + frame, frame[:-2],
                  frame + b"$", b"$", b"", frame[:5] + b"\r" + frame[5:]]
    # lengths around the limit: '$' .. '\n' of 95, 96, 97 bytes, with and without '\r'
    for total in range(90, 100):
        for cr in (b"", b"\r"):
            head = b"SET,12,255,0,0,"
            pad = total - len(b"$") - len(head) - len(b"*XXXX") - 1 - len(b"1")
            if pad < 0:
                continue
            body = head + b"0" * pad + b"1"
            cases.append(_frame(body) + cr)
            body = b"PING,12," + b"0" * (total - 15)
            cases.append(_frame(body) + cr)
    cases.append(_frame(b"SET,13," + b"9" * 80))
    cases.append(_frame(b"A" * 600))
    # random mutations of valid frames, CRC recomputed: field swaps, inserts, deletes, bytes
    valid = [b"HELLO,14,2", b"SET,14,64,3,5,1,-2,3,0,10,-10,7,8", b"SET,14,255,0,0,0",
             b"PING,14", b"QUERY,14", b"TEST,14,off", b"ACK,14"]
    alphabet = b"0123456789-,+ x*.\r"
    for _ in range(2200):
        fields = rng.choice(valid).split(b",")
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(5)
            # mostly the fields after the type: a broken type only ever gives 'unknown'
            i = rng.randrange(1 if len(fields) > 1 and rng.random() < 0.95 else 0, len(fields))
            if op == 0:
                fields[i] = rng.choice(NUMBERS).encode("utf-8")
            elif op == 1:
                fields.insert(i, rng.choice(NUMBERS).encode("utf-8"))
            elif op == 2 and len(fields) > 1:
                del fields[i]
            elif op == 3 and fields[i]:
                j = rng.randrange(len(fields[i]))
                fields[i] = fields[i][:j] + bytes([rng.choice(alphabet)]) + fields[i][j + 1 :]
            else:
                fields[i] = fields[i] + bytes([rng.choice(alphabet)])
        body = b",".join(fields)
        if b"\r" in body and rng.random() < 0.5:
            body = body.replace(b"\r", b"")
        cases.append(_frame(body))
    seen: set[bytes] = set()
    unique = []
    for case in cases:
        if b"\n" not in case and case not in seen:
            seen.add(case)
            unique.append(case)
    return unique


def generate() -> str:
    rng = random.Random(SEED)
    lines = [
        "# Edge-case host frames and what the device makes of them (PROTOCOL.md, version 2).",
        "# Generated by `python -m firmware_bridge.edge_vectors` (see its docstring); do not edit.",
        "# FRAME<TAB>RESULTS: FRAME is received followed by '\\n' (non-printable bytes and '\\' as",
        "# \\xHH); RESULTS per frame ended: OK,KIND,SEQ or NAK,SEQ,REASON, ';'-separated, or NONE.",
    ]
    for case in _cases(rng):
        lines.append(f"{escape(case)}\t{receive(case)}")
    return "\n".join(lines) + "\n"


def rows(text: str | None = None) -> list[tuple[bytes, str]]:
    """(frame bytes, results) per line of ``edges.tsv``."""
    text = PATH.read_text(encoding="ascii") if text is None else text
    out = []
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        frame, results = line.split("\t")
        out.append((unescape(frame), results))
    return out


if __name__ == "__main__":
    PATH.write_text(generate(), encoding="ascii")
    print(f"{PATH}: {len(rows())} frames")
