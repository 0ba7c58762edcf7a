"""Stone counter serial protocol, version 2: framing, CRC, parsing, display state and rendering.

The binding specification is ``firmware_bridge/PROTOCOL.md``; this module is its Python mirror, used
by the host client, the emulator and the tests (and, through ``render``, to check the firmware's
frame buffer).

* A frame is ``$`` BODY ``*`` CRC ``\\n``; BODY is printable ASCII without ``$`` or ``*``, fields
  separated by ``,``; CRC is CRC-16/CCITT-FALSE of BODY as 4 upper-case hex digits.
* Longest frame (``$`` to ``\\n`` inclusive): host → device 96 bytes, device → host 600 bytes.
* ``parse_frame`` checks a frame completely — CRC, field count, numbers, value ranges — and raises
  ``FrameError(reason, seq)`` with the ``NAK`` reason (``crc``, ``parse``, ``range``, ``unknown``,
  ``long``) and the sequence number that could be read from it (else 0).
* Colours are (R, G, B) tuples of 0-255 after brightness scaling, in strip order.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass

PROTOCOL_VERSION = 2
FIRMWARE_VERSION = "2.0.0"
MAX_HOST_FRAME = 96
"""Longest host → device frame in bytes, ``$`` to ``\\n`` inclusive."""
MAX_DEVICE_FRAME = 600
"""Longest device → host frame in bytes, ``$`` to ``\\n`` inclusive."""
MAX_SEATS = 8
"""Seats a strip can have: eight fit Bagaji, seven Hachi-hachi."""
MAX_SEQ = 65535
BUTTON_KINDS = ("P", "L")
"""``P``: a press released within 1 s; ``L``: held for 1 s."""
NAK_REASONS = ("crc", "parse", "range", "unknown", "long")
USB_POWER_LIMIT_MA = 450
"""The default current budget of the strip: a USB port's 500 mA less about 50 mA for the board."""
LED_IDLE_MA = 1
"""The current model (PROTOCOL.md "Current budget"): each WS2812B draws about 1 mA when dark ..."""
LED_CHANNEL_MA = 20
"""... and about 20 mA more per colour channel at 255, in proportion to the channel's value."""

GREEN = (0, 255, 0)
RED = (255, 0, 0)
BLUE = (0, 0, 64)
AMBER = (255, 160, 0)
WHITE = (255, 255, 255)
OFF = (0, 0, 0)

Rgb = tuple[int, int, int]

_INT = re.compile(r"-?[0-9]+\Z")
_INT_B = re.compile(rb"-?[0-9]+\Z")
_HEX4_B = re.compile(rb"[0-9A-F]{4}\Z")
_HEXBUF = re.compile(r"(?:[0-9A-F]{6})*\Z")
_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)*\Z")


class FrameError(ValueError):
    """A frame that is refused: ``reason`` is the ``NAK`` reason, ``seq`` the frame's seq or 0."""

    def __init__(self, reason: str, seq: int = 0, detail: str = "") -> None:
        self.reason = reason
        self.seq = seq
        self.detail = detail
        super().__init__(f"{reason} (seq {seq}){': ' + detail if detail else ''}")


