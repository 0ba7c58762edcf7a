"""A Python stone counter on a pseudo-terminal: the device side of PROTOCOL.md, with faults.

The host opens ``Emulator.port``, a symbolic link (``/tmp/fudaba-emulator-XXXX/tty``) to the
current pty, through its real pyserial path. ``unplug()`` closes the pty and removes the link, so
the host's port fails and vanishes; ``replug()`` makes a new pty, points the link at it and resets
the device (boot counter + 1, state cleared, ``BOOT`` sent), so the host reopens the same path.

Device rules, as the firmware: ``BOOT`` after each reset (sent when the host has the port open);
every device frame carries the boot counter; ``HELLO`` reply with versions, boot counter, layout and
the press the host should expect; a ``SET`` is checked against the layout and applied whole or
refused (``NAK,seq,boot,range``); a repeated ``SET`` seq is acknowledged without change (``HELLO``
forgets the last seq); presses are numbered from 1 after each reset, sent at once, kept until the
host acknowledges them (cumulatively), up to 8 (a press while 8 wait is ignored), the oldest resent
every 250 ms; "link lost" after 3 s without a valid frame; ``QUERY`` answers ``FB`` from ``render``
with the LEDs as shown when it arrives (so after a silence it reports ``link`` 0).

Faults (``Faults``, one set per direction) act on whole frames: a dropped frame vanishes, a
corrupted one has one byte replaced by another value (which may break its framing), a delayed one
arrives up to ``max_delay`` s late (and so may overtake later frames).
With ``reset_on_open`` the device also resets whenever the host opens the port, like an Uno.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import shutil
import tempfile
import threading
import time
import tty
from collections import deque
from dataclasses import dataclass

from firmware_bridge.protocol import (
    FIRMWARE_VERSION,
    MAX_HOST_FRAME,
    MAX_SEQ,
    PROTOCOL_VERSION,
    DisplayState,
    Frame,
    FrameError,
    FrameSplitter,
    Layout,
    Rgb,
    encode_frame,
    encode_leds,
    hello_reply_body,
    parse_frame,
    press_add,
    render,
)

LINK_TIMEOUT = 3.0
"""Seconds without a valid frame after which the link counts as lost."""
BTN_RESEND = 0.25
BTN_QUEUE = 8
BOOT_DELAY = 0.05
"""Seconds from the host opening the port to ``BOOT`` (the time a bootloader would take)."""
_TICK = 0.01


@dataclass(frozen=True)
class Faults:
    """Fault probabilities for one direction, each per frame."""

    drop: float = 0.0
    corrupt: float = 0.0
    delay: float = 0.0
    max_delay: float = 0.3
    """A delayed frame arrives uniformly 0-``max_delay`` s late."""


@dataclass(frozen=True)
class Press:
    """A button event the emulated device generated."""

    boot: int
    seq: int
    """The press number (1, 2, ... after each reset)."""
    button: int
    kind: str


class Emulator:
    """A stone counter speaking PROTOCOL.md on a pty, run by one background thread."""

    def __init__(
        self,
        layout: Layout | None = None,
        *,
        to_device: Faults | None = None,
        to_host: Faults | None = None,
        fw_version: str = FIRMWARE_VERSION,
        proto: int = PROTOCOL_VERSION,
        boot: int = 0,
        reset_on_open: bool = False,
        seed: int | None = None,
    ) -> None:
        self.layout = layout or Layout()
        self.to_device = to_device or Faults()
        self.to_host = to_host or Faults()
        self.fw_version = fw_version
        self.proto = proto
        self.reset_on_open = reset_on_open
        self._rng = random.Random(seed)
        self._lock = threading.RLock()
        self._dir = tempfile.mkdtemp(prefix="fudaba-emulator-")
        self.port = os.path.join(self._dir, "tty")
        """The stable path the host opens: a link to the current pty."""
        self._master: int | None = None
        self._pty_path: str | None = None
        self._generation = 0
        self._host_open = False
        self._boot = boot
        self._presses_in: deque[tuple[int, str]] = deque()
        self._presses: list[Press] = []
        self._outgoing: list[tuple[float, bytes]] = []
        self._incoming: list[tuple[float, bytes]] = []
        self._ignored = 0
        self.frames_in = 0
        """Valid frames received."""
        self.bad_frames_in = 0
        self._reset_device(count=False)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ control
    def start(self) -> Emulator:
        """Plug in and run (no effect when running)."""
        if self._thread is None:
            self.replug()
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="stone-emulator", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Unplug, stop the thread and remove the port link."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        self.unplug()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def unplug(self) -> None:
        """Pull the cable: the pty closes and the port path vanishes."""
        with self._lock:
            if self._master is not None:
                os.close(self._master)
            self._master = None
            self._pty_path = None
            self._generation += 1
            self._host_open = False
            self._outgoing.clear()
            self._incoming.clear()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.port)

    def replug(self) -> None:
        """Plug the cable back in: a new pty behind the same path, and a device reset."""
        self.unplug()
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo or line editing before the host configures the port
        pty_path = os.ttyname(slave)
        os.close(slave)
        os.set_blocking(master, False)
        tmp = self.port + ".new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(pty_path, tmp)
        with self._lock:
            self._master = master
            self._pty_path = pty_path
            self._generation += 1
            os.replace(tmp, self.port)
            self._reset_device()

    def reset(self, *, send_boot: bool = True) -> None:
        """Press the reset button: the port stays, the device restarts and sends ``BOOT``
        (unless ``send_boot`` is False: the ``BOOT`` frame is lost on the way)."""
        with self._lock:
            self._reset_device()
            self._boot_at = time.monotonic() + BOOT_DELAY
            self._boot_pending = send_boot

    def press(self, button: int, kind: str = "P") -> None:
        """A button event: ``button`` 0 (undo) or 1-``seats``, ``kind`` ``P`` or ``L``. As on the
        device, one made while 8 wait unacknowledged is ignored (``ignored_presses``)."""
        if not 0 <= button <= self.layout.seats or kind not in ("P", "L"):
            raise ValueError(f"no such button event: {button} {kind}")
        with self._lock:
            self._presses_in.append((button, kind))

    # ------------------------------------------------------------------ inspection
    @property
    def pty_path(self) -> str | None:
        """The current pty (``/dev/pts/N``), None while unplugged."""
        return self._pty_path

    @property
    def plugged(self) -> bool:
        return self._master is not None

    @property
    def boot(self) -> int:
        return self._boot

    @property
    def state(self) -> DisplayState:
        """The last applied display state."""
        with self._lock:
            return self._state

    @property
    def test(self) -> bool:
        return self._test

    @property
    def link_alive(self) -> bool:
        return time.monotonic() - self._last_valid < LINK_TIMEOUT

    @property
    def unacked_buttons(self) -> int:
        """Presses waiting for the host's ``ACK`` (and presses not yet taken by the device)."""
        with self._lock:
            return len(self._btn_queue) + len(self._presses_in)

    @property
    def presses(self) -> list[Press]:
        """Every button event numbered and sent so far, in order."""
        with self._lock:
            return list(self._presses)

    @property
    def ignored_presses(self) -> int:
        """Button events ignored because 8 presses waited for the host's ``ACK``."""
        return self._ignored

    @property
    def applied_sets(self) -> int:
        """``SET`` frames applied since the last reset (repeats not counted)."""
        return self._applied

    def framebuffer(self) -> tuple[Rgb, ...]:
        """The LEDs now, as ``FB`` would report them."""
        with self._lock:
            return self._shown(time.monotonic())[0]

    # ------------------------------------------------------------------ device
    def _reset_device(self, count: bool = True) -> None:
        """Power-on: the EEPROM boot counter goes up by one, everything else starts afresh."""
        if count:
            self._boot = (self._boot + 1) % (MAX_SEQ + 1)
        self._state = self.layout.initial_state()
        self._test = False
        self._last_set_seq: int | None = None
        self._applied = 0
        self._next_press = 1
        self._btn_queue: deque[list] = deque()  # [press, body, sent_at], oldest first
        self._last_valid = time.monotonic()
        self._boot_pending = True
        self._boot_at = 0.0
        self._splitter = FrameSplitter(MAX_HOST_FRAME)
        self._fault_splitter = FrameSplitter(MAX_HOST_FRAME)

    def _emit(self, body: str, now: float) -> None:
        data = encode_frame(body)
        f = self.to_host
        if f.drop and self._rng.random() < f.drop:
            return
        if f.corrupt and self._rng.random() < f.corrupt:
            data = self._corrupt(data)
        due = now + self._rng.uniform(0, f.max_delay) if f.delay and self._rng.random() < f.delay else now
        self._outgoing.append((due, data))

    def _corrupt(self, data: bytes) -> bytes:
        i = self._rng.randrange(len(data))
        new = (data[i] + self._rng.randrange(1, 256)) % 256
        return data[:i] + bytes([new]) + data[i + 1 :]

    def _write_due(self, now: float) -> None:
        if self._master is None or not self._outgoing:
            return
        due = [d for d in self._outgoing if d[0] <= now]
        self._outgoing = [d for d in self._outgoing if d[0] > now]
        for _, data in sorted(due, key=lambda d: d[0]):
            try:
                os.write(self._master, data)
            except BlockingIOError:
                pass  # the host is not reading: a UART would lose it too
            except OSError:
                return

    def _received(self, data: bytes, now: float) -> None:
        f = self.to_device
        for line in self._splitter.feed(data):
            if f.drop and self._rng.random() < f.drop:
                continue
            if f.corrupt and self._rng.random() < f.corrupt:
                line = self._corrupt(line)
            if f.delay and self._rng.random() < f.delay:
                self._incoming.append((now + self._rng.uniform(0, f.max_delay), line))
                continue
            self._incoming.append((now, line))

    def _handle_due(self, now: float) -> None:
        due = sorted((d for d in self._incoming if d[0] <= now), key=lambda d: d[0])
        self._incoming = [d for d in self._incoming if d[0] > now]
        for _, raw in due:
            # A corrupted byte may have changed the framing: cut again.
            for line in self._fault_splitter.feed(raw):
                self._handle_line(line, now)

    def _handle_line(self, line: bytes, now: float) -> None:
        try:
            frame = parse_frame(line, sender="host", max_len=MAX_HOST_FRAME, layout=self.layout)
        except FrameError as exc:
            self.bad_frames_in += 1
            self._emit(f"NAK,{exc.seq},{self._boot},{exc.reason}", now)
            return
        self.frames_in += 1
        # QUERY reports the LEDs as shown when it arrives, before this frame revives the link.
        shown = self._shown(now)
        self._last_valid = now
        self._on_frame(frame, now, shown)

    def _shown(self, now: float) -> tuple[tuple[Rgb, ...], bool]:
        lost_for = now - self._last_valid - LINK_TIMEOUT
        alive = lost_for < 0
        blink_on = alive or int(lost_for / 0.5) % 2 == 0
        return render(self.layout, self._state, alive, blink_on, self._test), alive

    def _on_frame(self, frame: Frame, now: float, shown: tuple[tuple[Rgb, ...], bool]) -> None:
        seq, boot = frame.seq, self._boot
        if frame.kind == "HELLO":
            self._last_set_seq = None
            first = self._btn_queue[0][0] if self._btn_queue else self._next_press
            body = hello_reply_body(seq, self.fw_version, self.proto, boot, self.layout, first)
            self._emit(body, now)
        elif frame.kind == "SET":
            if seq != self._last_set_seq:
                self._state = frame.state()
                self._last_set_seq = seq
                self._applied += 1
            self._emit(f"ACK,{seq},{boot}", now)
        elif frame.kind == "PING":
            self._emit(f"ACK,{seq},{boot}", now)
        elif frame.kind == "TEST":
            self._test = frame.args[0] == "on"
            self._emit(f"ACK,{seq},{boot}", now)
        elif frame.kind == "QUERY":
            leds, alive = shown
            self._emit(f"FB,{seq},{boot},{int(alive)},{encode_leds(leds)}", now)
        elif frame.kind == "ACK":
            # Cumulative: every press up to this one, when this one is waiting.
            waiting = [b[0] for b in self._btn_queue]
            if seq in waiting:
                for _ in range(waiting.index(seq) + 1):
                    self._btn_queue.popleft()

    def _buttons(self, now: float, send: bool) -> None:
        """Numbers and queues new presses (whether or not a host listens, as the device does:
        what it sends with no host is lost), and resends the oldest when due."""
        while self._presses_in:
            button, kind = self._presses_in.popleft()
            if len(self._btn_queue) >= BTN_QUEUE:
                self._ignored += 1  # no number, never sent: the host sees no gap
                continue
            press = self._next_press
            self._next_press = press_add(press, 1)
            self._presses.append(Press(self._boot, press, button, kind))
            body = f"BTN,{press},{self._boot},{button},{kind}"
            self._btn_queue.append([press, body, now])
            if send:
                self._emit(body, now)
        if send and self._btn_queue and now - self._btn_queue[0][2] >= BTN_RESEND:
            self._emit(self._btn_queue[0][1], now)
            self._btn_queue[0][2] = now

    def _run(self) -> None:
        poller_fd = None
        poller = select.poll()
        while not self._stop.is_set():
            with self._lock:
                fd, generation = self._master, self._generation
            if fd is None:
                self._stop.wait(_TICK)
                continue
            if fd != poller_fd:
                poller = select.poll()
                poller.register(fd, select.POLLIN)
                poller_fd = fd
            events = poller.poll(_TICK * 1000)
            with self._lock:
                if generation != self._generation:
                    poller_fd = None
                    continue
                now = time.monotonic()
                hup = any(ev & (select.POLLHUP | select.POLLERR) for _, ev in events)
                if hup:
                    self._host_open = False
                    self._outgoing.clear()
                elif not self._host_open:
                    self._host_open = True
                    if self.reset_on_open:
                        self._reset_device()
                    self._boot_at = now + BOOT_DELAY
                if any(ev & select.POLLIN for _, ev in events):
                    try:
                        data = os.read(fd, 4096)
                    except (BlockingIOError, OSError):
                        data = b""
                    self._received(data, now)
                if self._host_open:
                    if self._boot_pending and now >= self._boot_at:
                        self._boot_pending = False
                        self._emit(f"BOOT,0,{self.fw_version},{self.proto},{self._boot}", now)
                    self._handle_due(now)
                    self._buttons(now, send=True)
                    self._write_due(now)
                else:
                    self._buttons(now, send=False)
            if hup:
                self._stop.wait(_TICK)
