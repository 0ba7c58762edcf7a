"""Host client for the stone counter: one background thread owns the serial port.

Rules (PROTOCOL.md "Handshake and recovery"):

* Open the port for this program alone (an exclusive lock; another program holding it is
  reported as "in use"). Without a port, try each port with a stone counter's USB id and keep the
  first that answers ``HELLO`` as one (``ports.candidates``; one that does not is not opened again
  while it stays plugged in).
* Wait up to ``banner_timeout`` seconds for ``BOOT``,
  send ``HELLO`` and check the protocol version, then send the whole state with ``SET``.
* One host frame is in flight at a time; an unanswered one is resent every ``retry_interval``
  seconds, ``tries`` sends in all; then the link is broken: close, reopen after a back-off of
  0.5 s doubling to 8 s (back to 0.5 s after a good handshake), handshake again, resend the state.
* Host seq numbers run 1-65535 then 1 again, and go on across reconnections, so that a device
  that did not reset never mistakes a new ``SET`` for a repeat of the last one it applied.
* ``PING`` whenever nothing was sent for 1 s, so the device keeps its link-alive status.
* Every device frame carries its boot counter: a reply or press from another boot than the
  handshake's means the device reset unseen (its ``BOOT`` lost): handshake again, send the whole
  state again, and take presses from the new boot's numbering (``ClientStatus.resets``,
  ``on_reset``).
* Presses are numbered per boot; each is acknowledged (cumulatively) and delivered exactly once
  and in the order pressed (``on_button``, else the ``buttons`` queue): a press after a missing
  one waits for the device to resend the missing one first.

Callers never block: ``set_state`` and ``set_test`` only record what is wanted; the thread sends
the newest. ``query_framebuffer`` and the ``wait_*`` helpers block by design, up to their timeout.
Problems (a missing port, a malformed frame, a silent device) go to ``status().last_error`` and
the ``firmware_bridge.client`` logger; the thread keeps going.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import queue
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import serial

from firmware_bridge import ports
from firmware_bridge.ports import DEFAULT_USB_IDS
from firmware_bridge.protocol import (
    MAX_DEVICE_FRAME,
    MAX_SEQ,
    PROTOCOL_VERSION,
    DisplayState,
    Frame,
    FrameError,
    FrameSplitter,
    Layout,
    Rgb,
    encode_frame,
    hello_body,
    other_protocol_hello,
    parse_frame,
    press_add,
    press_distance,
    set_body,
)

log = logging.getLogger(__name__)

PING_AFTER = 1.0
"""Seconds without a sent frame after which the host sends ``PING``."""
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 8.0
_READ_SLICE = 0.1
_BEHIND = MAX_SEQ // 2
"""A press number this far or less before the next expected one is a resend of a delivered one."""


@dataclass(frozen=True)
class ButtonEvent:
    """A button event from the device, delivered exactly once and in the order pressed."""

    button: int
    """0: undo; 1-8: the seat buttons."""
    kind: str
    """``P``: a press released within 1 s; ``L``: held for 1 s."""
    boot: int
    """The device's boot counter when it was pressed."""
    seq: int
    """The press number: 1 for the first press after the device's reset, then 2, 3, ... (65535,
    then 1 again). Within one ``boot`` the numbers arrive without gaps or repeats."""


@dataclass(frozen=True)
class FrameBuffer:
    """The device's LED frame buffer as ``QUERY`` returns it."""

    link: bool
    """True while the device counts the link as alive."""
    leds: tuple[Rgb, ...]
    """(R, G, B) per LED in strip order, after brightness scaling."""


@dataclass(frozen=True)
class ClientStatus:
    """A snapshot of the client's view of the device."""

    connected: bool
    """True from a good handshake until the link breaks."""
    port: str | None
    """The port in use (or last tried)."""
    fw_version: str | None
    proto_version: int | None
    boot: int | None
    """The device's boot counter, from ``BOOT`` or the ``HELLO`` reply."""
    layout: Layout | None
    last_error: str | None
    """The latest problem, in words, with the port; kept after recovery."""
    state_acked: bool
    """True when the device has acknowledged the latest ``set_state``."""
    resets: int = 0
    """Device resets noticed since ``start`` (a handshake found another boot counter than the
    one before: reset button, brown-out, power lost or unplugged); the state was sent again."""