# --------------------------------------------------------------------------- values
@dataclass(frozen=True)
class Layout:
    """The strip's layout, fixed when the firmware is compiled."""

    seats: int = 8
    """Seats on the strip, 1-8."""
    leds_per_seat: int = 10
    """LEDs per seat: a seat's value runs from ``-leds_per_seat`` to ``+leds_per_seat``."""
    pool_leds: int = 10
    """LEDs of the shared pool (0 for none)."""
    max_brightness: int = 64
    """Brightness ceiling 0-255: how bright the strip may look."""
    power_limit_ma: int = USB_POWER_LIMIT_MA
    """Current budget of the strip in mA; the device dims what it shows to stay within it."""

    def __post_init__(self) -> None:
        if not 1 <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be 1-{MAX_SEATS}, not {self.seats}")
        if not 1 <= self.leds_per_seat <= 255:
            raise ValueError(f"leds_per_seat must be 1-255, not {self.leds_per_seat}")
        if not 0 <= self.pool_leds <= 255:
            raise ValueError(f"pool_leds must be 0-255, not {self.pool_leds}")
        if not 0 <= self.max_brightness <= 255:
            raise ValueError(f"max_brightness must be 0-255, not {self.max_brightness}")
        if not self.led_count * LED_IDLE_MA < self.power_limit_ma <= 65535:
            raise ValueError(
                f"power_limit_ma must exceed the strip's idle {self.led_count * LED_IDLE_MA} mA"
                f" and be at most 65535, not {self.power_limit_ma}"
            )

    @property
    def led_count(self) -> int:
        """LEDs on the strip: seats, pool, then one status LED."""
        return self.seats * self.leds_per_seat + self.pool_leds + 1

    def initial_state(self) -> DisplayState:
        """The state before the first ``SET``: everything 0 at the brightness limit."""
        return DisplayState((0,) * self.seats, 0, 0, self.max_brightness)

    def check(self, state: DisplayState) -> str | None:
        """Why ``state`` does not fit this layout (``None`` when it fits)."""
        if len(state.values) > self.seats:
            return f"{len(state.values)} seat values for {self.seats} seats"
        if state.pool > self.pool_leds:
            return f"pool {state.pool} exceeds {self.pool_leds} pool LEDs"
        for seat, v in enumerate(state.values, start=1):
            if abs(v) > self.leds_per_seat:
                return f"seat {seat} value {v} outside ±{self.leds_per_seat}"
        return None


