"""Stone counter protocol: CRC and frame vectors, framing, parsing, state encoding, rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_bridge.protocol import (
    MAX_DEVICE_FRAME,
    MAX_HOST_FRAME,
    NAK_REASONS,
    USB_POWER_LIMIT_MA,
    DisplayState,
    Frame,
    FrameError,
    FrameSplitter,
    Layout,
    crc16,
    decode_leds,
    encode_frame,
    encode_leds,
    estimated_ma,
    frame_length,
    parse_frame,
    power_level,
    render,
    set_body,
)

VECTORS = Path(__file__).resolve().parents[1] / "firmware_bridge" / "vectors"


def _rows(name: str) -> list[list[str]]:
    lines = (VECTORS / name).read_text(encoding="ascii").splitlines()
    return [line.split("\t") for line in lines if not line.startswith("#")]


CRC_ROWS = _rows("crc.tsv")
FRAME_ROWS = _rows("frames.tsv")


@pytest.mark.parametrize(("body", "crc"), CRC_ROWS)
def test_crc_vectors(body, crc):
    assert f"{crc16(body.encode('ascii')):04X}" == crc


def test_crc_check_value():
    assert crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize(("body", "crc"), [r for r in CRC_ROWS if r[0] and r[0] != "123456789"])
def test_encode_frame_vectors(body, crc):
    assert encode_frame(body) == f"${body}*{crc}\n".encode("ascii")
    try:
        frame = parse_frame(encode_frame(body), sender="device")
    except FrameError:
        frame = parse_frame(encode_frame(body), sender="host")
    assert frame.body == body and frame.encode() == encode_frame(body)


@pytest.mark.parametrize(("direction", "text", "result"), FRAME_ROWS)
def test_frame_vectors(direction, text, result):
    host = direction == "H"
    kwargs = {"sender": "host", "layout": Layout()} if host else {"sender": "device"}
    line = text.encode("ascii") + b"\n"
    if result.startswith("OK,"):
        _, kind, seq = result.split(",")
        frame = parse_frame(line, **kwargs)
        assert (frame.kind, frame.seq) == (kind, int(seq))
        assert frame.encode() == line  # canonical text both ways
    else:
        _, seq, reason = result.split(",")
        with pytest.raises(FrameError) as err:
            parse_frame(line, **kwargs)
        assert (err.value.reason, err.value.seq) == (reason, int(seq))


def test_frame_vectors_cover_every_nak_reason():
    reasons = {r.split(",")[2] for _, _, r in FRAME_ROWS if r.startswith("NAK,")}
    assert reasons == set(NAK_REASONS)


def test_crlf_is_accepted_and_length_ignores_cr():
    assert parse_frame(b"$PING,4*A637\r\n", sender="host").seq == 4
    with pytest.raises(FrameError) as err:  # only one '\r' is ignored, as on the device
        parse_frame(b"$PING,4*A637\r\r\n", sender="host")
    assert (err.value.reason, err.value.seq) == ("crc", 4)
    body = "PING,4," + "0" * (MAX_HOST_FRAME - len("$PING,4,*XXXX\n"))
    line = encode_frame(body)
    assert len(line) == MAX_HOST_FRAME
    for at_limit in (line, line[:-1] + b"\r\n"):
        with pytest.raises(FrameError) as err:
            parse_frame(at_limit, sender="host")
        assert (err.value.reason, err.value.seq) == ("parse", 4)  # too many fields, not too long
    with pytest.raises(FrameError) as err:
        parse_frame(encode_frame(body + "0"), sender="host")
    assert (err.value.reason, err.value.seq) == ("long", 0)


@pytest.mark.parametrize(
    "bad", ["", "a*b", "$x", "no$dollar", "bad\n", "caf\u00e9", "tab\there"]
)
def test_encode_frame_refuses_bad_bodies(bad):
    if bad == "":
        assert encode_frame("") == b"$*FFFF\n"
        return
    with pytest.raises(ValueError):
        encode_frame(bad)


def test_parse_refuses_non_printable_body_with_valid_crc():
    body = b"PI\x01NG,4"
    line = b"$" + body + b"*" + f"{crc16(body):04X}".encode() + b"\n"
    with pytest.raises(FrameError) as err:
        parse_frame(line, sender="host")
    assert (err.value.reason, err.value.seq) == ("parse", 4)


def test_parse_without_dollar_or_star():
    with pytest.raises(FrameError, match="parse"):
        parse_frame(b"PING,4*A637\n", sender="host")
    with pytest.raises(FrameError, match="parse"):
        parse_frame(b"$PING,4\n", sender="host")


# --------------------------------------------------------------------------- splitter
def test_splitter_skips_noise_and_restarts_on_dollar():
    s = FrameSplitter(MAX_HOST_FRAME)
    out = s.feed(b"bootloader noise\x00\xff$PI$PING,4*A6")
    assert out == []
    out = s.feed(b"37\r\n junk $ACK,5*9754\n")
    assert out == [b"$PING,4*A637\r\n", b"$ACK,5*9754\n"]
    assert [parse_frame(x, sender="host").kind for x in out] == ["PING", "ACK"]


def test_splitter_cuts_overlong_frames_and_resyncs():
    s = FrameSplitter(MAX_HOST_FRAME)
    out = s.feed(b"$" + b"A" * 300 + b"\n$PING,4*A637\n")
    assert len(out) == 2
    with pytest.raises(FrameError) as err:
        parse_frame(out[0], sender="host")
    assert (err.value.reason, err.value.seq) == ("long", 0)
    assert parse_frame(out[1], sender="host").kind == "PING"


def test_splitter_byte_by_byte_equals_whole():
    stream = b"".join(encode_frame(f"PING,{i}") for i in range(1, 30))
    s1, s2 = FrameSplitter(), FrameSplitter()
    one = [f for b in stream for f in s1.feed(bytes([b]))]
    assert one == s2.feed(stream)
    assert [parse_frame(f, sender="host").seq for f in one] == list(range(1, 30))


# --------------------------------------------------------------------------- state encoding
def test_set_body_round_trip():
    state = DisplayState((3, -2, 0, 10), pool=4, turn=2, brightness=40)
    body = set_body(17, state)
    assert body == "SET,17,40,2,4,3,-2,0,10"
    frame = parse_frame(encode_frame(body), sender="host", layout=Layout())
    assert frame == Frame("SET", 17, (40, 2, 4, 3, -2, 0, 10))
    assert frame.state() == state


def test_state_values_become_a_tuple_and_are_checked():
    assert DisplayState([1, 2]).values == (1, 2)
    for bad in (
        {"values": ()},
        {"values": (0,) * 9},
        {"values": (1,), "brightness": 256},
        {"values": (1,), "turn": 9},
        {"values": (1,), "pool": -1},
    ):
        with pytest.raises(ValueError):
            DisplayState(**bad)


def test_layout_check_and_range_naks():
    small = Layout(seats=4, leds_per_seat=5, pool_leds=3, max_brightness=100)
    assert small.led_count == 4 * 5 + 3 + 1
    assert small.check(DisplayState((5, -5, 0, 1), pool=3)) is None
    assert "seat 2" in small.check(DisplayState((5, -6)))
    assert "pool" in small.check(DisplayState((0,), pool=4))
    assert "5 seat values" in small.check(DisplayState((0,) * 5))
    with pytest.raises(FrameError) as err:
        parse_frame(encode_frame("SET,9,255,0,0,0,0,0,0,0"), sender="host", layout=small)
    assert (err.value.reason, err.value.seq) == ("range", 9)


def test_hello_reply_layout_and_fb_leds():
    reply = parse_frame(encode_frame("HELLO,1,2.0.0,2,7,8,10,10,64,450,3"))
    assert reply.is_hello_reply and reply.layout() == Layout()
    assert reply.args[:3] == ("2.0.0", 2, 7) and reply.boot == 7 and reply.press == 3
    external = parse_frame(encode_frame("HELLO,1,2.0.0,2,7,8,10,10,255,2000,1")).layout()
    assert external == Layout(max_brightness=255, power_limit_ma=2000)
    fb = parse_frame(encode_frame("FB,5,9,1,00FF00FFA000"))
    assert fb.boot == 9 and fb.args[1] == 1
    assert fb.leds() == ((0, 255, 0), (255, 160, 0))
    assert decode_leds(encode_leds(((1, 2, 3), (254, 0, 171)))) == ((1, 2, 3), (254, 0, 171))


# --------------------------------------------------------------------------- render
def test_render_default_layout_colours_and_scaling():
    layout = Layout()
    state = DisplayState((3, -2, 0, 10), pool=4, turn=3, brightness=255)
    leds = render(layout, state, link_alive=True)
    assert len(leds) == 91
    b = 64  # min(255, max_brightness)
    green, red, blue = (0, 255 * b // 255, 0), (255 * b // 255, 0, 0), (0, 0, 64 * b // 255)
    amber, off = (255 * b // 255, 160 * b // 255, 0), (0, 0, 0)
    assert leds[0:10] == (green,) * 3 + (off,) * 7
    assert leds[10:20] == (red,) * 2 + (off,) * 8
    assert leds[20:30] == (blue,) * 10  # seat 3's turn, value 0
    assert leds[30:40] == (green,) * 10
    assert leds[40:80] == (off,) * 40  # seats 5-8 beyond the state's values
    assert leds[80:90] == (amber,) * 4 + (off,) * 6
    assert leds[90] == green
    assert green == (0, 64, 0) and amber == (64, 40, 0) and blue == (0, 0, 16)


def test_render_brightness_below_limit_and_link_lost_blink():
    layout = Layout(seats=2, leds_per_seat=3, pool_leds=2, max_brightness=200)
    state = DisplayState((-1, 2), pool=1, turn=1, brightness=100)
    leds = render(layout, state, link_alive=False, blink_on=True)
    assert leds == (
        (100, 0, 0), (0, 0, 25), (0, 0, 25),
        (0, 100, 0), (0, 100, 0), (0, 0, 0),
        (100, 62, 0), (0, 0, 0),
        (100, 0, 0),
    )  # fmt: skip
    assert render(layout, state, link_alive=False, blink_on=False)[-1] == (0, 0, 0)
    assert render(layout, state, link_alive=True, blink_on=False)[-1] == (0, 100, 0)


def test_render_turn_beyond_the_values_stays_dark():
    layout = Layout(seats=3, leds_per_seat=2, pool_leds=0)
    leds = render(layout, DisplayState((1,), turn=3), link_alive=True)
    assert leds[4:6] == ((0, 0, 0), (0, 0, 0))


def test_render_test_mode_and_initial_state():
    layout = Layout()
    state = DisplayState((1,), brightness=10)
    # White at the most the 450 mA budget allows, below max_brightness 64 (see the budget tests).
    assert render(layout, state, True, test=True) == ((16, 16, 16),) * 91
    assert render(layout, state, False, blink_on=False, test=True) == ((16, 16, 16),) * 91
    initial = render(layout, layout.initial_state(), True)
    assert initial[:90] == ((0, 0, 0),) * 90 and initial[90] == (0, 64, 0)


# --------------------------------------------------------------------------- seven and eight seats
def test_eight_seats_fit_hachi_hachi_and_bagaji():
    """Hachi-hachi seats seven, Bagaji eight: the default strip and the protocol carry both."""
    layout = Layout()
    assert layout.seats == 8 and layout.led_count == 8 * 10 + 10 + 1
    for seats in (7, 8):
        values = tuple(range(1, seats + 1))
        state = DisplayState(values, pool=2, turn=seats)
        frame = parse_frame(encode_frame(set_body(5, state)), sender="host", layout=layout)
        assert frame.state() == state
        leds = render(layout, state, link_alive=True)
        seat = leds[(seats - 1) * 10 : seats * 10]
        assert seat == ((0, 64, 0),) * seats + ((0, 0, 16),) * (10 - seats)  # green, then to act
    longest = DisplayState((-10,) * 8, pool=10, turn=8, brightness=255)
    assert len(encode_frame(set_body(65535, longest))) <= MAX_HOST_FRAME
    with pytest.raises(FrameError) as err:
        parse_frame(encode_frame("SET,6,255,0,0" + ",1" * 9), sender="host", layout=layout)
    assert (err.value.reason, err.value.seq) == ("range", 6)
    assert parse_frame(encode_frame("BTN,3,1,8,P")).args == (1, 8, "P")
    with pytest.raises(FrameError):
        parse_frame(encode_frame("BTN,3,1,9,P"))
    with pytest.raises(ValueError):
        Layout(seats=9)


# --------------------------------------------------------------------------- splitter: bounded, linear
def _reference_split(data: bytes, max_len: int) -> list[bytes]:
    """The firmware receiver's rules byte by byte (``proto_rx_byte``), as the splitter's oracle."""
    out, buf, state = [], bytearray(), "idle"
    for byte in data:
        if byte == 0x24:
            buf, state = bytearray(b"$"), "frame"
        elif state == "idle":
            continue
        elif byte == 0x0A:
            out.append((bytes(buf), state == "long"))
            buf, state = bytearray(), "idle"
        elif state == "frame":
            buf.append(byte)
            if len(buf) > max_len:
                state = "long"
    return out


def test_splitter_is_bounded_and_linear_on_dollar_and_endless_cr():
    """``$`` and 60 kB of ``\\r`` once kept every byte and rescanned the buffer for each one."""
    s = FrameSplitter(MAX_DEVICE_FRAME)
    assert s.feed(b"$") == []
    peak = 0
    junk = b"\r" * 60_000
    for at in range(0, len(junk), 1000):
        assert s.feed(junk[at : at + 1000]) == []
        peak = max(peak, s.buffered)
    assert peak == MAX_DEVICE_FRAME + 1  # bounded, whatever comes
    out = s.feed(b"\n" + encode_frame("ACK,5,2"))
    assert len(out) == 2
    with pytest.raises(FrameError) as err:
        parse_frame(out[0])
    assert err.value.reason == "long"
    assert parse_frame(out[1]) == Frame("ACK", 5, (2,))
    # Linear: the splitter's own work does not grow with the junk before a frame. Count the bytes
    # its searches examine through a bytes subclass whose find() records the span it scanned.
    for size in (6_000, 60_000):
        scanned = _scanned_bytes(b"$" + b"\r" * size + b"\n" + encode_frame("PING,7"))
        assert scanned <= 4 * (size + 20)


def _scanned_bytes(data: bytes) -> int:
    counted = [0]

    class Counting(bytes):
        def find(self, sub, start=0, end=None):  # type: ignore[override]
            end = len(self) if end is None else end
            hit = bytes.find(self, sub, start, end)
            counted[0] += (hit + 1 if hit != -1 else end) - start
            return hit

    out = FrameSplitter(MAX_DEVICE_FRAME).feed(Counting(data))
    assert parse_frame(out[-1], sender="host").seq == 7
    return counted[0]


@pytest.mark.parametrize("max_len", [MAX_HOST_FRAME, 12])
def test_splitter_matches_the_firmware_receiver_on_random_streams(max_len):
    import random

    rng = random.Random(max_len)
    alphabet = b"$\n\r*,AB0123456789" + bytes([0, 0xFF])
    for _ in range(300):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
        want = _reference_split(data, max_len)
        whole = FrameSplitter(max_len).feed(data)
        s = FrameSplitter(max_len)
        pieces, at = [], 0
        while at < len(data):
            step = rng.randint(1, 50)
            pieces += s.feed(data[at : at + step])
            assert s.buffered <= max_len + 1
            at += step
        assert whole == pieces
        assert len(whole) == len(want)
        for line, (buf, too_long) in zip(whole, want, strict=True):
            if too_long:
                assert frame_length(line) > max_len
            else:
                assert line == buf + b"\n"


# --------------------------------------------------------------------------- current budget
def test_test_mode_stays_within_the_usb_current_budget():
    """All white at 64 drew about 1.2 A from a 500 mA USB port (91 LEDs; 0.9 A for 71)."""
    for seats in (6, 8):
        layout = Layout(seats=seats)
        leds = render(layout, layout.initial_state(), link_alive=True, test=True)
        assert estimated_ma(leds) <= USB_POWER_LIMIT_MA == layout.power_limit_ma == 450
        assert len(set(leds)) == 1 and leds[0][0] == leds[0][1] == leds[0][2] > 0
        # as bright as the budget allows: one level more would exceed it
        brighter = ((leds[0][0] + 1,) * 3,) * len(leds)
        assert estimated_ma(brighter) > 450
    unbudgeted = ((64, 64, 64),) * 91
    assert estimated_ma(unbudgeted) > 1100  # what the issue measured


def test_every_state_stays_within_the_budget_and_light_loads_are_untouched():
    import random

    rng = random.Random(37)
    layouts = (
        Layout(),
        Layout(max_brightness=255),
        Layout(max_brightness=255, power_limit_ma=2000),
        Layout(seats=3, leds_per_seat=4, pool_leds=2, max_brightness=200),
    )
    for layout in layouts:
        for _ in range(300):
            n = rng.randint(1, layout.seats)
            lps = layout.leds_per_seat
            state = DisplayState(
                tuple(rng.randint(-lps, lps) for _ in range(n)),
                rng.randint(0, layout.pool_leds),
                rng.randint(0, 8),
                rng.randint(0, 255),
            )
            for link, blink in ((True, True), (False, True), (False, False)):
                leds = render(layout, state, link, blink)
                assert estimated_ma(leds) <= layout.power_limit_ma
            # the blink never changes the rest of the strip
            assert render(layout, state, False, True)[:-1] == render(layout, state, False, False)[:-1]
    # A light load keeps the brightness asked for.
    layout = Layout(max_brightness=255)
    leds = render(layout, DisplayState((3, -2)), link_alive=True)
    assert leds[0] == (0, 255, 0) and leds[10] == (255, 0, 0)
    # Every seat and the pool full: dimmed from 64 to 47 on USB, to 250 of 255 on 2 A.
    full = DisplayState((10,) * 8, pool=10, brightness=255)
    assert render(Layout(), full, True)[0] == (0, 47, 0)
    assert render(Layout(max_brightness=255, power_limit_ma=2000), full, True)[0] == (0, 250, 0)
    assert power_level(Layout(), 0) == 255 and power_level(Layout(), 91 * 765) == 16


def test_layout_refuses_a_budget_below_the_idle_draw():
    with pytest.raises(ValueError):
        Layout(power_limit_ma=91)
    assert Layout(power_limit_ma=92).power_limit_ma == 92
    with pytest.raises(FrameError) as err:
        parse_frame(encode_frame("HELLO,1,2.0.0,2,7,8,10,10,64,91,1"))
    assert err.value.reason == "range"


def test_protocol_md_current_figures_are_true():
    """The figures PROTOCOL.md gives for the default strip are what ``render`` does."""
    text = (Path(__file__).resolve().parents[1] / "firmware_bridge" / "PROTOCOL.md").read_text()
    layout = Layout()
    white = render(layout, layout.initial_state(), True, test=True)
    full = render(layout, DisplayState((10,) * 8, pool=10, brightness=255), True)
    game = render(layout, DisplayState((10, 2, -5, 0, 3), pool=6, turn=4, brightness=255), True)
    rows = [
        (white, "| `TEST,on`: all white | {} | {} mA"),
        (full, "| every seat full (80 green), pool full, status | {} | {} mA"),
        (game, "| a game: 15 green, 5 red, a seat to act (10 blue), 6 amber, status | {} | {} mA"),
    ]
    for leds, row in rows:
        level = max(max(c) for c in leds)
        assert row.format(level, round(estimated_ma(leds))) in text
    external = Layout(max_brightness=255, power_limit_ma=2000)
    assert render(external, external.initial_state(), True, test=True)[0] == (89, 89, 89)
    assert "all white then reaches level 89" in text