class LinkBroken(Exception):
    """The device stopped answering, or its port failed: reopen with back-off."""


class _NotACounter(LinkBroken):
    """The port answered no ``HELLO`` as a stone counter does (silent, or something else)."""


class _ProtocolMismatch(LinkBroken):
    """A stone counter that speaks another protocol version (its ``HELLO`` reply says which)."""


def _mismatch(fw: str, proto: int) -> str:
    return (
        f"the device speaks protocol {proto} (firmware {fw}); this host speaks"
        f" {PROTOCOL_VERSION}: update the firmware (firmware_bridge/firmware/README.md) or the host"
    )


_SERVED, _NOT_A_COUNTER, _FAILED = "served", "not a stone counter", "failed"


def _is_lock_error(exc: BaseException) -> bool:
    """Whether opening failed because another program holds the port's lock."""
    errno_ = getattr(exc, "errno", None)
    return errno_ in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY) or "lock" in str(exc).lower()


class _Rehandshake(Exception):
    """The device reset (a ``BOOT`` during a session): handshake again on the same port."""


@dataclass
class _Request:
    """A blocking helper's request, answered by the background thread."""

    kind: str
    done: threading.Event = field(default_factory=threading.Event)
    result: FrameBuffer | None = None
    cancelled: bool = False


@dataclass
class _Pending:
    """The one host frame in flight."""

    kind: str
    seq: int
    body: str
    sent_at: float = 0.0
    tries: int = 0
    state_gen: int = 0
    test_gen: int = 0
    request: _Request | None = None


class _Link:
    """An open port: framed writes, framed reads that a wake pipe can interrupt."""

    def __init__(self, ser: serial.SerialBase, path: str, wake_r: int) -> None:
        self.ser = ser
        self.path = path
        self.splitter = FrameSplitter(MAX_DEVICE_FRAME)
        self.frames: deque[bytes] = deque()
        self.last_sent = 0.0
        self.wake_r = wake_r
        try:
            self.fd: int | None = ser.fileno()
        except (AttributeError, NotImplementedError, OSError, serial.SerialException):
            self.fd = None

    def send(self, body: str) -> None:
        self.ser.write(encode_frame(body))
        self.last_sent = time.monotonic()

    def next_line(self, timeout: float) -> bytes | None:
        """The next received frame's bytes, waiting up to ``timeout`` s (less when woken)."""
        if self.frames:
            return self.frames.popleft()
        timeout = max(0.0, min(timeout, _READ_SLICE))
        if self.fd is not None:
            ready, _, _ = select.select([self.fd, self.wake_r], [], [], timeout)
            if self.wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self.wake_r, 4096)
            if self.fd not in ready:
                return None
            data = self.ser.read(max(1, self.ser.in_waiting))
            if not data:
                raise LinkBroken(f"{self.path}: port readable but returned no data (unplugged?)")
        else:
            if self.ser.timeout != timeout:
                self.ser.timeout = timeout
            data = self.ser.read(max(1, self.ser.in_waiting))
        self.frames.extend(self.splitter.feed(data))
        return self.frames.popleft() if self.frames else None