@dataclass(frozen=True)
class DisplayState:
    """The whole display state that one ``SET`` carries."""

    values: tuple[int, ...]
    """Each seat's value from seat 1, 1-8 of them; seats beyond these are dark."""
    pool: int = 0
    """Stones in the shared pool, 0-``pool_leds``."""
    turn: int = 0
    """The seat to act, 1-8 (0: none)."""
    brightness: int = 255
    """The host's wish 0-255; the device uses ``min(brightness, max_brightness)``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(int(v) for v in self.values))
        if not 1 <= len(self.values) <= MAX_SEATS:
            raise ValueError(f"a state has 1-{MAX_SEATS} seat values, not {len(self.values)}")
        if any(abs(v) > 255 for v in self.values):
            raise ValueError(f"seat values must be within ±255: {self.values}")
        if not 0 <= self.pool <= 255:
            raise ValueError(f"pool must be 0-255, not {self.pool}")
        if not 0 <= self.turn <= MAX_SEATS:
            raise ValueError(f"turn must be 0-{MAX_SEATS}, not {self.turn}")
        if not 0 <= self.brightness <= 255:
            raise ValueError(f"brightness must be 0-255, not {self.brightness}")


HOST_KINDS = ("HELLO", "SET", "PING", "QUERY", "TEST", "ACK")
"""Frames the host sends (the device answers any other type with ``NAK,seq,boot,unknown``)."""
DEVICE_KINDS = ("HELLO", "ACK", "NAK", "BOOT", "BTN", "FB")
"""Frames the device sends."""


@dataclass(frozen=True)
class Frame:
    """One parsed frame.

    ``args`` holds the fields after the seq, typed per kind. From the host:

    * ``HELLO``: ``(proto,)``
    * ``SET``: ``(brightness, turn, pool, v1, ..., vN)``
    * ``PING``, ``QUERY``: ``()``; ``ACK`` (seq: the press acknowledged): ``()``
    * ``TEST``: ``("on",)`` or ``("off",)``

    From the device, each with the boot counter (``Frame.boot``):

    * ``HELLO``: ``(fw, proto, boot, seats, leds_per_seat, pool_leds, max_brightness,
      power_limit_ma, press)``
    * ``ACK``: ``(boot,)``; ``NAK``: ``(boot, reason)``
    * ``BOOT`` (seq 0): ``(fw, proto, boot)``
    * ``BTN`` (seq: the press number): ``(boot, button, kind)``
    * ``FB``: ``(boot, link, hex)`` with link 0 or 1
    """

    kind: str
    seq: int
    args: tuple[int | str, ...] = ()

    @property
    def body(self) -> str:
        """The frame's BODY text."""
        return ",".join([self.kind, str(self.seq), *(str(a) for a in self.args)])

    def encode(self) -> bytes:
        return encode_frame(self.body)

    @property
    def is_hello_reply(self) -> bool:
        return self.kind == "HELLO" and len(self.args) == 9

    @property
    def boot(self) -> int | None:
        """The device's boot counter, carried by every device frame (None for a host frame)."""
        if self.kind in ("BOOT", "HELLO") and len(self.args) >= 3:
            return int(self.args[2])
        if self.kind in ("ACK", "NAK", "BTN", "FB") and self.args:
            return int(self.args[0])
        return None

    @property
    def press(self) -> int:
        """``HELLO`` reply: the press the host should expect next (the oldest unacknowledged, or
        the next one); ``BTN``: this press's number."""
        if self.is_hello_reply:
            return int(self.args[8])
        if self.kind == "BTN":
            return self.seq
        raise ValueError(f"{self.kind} carries no press number")

    def state(self) -> DisplayState:
        """The display state of a ``SET`` frame."""
        if self.kind != "SET":
            raise ValueError(f"{self.kind} carries no display state")
        b, turn, pool, *values = self.args
        return DisplayState(tuple(int(v) for v in values), int(pool), int(turn), int(b))

    def layout(self) -> Layout:
        """The layout announced by a device's ``HELLO`` reply."""
        if not self.is_hello_reply:
            raise ValueError("only a device's HELLO reply carries a layout")
        seats, lps, pool, maxb, power = (int(a) for a in self.args[3:8])
        return Layout(seats, lps, pool, maxb, power)

    def leds(self) -> tuple[Rgb, ...]:
        """The LED colours of an ``FB`` frame, in strip order."""
        if self.kind != "FB":
            raise ValueError(f"{self.kind} carries no frame buffer")
        return decode_leds(str(self.args[2]))


