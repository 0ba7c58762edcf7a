"""The stone counter firmware on a simulated ATmega328P, shared by the tests that drive it
(tests/test_firmware_sim.py, tests/test_counter_firmware.py; the fixtures ``built`` and ``sim`` are
in tests/conftest.py): the build, the simavr harness, the client on its pty, raw frames. The mark
``SKIP`` skips where the AVR toolchain or simavr is missing."""

from __future__ import annotations

import fcntl
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

serial = pytest.importorskip("serial")

from firmware_bridge.client import StoneCounterClient  # noqa: E402
from firmware_bridge.protocol import (  # noqa: E402
    Frame,
    Layout,
    decode_leds,
    encode_frame,
    parse_frame,
)

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware_bridge" / "firmware"
ELF = FIRMWARE_DIR / "build" / "stone_counter.elf"
HARNESS = FIRMWARE_DIR / "build" / "simavr_harness"
LAYOUT = Layout(seats=8, leds_per_seat=10, pool_leds=10, max_brightness=64)
# Generous limits that only stop a hang; nothing here measures time.
WAIT = 10.0

_missing = [t for t in ("make", "avr-gcc", "cc", "pkg-config") if shutil.which(t) is None]
if not Path("/usr/include/simavr/sim_avr.h").exists():
    _missing.append("libsimavr-dev")
SKIP = pytest.mark.skipif(bool(_missing), reason=f"not installed: {', '.join(_missing)}")
"""The mark of every test that needs the toolchain and simavr."""


def build_firmware() -> None:
    """Build the firmware ELF and the simavr harness (make; nothing to do when they are current).

    The suite runs in several processes (pytest-xdist) and each may ask for the build: an exclusive
    lock on a file beside the build lets one ``make`` run at a time, the others then find it current."""
    (FIRMWARE_DIR / "build").mkdir(exist_ok=True)
    with open(FIRMWARE_DIR / "build" / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(
            ["make", "-C", str(FIRMWARE_DIR), "firmware", "harness"],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stdout + done.stderr


class Sim:
    """One harness process: the pty path, commands, and the strip as decoded from the data pin."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [str(HARNESS), str(ELF)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        first = self.proc.stdout.readline()
        assert first.startswith("PTY "), f"harness said {first!r}; stderr: {self._stderr()}"
        self.port = first.split()[1]
        self.lines: queue.Queue[str] = queue.Queue()
        self.strips: list[str] = []
        self.ws_errors: list[str] = []
        self.dropped: list[str] = []
        """Frames the harness lost on command ("drop TYPE")."""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        # The first strip update follows the power-up BOOT: let that banner pass before a client
        # opens the port, so the only BOOT a client sees is the one after its own reset.
        self.wait_strip(lambda leds: True)
        time.sleep(0.1)

    def _stderr(self) -> str:
        if self.proc.poll() is None:
            return "(running)"
        return self.proc.stderr.read()

    def _read(self) -> None:
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            with self._lock:
                if line.startswith("STRIP "):
                    self.strips.append(line[6:])
                elif line.startswith("WSERR"):
                    self.ws_errors.append(line)
                elif line.startswith("DROPPED "):
                    self.dropped.append(line[8:])
            self.lines.put(line)

    def command(self, cmd: str) -> None:
        """Send a command and wait until the harness has applied it."""
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + WAIT
        while True:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            if line == f"OK {cmd}":
                return
            assert not line.startswith("ERR"), line
            assert not line.startswith("STOPPED"), f"{line}: {self._stderr()}"

    def strip(self) -> tuple[tuple[int, int, int], ...] | None:
        with self._lock:
            return decode_leds(self.strips[-1]) if self.strips else None

    def wait_strip(self, pred, timeout: float = WAIT) -> tuple[tuple[int, int, int], ...]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            leds = self.strip()
            if leds is not None and pred(leds):
                return leds
            time.sleep(0.02)
        raise AssertionError(f"strip never matched; last: {self.strip()}")

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def _open_here(path: str) -> bool:
    """Whether this process holds ``path`` open (the client's thread opened the port)."""
    real = os.path.realpath(path)
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == real:
                return True
        except OSError:
            continue
    return False


def connect(sim: Sim, *, reset: bool = True, **kwargs) -> StoneCounterClient:
    """A started client on the harness's pty. With ``reset`` the AVR is reset once the port is
    open, as a board resets when its port opens, so the handshake starts from ``BOOT``."""
    client = StoneCounterClient(sim.port, **kwargs)
    client.start()
    if reset:
        deadline = time.monotonic() + WAIT
        while not _open_here(sim.port):
            assert time.monotonic() < deadline, "the client never opened the port"
            time.sleep(0.005)
        time.sleep(0.05)  # past pyserial's input flush right after open
        sim.command("reset")
    assert client.wait_connected(WAIT), client.status()
    return client


def raw_port(sim: Sim):
    return serial.Serial(sim.port, 115200, timeout=0.2)


def raw_reply(ser, body: str | bytes, *, want: str | None = None) -> Frame:
    """Send a frame (or raw bytes) and return the next reply, skipping BOOT and BTN."""
    ser.write(encode_frame(body) if isinstance(body, str) else body)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        line = ser.readline()
        if not line.endswith(b"\n"):
            continue
        start = line.rfind(b"$")
        if start < 0:
            continue
        frame = parse_frame(line[start:])
        if frame.kind in ("BOOT", "BTN"):
            continue
        if want is None or frame.kind == want:
            return frame
    raise AssertionError(f"no reply to {body!r}")