class StoneCounterClient:
    """Keeps the stone counter showing the newest display state; collects its button events."""

    def __init__(
        self,
        port: str | None = None,
        *,
        baudrate: int = 115200,
        banner_timeout: float = 2.5,
        retry_interval: float = 0.25,
        tries: int = 3,
        usb_ids: tuple[tuple[int, int], ...] = DEFAULT_USB_IDS,
        on_button: Callable[[ButtonEvent], None] | None = None,
        on_reset: Callable[[int], None] | None = None,
    ) -> None:
        """``port``: the serial port, or None to find the stone counter (``ports.candidates``).
        ``on_button``: called on the client's thread with each press, exactly once and in the
        order pressed; without it presses go to the ``buttons`` queue. ``on_reset``: called on
        the client's thread with the new boot counter when the device turns out to have reset
        (see ``ClientStatus.resets``), after the handshake and before the state is sent again.
        Callbacks must return quickly; what they raise is logged and ignored."""
        self._port = port
        self._on_button = on_button
        self._on_reset = on_reset
        self._baudrate = baudrate
        self._banner_timeout = banner_timeout
        self._retry_interval = retry_interval
        self._tries = max(1, tries)
        self._usb_ids = tuple(usb_ids)
        self.buttons: queue.Queue[ButtonEvent] = queue.Queue()

        self._cond = threading.Condition()
        self._state: DisplayState | None = None
        self._state_gen = 0
        self._acked_gen = 0
        self._refused_gen = 0
        self._test: bool | None = None
        self._test_gen = 0
        self._test_acked_gen = 0
        self._requests: deque[_Request] = deque()
        self._connected = False
        self._port_used: str | None = port
        self._fw: str | None = None
        self._proto: int | None = None
        self._boot: int | None = None
        self._layout: Layout | None = None
        self._last_error: str | None = None

        self._seq = 0
        self._rejected: set[tuple[object, ...]] = set()
        self._session_boot: int | None = None
        """The boot counter at the last handshake: presses are numbered per boot."""
        self._press_next: int | None = None
        """The press number to deliver next (None before the first handshake)."""
        self._resets = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)

    # ------------------------------------------------------------------ caller side
    def start(self) -> None:
        """Start the background thread (no effect when it runs)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="stone-counter", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and close the port (no effect when stopped)."""
        self._stop.set()
        self._wake()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=10.0)
            if thread.is_alive():
                log.error("stone counter thread did not stop within 10 s")

    def __enter__(self) -> StoneCounterClient:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def set_state(self, state: DisplayState) -> None:
        """Show ``state`` on the device; never blocks. The newest state wins."""
        if not isinstance(state, DisplayState):
            raise TypeError(f"set_state wants a DisplayState, not {type(state).__name__}")
        with self._cond:
            if state == self._state:
                return
            self._state = state
            self._state_gen += 1
        self._wake()

    def set_test(self, on: bool) -> None:
        """Light every LED white (``TEST,on``) or go back to the state; never blocks."""
        with self._cond:
            self._test = bool(on)
            self._test_gen += 1
        self._wake()

    def status(self) -> ClientStatus:
        with self._cond:
            return ClientStatus(
                connected=self._connected,
                port=self._port_used,
                fw_version=self._fw,
                proto_version=self._proto,
                boot=self._boot,
                layout=self._layout,
                last_error=self._last_error,
                state_acked=self._state_acked(),
                resets=self._resets,
            )

    def wait_connected(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for a handshake; True when connected."""
        with self._cond:
            return self._cond.wait_for(lambda: self._connected, timeout)

    def wait_acked(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s until the device has acknowledged the latest state."""
        with self._cond:
            return self._cond.wait_for(self._state_acked, timeout)

    def wait_test_acked(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s until the device has acknowledged the latest ``set_test``."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self._test is not None and self._test_acked_gen == self._test_gen, timeout
            )

    def query_framebuffer(self, timeout: float = 2.0) -> FrameBuffer:
        """The device's LED frame buffer; raises ``TimeoutError`` when none came in ``timeout`` s."""
        request = _Request("QUERY")
        with self._cond:
            self._requests.append(request)
        self._wake()
        if request.done.wait(timeout) and request.result is None:
            raise RuntimeError(f"the stone counter refused QUERY ({self.status().last_error})")
        if request.result is None:
            request.cancelled = True
            raise TimeoutError(
                f"no frame buffer from the stone counter within {timeout} s"
                f" (last error: {self.status().last_error or 'none'})"
            )
        return request.result

    # ------------------------------------------------------------------ thread side
    def _state_acked(self) -> bool:
        return self._state is not None and self._acked_gen == self._state_gen

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"!")

    def _error(self, message: str) -> None:
        log.warning("stone counter: %s", message)
        with self._cond:
            self._last_error = message
            self._cond.notify_all()

    def _set_connected(self, connected: bool) -> None:
        with self._cond:
            self._connected = connected
            if not connected:
                self._acked_gen = 0
                self._test_acked_gen = 0
            self._cond.notify_all()

    def _next_seq(self) -> int:
        self._seq = self._seq % MAX_SEQ + 1
        return self._seq

    def _run(self) -> None:
        backoff = BACKOFF_FIRST
        while not self._stop.is_set():
            if self._port is not None:
                with self._cond:
                    self._port_used = self._port
                if self._connect(self._port) == _SERVED:
                    backoff = BACKOFF_FIRST
            elif self._probe_candidates():
                backoff = BACKOFF_FIRST
            if self._stop.wait(backoff):
                break
            backoff = min(backoff * 2, BACKOFF_MAX)

    def _probe_candidates(self) -> bool:
        """Auto-detection: try each port with a stone counter's USB id until one answers ``HELLO``
        (then serve it until its link breaks). A port that answered no ``HELLO`` (a 3D printer,
        a board with other firmware) is not opened again while it stays plugged in. True when
        a stone counter was served."""
        listed = ports.candidates(self._usb_ids)
        self._rejected &= {p.key for p in listed}  # unplugged: may be something else next time
        tried: list[str] = []
        for port in listed:
            if self._stop.is_set():
                return False
            if port.key in self._rejected:
                continue
            with self._cond:
                self._port_used = port.device
            outcome = self._connect(port.device)
            if outcome == _SERVED:
                return True
            if outcome == _NOT_A_COUNTER:
                log.info("stone counter: %s (%s) is not one; not trying it again", port.device, port.usb_id)
                self._rejected.add(port.key)
            tried.append(port.device)
        ids = ", ".join(f"{v:04X}:{p:04X}" for v, p in self._usb_ids)
        if not listed:
            self._error(f"no stone counter found (no serial port with USB id {ids})")
        elif not tried:
            skipped = ", ".join(p.device for p in listed)
            self._error(
                f"no stone counter found: {skipped} did not answer HELLO as a stone counter"
                " (give the port explicitly, or unplug and plug it in again)"
            )
        return False

    def _open(self, path: str) -> serial.SerialBase:
        """Opens ``path`` for this program alone (an exclusive lock on POSIX; Windows ports are
        exclusive anyway), so that a second program cannot break the link by reading from it."""
        kwargs: dict[str, object] = {"baudrate": self._baudrate, "timeout": 0, "write_timeout": 1.0}
        if "://" not in path:
            kwargs["exclusive"] = True
        return serial.serial_for_url(path, **kwargs)

    def _connect(self, path: str) -> str:
        """One connection: open, handshake, serve. Returns ``_SERVED`` when a handshake
        succeeded, ``_NOT_A_COUNTER`` when the port answered no ``HELLO`` as a stone counter, else
        ``_FAILED`` (could not open, in use, broke before the handshake)."""
        try:
            ser = self._open(path)
        except (serial.SerialException, OSError, ValueError) as exc:
            if _is_lock_error(exc):
                self._error(
                    f"{path} is in use by another program (another fudaba, the Arduino IDE's"
                    " Serial Monitor, a terminal): close it; only one program can talk to the"
                    " stone counter"
                )
            else:
                self._error(f"cannot open {path}: {exc}")
            return _FAILED
        link = _Link(ser, path, self._wake_r)
        with self._cond:
            self._boot = None  # another device, or the same one reset, until BOOT or HELLO says
        outcome = _FAILED
        try:
            self._await_banner(link)
            while not self._stop.is_set():
                try:
                    self._handshake(link)
                    outcome = _SERVED
                    self._serve(link)
                except _Rehandshake:
                    self._set_connected(False)
                    continue
                break
        except _NotACounter as exc:
            outcome = _NOT_A_COUNTER
            self._error(f"{path}: {exc}")
        except LinkBroken as exc:
            self._error(f"{path}: {exc}")
        except (serial.SerialException, OSError) as exc:
            self._error(f"{path}: port failed: {exc}")
        finally:
            self._set_connected(False)
            with contextlib.suppress(Exception):
                ser.close()
        return outcome

    # ------------------------------------------------------------------ frames in
    def _receive(self, link: _Link, timeout: float) -> Frame | None:
        line = link.next_line(timeout)
        if line is None:
            return None
        try:
            return parse_frame(line, max_len=MAX_DEVICE_FRAME)
        except FrameError as exc:
            other = other_protocol_hello(line)
            if other is not None:
                fw, proto = other
                with self._cond:
                    self._fw, self._proto = fw, proto
                raise _ProtocolMismatch(_mismatch(fw, proto)) from None
            log.info("stone counter %s: dropped a malformed frame: %s: %r", link.path, exc, line[:80])
            return None

    def _on_device_frame(self, link: _Link, frame: Frame, in_session: bool) -> None:
        """``BOOT`` and ``BTN``, which may arrive at any time."""
        if frame.kind == "BOOT":
            fw, proto, boot = frame.args
            with self._cond:
                self._fw, self._proto, self._boot = str(fw), int(proto), int(boot)
            if in_session:
                log.info("stone counter %s reset (boot %s): handshake again", link.path, boot)
                raise _Rehandshake()
        elif frame.kind == "BTN":
            if not self._connected or self._press_next is None:
                return  # before the handshake: the device resends it
            if frame.boot != self._session_boot:
                # Pressed after a reset this session has not seen (its BOOT lost).
                if in_session:
                    self._reset_seen(link, f"a press from boot {frame.boot}")
                return
            press, expected = frame.seq, self._press_next
            if press == expected:
                link.send(f"ACK,{press}")
                self._press_next = press_add(press, 1)
                _, button, kind = frame.args
                self._deliver(ButtonEvent(int(button), str(kind), int(frame.boot), press))
            elif press_distance(press, expected) <= _BEHIND:
                # A resend of a press already delivered (its ACK was lost): acknowledge again,
                # up to the last one delivered, and deliver nothing.
                link.send(f"ACK,{press_add(expected, -1)}")
            else:
                # An earlier press is missing (lost on the way): take none out of order. The
                # device resends the oldest it keeps every 250 ms, then the rest in order.
                log.debug("stone counter: press %s before %s: waiting for %s", press, expected, expected)

    def _deliver(self, event: ButtonEvent) -> None:
        if self._on_button is None:
            self.buttons.put(event)
            return
        try:
            self._on_button(event)
        except Exception:  # a caller's bug must not stop the link
            log.exception("stone counter: on_button raised")

    def _reset_seen(self, link: _Link, how: str) -> None:
        log.info("stone counter %s reset without a BOOT (%s): handshake again", link.path, how)
        raise _Rehandshake()

    def _await_banner(self, link: _Link) -> None:
        deadline = time.monotonic() + self._banner_timeout
        while not self._stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            frame = self._receive(link, left)
            if frame is not None and frame.kind == "BOOT":
                self._on_device_frame(link, frame, in_session=False)
                return

    # ------------------------------------------------------------------ exchanges
    def _send(self, link: _Link, pending: _Pending) -> None:
        pending.tries += 1
        pending.sent_at = time.monotonic()
        link.send(pending.body)

    def _exchange(self, link: _Link, pending: _Pending) -> Frame:
        """Send ``pending`` until its reply comes; raises ``LinkBroken`` after the last try."""
        self._send(link, pending)
        while not self._stop.is_set():
            due = pending.sent_at + self._retry_interval
            now = time.monotonic()
            if now >= due:
                if pending.tries >= self._tries:
                    raise LinkBroken(f"no answer to {pending.kind} after {pending.tries} tries")
                self._send(link, pending)
                continue
            frame = self._receive(link, due - now)
            if frame is None:
                continue
            if frame.kind in ("BOOT", "BTN"):
                self._on_device_frame(link, frame, in_session=pending.kind != "HELLO")
                continue
            if frame.seq != pending.seq:
                continue  # a late reply to an earlier try or frame
            if pending.kind != "HELLO" and frame.boot != self._session_boot:
                # Every reply carries the boot counter: another one means the device reset
                # (and its BOOT was lost), so its display is blank and its presses start at 1.
                self._reset_seen(link, f"{frame.kind} from boot {frame.boot}")
            if frame.kind == "NAK" and frame.args[1] in ("crc", "parse", "long"):
                # Damaged on the way: another try, counted like a timeout.
                if pending.tries >= self._tries:
                    raise LinkBroken(f"{pending.kind} refused {pending.tries} times: {frame.args[1]}")
                self._send(link, pending)
                continue
            return frame
        raise LinkBroken("stopped")

    def _handshake(self, link: _Link) -> None:
        try:
            reply = self._exchange(link, _Pending("HELLO", (seq := self._next_seq()), hello_body(seq)))
        except LinkBroken as exc:
            if self._stop.is_set() or isinstance(exc, (_NotACounter, _ProtocolMismatch)):
                raise
            raise _NotACounter(f"{exc}: not a stone counter?") from None
        if not reply.is_hello_reply:
            raise _NotACounter(f"HELLO answered with {reply.body!r}: not a stone counter?")
        fw, proto, boot = str(reply.args[0]), int(reply.args[1]), int(reply.args[2])
        with self._cond:
            self._fw, self._proto, self._boot = fw, proto, boot
            self._layout = reply.layout()
        if proto != PROTOCOL_VERSION:
            raise _ProtocolMismatch(_mismatch(fw, proto))
        reset = self._session_boot is not None and boot != self._session_boot
        # Presses: within one boot, go on from the last one delivered (a press the device still
        # keeps was delivered if its ACK was lost); after a reset, or when the device is ahead
        # (another host took presses), from the one the device names.
        device_next = reply.press
        if (
            boot != self._session_boot
            or self._press_next is None
            or press_distance(device_next, self._press_next) > _BEHIND
        ):
            self._press_next = device_next
        self._session_boot = boot
        with self._cond:
            if reset:
                self._resets += 1
            self._connected = True
            self._refused_gen = 0
            self._cond.notify_all()
        log.info("stone counter on %s: firmware %s, protocol %s, boot %s", link.path, fw, proto, boot)
        if reset and self._on_reset is not None:
            try:
                self._on_reset(boot)
            except Exception:
                log.exception("stone counter: on_reset raised")

    def _next_work(self, link: _Link) -> _Pending | None:
        """The next host frame to send: a query, the test mode, the state, or a heartbeat."""
        with self._cond:
            while self._requests and self._requests[0].cancelled:
                self._requests.popleft()
            if self._requests:
                request = self._requests.popleft()
                seq = self._next_seq()
                return _Pending("QUERY", seq, f"QUERY,{seq}", request=request)
            if self._test is not None and self._test_acked_gen != self._test_gen:
                seq = self._next_seq()
                word = "on" if self._test else "off"
                return _Pending("TEST", seq, f"TEST,{seq},{word}", test_gen=self._test_gen)
            if (
                self._state is not None
                and self._acked_gen != self._state_gen
                and self._refused_gen != self._state_gen
            ):
                seq = self._next_seq()
                return _Pending("SET", seq, set_body(seq, self._state), state_gen=self._state_gen)
        if time.monotonic() - link.last_sent >= PING_AFTER:
            seq = self._next_seq()
            return _Pending("PING", seq, f"PING,{seq}")
        return None

    def _serve(self, link: _Link) -> None:
        while not self._stop.is_set():
            pending = self._next_work(link)
            if pending is None:
                wait = link.last_sent + PING_AFTER - time.monotonic()
                frame = self._receive(link, wait)
                if frame is not None and frame.kind in ("BOOT", "BTN"):
                    self._on_device_frame(link, frame, in_session=True)
                continue
            try:
                reply = self._exchange(link, pending)
            except (LinkBroken, _Rehandshake):
                if pending.request is not None and not pending.request.cancelled:
                    with self._cond:
                        self._requests.appendleft(pending.request)
                raise
            self._on_reply(link, pending, reply)

    def _on_reply(self, link: _Link, pending: _Pending, reply: Frame) -> None:
        if reply.kind == "NAK":
            reason = reply.args[1]
            if pending.kind == "SET":
                with self._cond:
                    self._refused_gen = pending.state_gen
                self._error(f"{link.path}: the device refused the state ({reason}): {pending.body}")
            else:
                self._error(f"{link.path}: the device refused {pending.body!r} ({reason})")
            if pending.request is not None:
                pending.request.done.set()
            return
        if pending.kind == "QUERY" and reply.kind == "FB" and pending.request is not None:
            _, link_alive, _ = reply.args
            pending.request.result = FrameBuffer(bool(link_alive), reply.leds())
            pending.request.done.set()
            return
        if reply.kind != "ACK":
            self._error(f"{link.path}: {pending.kind} answered with {reply.kind}")
            return
        with self._cond:
            if pending.kind == "SET":
                self._acked_gen = pending.state_gen
            elif pending.kind == "TEST":
                self._test_acked_gen = pending.test_gen
            self._cond.notify_all()