# --------------------------------------------------------------------------- framing
def crc16(body: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR)."""
    return binascii.crc_hqx(body, 0xFFFF)


def _check_body(body: str) -> None:
    for ch in body:
        if not 0x20 <= ord(ch) <= 0x7E or ch in "$*":
            raise ValueError(f"frame body must be printable ASCII without '$' or '*': {body!r}")


def encode_frame(body: str) -> bytes:
    """``$BODY*CRC\\n`` for ``body`` (printable ASCII without ``$`` or ``*``)."""
    _check_body(body)
    raw = body.encode("ascii")
    return b"$" + raw + b"*" + f"{crc16(raw):04X}".encode("ascii") + b"\n"


def _content(line: bytes) -> bytes:
    """``line`` without its ``\\n`` and one ``\\r`` before it (only one is ignored)."""
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    return line


def frame_length(line: bytes) -> int:
    """Length of a received frame in bytes, ``$`` to ``\\n``, not counting an ignored ``\\r``."""
    return len(_content(line)) + 1


def _leading_seq(body: bytes) -> int:
    """The seq a ``NAK`` reports: the second field when it is a number 1-65535, else 0."""
    parts = body.split(b",", 2)
    if len(parts) >= 2 and _INT_B.match(parts[1]):
        seq = int(parts[1])
        if 1 <= seq <= MAX_SEQ:
            return seq
    return 0


def parse_frame(
    line: bytes,
    *,
    sender: str = "device",
    layout: Layout | None = None,
    max_len: int | None = None,
) -> Frame:
    """Parse one received frame, ``$`` to ``\\n`` (the ``\\n`` and one ``\\r`` before it optional).

    ``sender`` is who sent it: ``"device"`` (the host parsing, limit ``MAX_DEVICE_FRAME``) or
    ``"host"`` (the device parsing, limit ``MAX_HOST_FRAME``, exactly as the firmware does);
    ``max_len`` overrides the limit. With ``layout`` a ``SET`` is also checked against the strip.
    Raises ``FrameError`` with the ``NAK`` reason and the seq that could be read (else 0), checking
    in PROTOCOL.md's order ("Receiving a frame"): length, ``*``, CRC, printable body, type, seq,
    field count, field syntax, value ranges.
    """
    if sender not in ("host", "device"):
        raise ValueError(f"sender is 'host' or 'device', not {sender!r}")
    if max_len is None:
        max_len = MAX_HOST_FRAME if sender == "host" else MAX_DEVICE_FRAME
    if frame_length(line) > max_len:
        raise FrameError("long", 0, f"{frame_length(line)} bytes, limit {max_len}")
    text = _content(line)
    if not text.startswith(b"$"):
        raise FrameError("parse", 0, "no '$' at the start")
    star = text.rfind(b"*")
    if star < 0:
        raise FrameError("parse", _leading_seq(text[1:]), "no '*' before the CRC")
    body, crc_text = text[1:star], text[star + 1 :]
    seq = _leading_seq(body)
    if not _HEX4_B.match(crc_text):
        raise FrameError("crc", seq, f"CRC field {crc_text!r} is not 4 upper-case hex digits")
    if int(crc_text, 16) != crc16(body):
        raise FrameError("crc", seq, f"CRC {crc_text.decode()} != {crc16(body):04X}")
    if any(not 0x20 <= b <= 0x7E or b in b"$*" for b in body):
        raise FrameError("parse", seq, "body is not printable ASCII")
    fields = body.decode("ascii").split(",")
    kind = fields[0]
    parsers = _HOST_PARSERS if sender == "host" else _DEVICE_PARSERS
    if kind not in parsers:
        raise FrameError("unknown", seq, f"{kind!r} is not a frame the {sender} sends")
    if len(fields) < 2:
        raise FrameError("parse", seq, f"{kind} has no seq")
    _number(fields[1], seq, "seq")
    lo, hi = _SEQ_RANGE.get((sender, kind), (1, MAX_SEQ))
    number = int(fields[1])
    if not lo <= number <= hi:
        raise FrameError("range", seq, f"seq {number} outside {lo}-{hi}")
    frame = Frame(kind, number, parsers[kind](fields, seq))
    if layout is not None and frame.kind == "SET":
        why = layout.check(frame.state())
        if why:
            raise FrameError("range", seq, why)
    return frame


def _number(text: str, seq: int, name: str) -> None:
    if not _INT.match(text):
        raise FrameError("parse", seq, f"{name} {text!r} is not a decimal integer")


def other_protocol_hello(line: bytes) -> tuple[str, int] | None:
    """``(fw, proto)`` when ``line`` is a device's ``HELLO`` reply, CRC intact, from a protocol
    version other than this one (whose other fields may differ): so that the host can say "update
    the firmware" rather than "not a stone counter". Else None."""
    text = _content(line)
    star = text.rfind(b"*")
    if not text.startswith(b"$HELLO,") or star < 0:
        return None
    body = text[1:star]
    if text[star + 1 :] != f"{crc16(body):04X}".encode():
        return None
    fields = body.split(b",")
    if len(fields) < 5 or not _VERSION.match(fields[2].decode("latin-1")):
        return None
    if not re.fullmatch(rb"[0-9]{1,3}", fields[3]) or int(fields[3]) == PROTOCOL_VERSION:
        return None
    return fields[2].decode("ascii"), int(fields[3])


# A field spec: (name, lo, hi) for a number, (name, ("word", ...)) for one of some words,
# (name, regex) for text such as a version.
_Spec = tuple


def _fields(f: list[str], seq: int, specs: tuple[_Spec, ...]) -> tuple[int | str, ...]:
    """The fields after the seq: their count, then every field's syntax, then the ranges."""
    if len(f) != 2 + len(specs):
        raise FrameError("parse", seq, f"{f[0]} has {len(f)} fields, expected {2 + len(specs)}")
    for text, spec in zip(f[2:], specs, strict=True):
        name, what = spec[0], spec[1]
        if isinstance(what, tuple):
            if text not in what:
                raise FrameError("parse", seq, f"{f[0]} {name} {text!r} is not one of {what}")
        elif isinstance(what, re.Pattern):
            if not what.match(text):
                raise FrameError("parse", seq, f"{f[0]} {name} {text!r}")
        else:
            _number(text, seq, name)
    out: list[int | str] = []
    for text, spec in zip(f[2:], specs, strict=True):
        if len(spec) == 3:
            name, lo, hi = spec
            value = int(text)
            if not lo <= value <= hi:
                raise FrameError("range", seq, f"{f[0]} {name} {value} outside {lo}-{hi}")
            out.append(value)
        else:
            out.append(text)
    return tuple(out)


def _int(text: str, seq: int, lo: int, hi: int, name: str) -> int:
    _number(text, seq, name)
    value = int(text)
    if not lo <= value <= hi:
        raise FrameError("range", seq, f"{name} {value} outside {lo}-{hi}")
    return value


def _args_set(f: list[str], seq: int) -> tuple[int | str, ...]:
    if len(f) < 6:
        raise FrameError("parse", seq, f"SET has {len(f)} fields, expected at least 6")
    # Every field must be a number before any range is checked (the firmware's order).
    for name, text in zip(("brightness", "turn", "pool"), f[2:5], strict=True):
        _number(text, seq, name)
    for i, text in enumerate(f[5:], start=1):
        _number(text, seq, f"seat {i} value")
    if len(f) - 5 > MAX_SEATS:
        raise FrameError("range", seq, f"{len(f) - 5} seat values, at most {MAX_SEATS}")
    brightness = _int(f[2], seq, 0, 255, "brightness")
    turn = _int(f[3], seq, 0, MAX_SEATS, "turn")
    pool = _int(f[4], seq, 0, 255, "pool")
    values = [_int(v, seq, -255, 255, f"seat {i} value") for i, v in enumerate(f[5:], start=1)]
    return (brightness, turn, pool, *values)


def _args_device_hello(f: list[str], seq: int) -> tuple[int | str, ...]:
    args = _fields(
        f,
        seq,
        (
            ("firmware version", _VERSION),
            ("proto", 0, 255),
            ("boot", 0, MAX_SEQ),
            ("seats", 1, MAX_SEATS),
            ("leds_per_seat", 1, 255),
            ("pool_leds", 0, 255),
            ("max_brightness", 0, 255),
            ("power_limit_ma", 1, 65535),
            ("press", 1, MAX_SEQ),
        ),
    )
    try:
        Layout(*args[3:8])  # type: ignore[arg-type]
    except ValueError as exc:
        raise FrameError("range", seq, str(exc)) from None
    return args


_BOOT = ("boot", 0, MAX_SEQ)
_HOST_PARSERS = {
    "HELLO": lambda f, seq: _fields(f, seq, (("proto", 0, 255),)),
    "SET": _args_set,
    "PING": lambda f, seq: _fields(f, seq, ()),
    "QUERY": lambda f, seq: _fields(f, seq, ()),
    "TEST": lambda f, seq: _fields(f, seq, (("state", ("on", "off")),)),
    "ACK": lambda f, seq: _fields(f, seq, ()),
}
_DEVICE_PARSERS = {
    "HELLO": _args_device_hello,
    "ACK": lambda f, seq: _fields(f, seq, (_BOOT,)),
    "NAK": lambda f, seq: _fields(f, seq, (_BOOT, ("reason", NAK_REASONS))),
    "BOOT": lambda f, seq: _fields(f, seq, (("firmware version", _VERSION), ("proto", 0, 255), _BOOT)),
    "BTN": lambda f, seq: _fields(f, seq, (_BOOT, ("button", 0, MAX_SEATS), ("kind", BUTTON_KINDS))),
    "FB": lambda f, seq: _fields(f, seq, (_BOOT, ("link", 0, 1), ("frame buffer", _HEXBUF))),
}
_SEQ_RANGE = {("device", "BOOT"): (0, 0), ("device", "NAK"): (0, MAX_SEQ)}
"""Seq ranges other than 1-65535: ``BOOT`` answers nothing (0); a ``NAK`` may not know the seq."""


# --------------------------------------------------------------------------- frame bodies
def hello_body(seq: int, proto: int = PROTOCOL_VERSION) -> str:
    return f"HELLO,{seq},{proto}"


def set_body(seq: int, state: DisplayState) -> str:
    """``SET,seq,brightness,turn,pool,v1,…,vN``: the whole display state."""
    values = ",".join(str(v) for v in state.values)
    return f"SET,{seq},{state.brightness},{state.turn},{state.pool},{values}"


def hello_reply_body(
    seq: int, fw: str, proto: int, boot: int, layout: Layout, press: int = 1
) -> str:
    return (
        f"HELLO,{seq},{fw},{proto},{boot},{layout.seats},{layout.leds_per_seat},"
        f"{layout.pool_leds},{layout.max_brightness},{layout.power_limit_ma},{press}"
    )


def press_add(press: int, k: int) -> int:
    """The press number ``k`` after ``press`` (1-65535, then 1 again; 0 is never used)."""
    return (press - 1 + k) % MAX_SEQ + 1


def press_distance(a: int, b: int) -> int:
    """How many presses from ``a`` forward to ``b`` (0-65534)."""
    return (b - a) % MAX_SEQ


def encode_leds(leds: tuple[Rgb, ...]) -> str:
    """``RRGGBB`` upper-case hex per LED, in strip order."""
    return "".join(f"{r:02X}{g:02X}{b:02X}" for r, g, b in leds)


def decode_leds(text: str) -> tuple[Rgb, ...]:
    if not _HEXBUF.match(text):
        raise ValueError("frame buffer is not RRGGBB upper-case hex per LED")
    return tuple(
        (int(text[i : i + 2], 16), int(text[i + 2 : i + 4], 16), int(text[i + 4 : i + 6], 16))
        for i in range(0, len(text), 6)
    )


class FrameSplitter:
    """Cuts a received byte stream into frames, ``$`` up to and including ``\\n``.

    The same state machine as the firmware's receiver (``proto_rx_byte``): bytes outside a frame
    are ignored; a ``$`` always starts a new frame (a partial one is dropped). A frame that grows
    past ``max_len`` bytes stops being stored: its end (``\\n``) returns its first ``max_len + 1``
    bytes and the ``\\n``, which ``parse_frame`` refuses as ``long`` (whatever those bytes are,
    even ``\\r``), once per over-long frame, as the device answers it with one ``NAK,0,long``.

    The buffer never holds more than ``max_len + 1`` bytes, and each byte fed is looked at a
    bounded number of times (``bytes.find`` for ``$`` and ``\\n``), so any input, such as ``$``
    followed by endless ``\\r``, is split in time linear in its length.
    """

    def __init__(self, max_len: int = MAX_DEVICE_FRAME) -> None:
        self.max_len = max_len
        self._buf = bytearray()
        self._in_frame = False
        self._too_long = False

    @property
    def buffered(self) -> int:
        """Bytes held for the frame being received (at most ``max_len + 1``)."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        if not isinstance(data, bytes):
            data = bytes(data)
        i, n = 0, len(data)
        next_dollar = data.find(b"$")
        while i < n:
            if next_dollar != -1 and next_dollar < i:
                next_dollar = data.find(b"$", i)
            if not self._in_frame:
                if next_dollar == -1:
                    break  # noise up to the end
                self._start()
                i = next_dollar + 1
                continue
            newline = data.find(b"\n", i, next_dollar if next_dollar != -1 else n)
            stop = newline if newline != -1 else (next_dollar if next_dollar != -1 else n)
            if not self._too_long and stop > i:
                room = self.max_len + 1 - len(self._buf)
                self._buf += data[i : min(stop, i + room)]
                # The firmware stores up to max_len bytes ('$' included); one byte more marks
                # the frame as too long and is kept, so that the frame reads as too long.
                if len(self._buf) > self.max_len:
                    self._too_long = True
            if stop == n:
                break
            if newline != -1 and stop == newline:
                out.append(bytes(self._buf) + b"\n")
                self._buf = bytearray()
                self._in_frame = self._too_long = False
                i = stop + 1
            else:  # a '$': the partial frame is dropped and a new one starts
                self._start()
                i = stop + 1
        return out

    def _start(self) -> None:
        self._buf = bytearray(b"$")
        self._in_frame = True
        self._too_long = False


# --------------------------------------------------------------------------- rendering
def _scale(colour: Rgb, b: int) -> Rgb:
    return (colour[0] * b // 255, colour[1] * b // 255, colour[2] * b // 255)


def power_level(layout: Layout, sum255: int) -> int:
    """The highest level 0-255 that keeps LEDs whose unscaled channels add up to ``sum255`` within
    the layout's current budget (the firmware's ``proto_power_level``, same integer arithmetic)."""
    budget = layout.power_limit_ma - layout.led_count * LED_IDLE_MA
    if budget <= 0:
        return 0
    if sum255 == 0:
        return 255
    return min(255, budget * 65025 // (LED_CHANNEL_MA * sum255))


def estimated_ma(leds: tuple[Rgb, ...]) -> float:
    """The current model: ``LED_IDLE_MA`` per LED plus ``LED_CHANNEL_MA`` per channel at 255."""
    return len(leds) * LED_IDLE_MA + sum(sum(c) for c in leds) * LED_CHANNEL_MA / 255


def render(
    layout: Layout,
    state: DisplayState,
    link_alive: bool,
    blink_on: bool = True,
    test: bool = False,
) -> tuple[Rgb, ...]:
    """The frame buffer, in strip order, exactly as PROTOCOL.md "Frame buffer and colours" says.

    Seats (``leds_per_seat`` each), then the pool, then the status LED. ``blink_on`` is the "on"
    half-second of the link-lost blink. Under ``test`` every LED is white at ``max_brightness``.
    Seats beyond the state's values are dark, turn colour included. Then the current budget: the
    level drops below ``min(brightness, max_brightness)`` where the estimated draw needs it
    (the status LED counted lit in both blink phases, so the blink never dims the rest).
    """
    if test:
        leds = [WHITE] * layout.led_count
        level = layout.max_brightness
        status = 3 * 255
    else:
        level = min(state.brightness, layout.max_brightness)
        leds = []
        for seat in range(1, layout.seats + 1):
            if seat > len(state.values):
                leds.extend([OFF] * layout.leds_per_seat)
                continue
            v = state.values[seat - 1]
            lit, colour = (v, GREEN) if v > 0 else (-v, RED)
            rest = BLUE if state.turn == seat else OFF
            leds.extend(colour if i < lit else rest for i in range(layout.leds_per_seat))
        leds.extend(AMBER if i < state.pool else OFF for i in range(layout.pool_leds))
        leds.append(GREEN if link_alive else (RED if blink_on else OFF))
        status = 255
    level = min(level, power_level(layout, sum(sum(c) for c in leds[:-1]) + status))
    return tuple(_scale(c, level) for c in leds)
