"""The real stone counter firmware on a simulated ATmega328P, driven by the host client.

``firmware_bridge/firmware/Makefile`` builds the firmware ELF (avr-gcc) and the simavr harness
(libsimavr); the harness runs the AVR in real time with UART0 on a pty, takes button commands on
stdin and decodes the WS2812B pin (``STRIP`` lines), so each test checks the frame buffer the
firmware reports against ``render`` and against what actually went out on the data pin.
Debian packages: gcc-avr avr-libc simavr libsimavr-dev libelf-dev pkg-config gcc make.
"""

from __future__ import annotations

import queue
import time

import pytest

pytest.importorskip("serial")

from firmware_bridge.client import StoneCounterClient  # noqa: E402
from firmware_bridge.protocol import (  # noqa: E402
    DisplayState,
    Frame,
    decode_leds,
    encode_frame,
    estimated_ma,
    parse_frame,
    render,
)
from tests.firmware_kit import LAYOUT, SKIP, WAIT, Sim, connect, raw_port, raw_reply  # noqa: E402

pytestmark = SKIP


def test_handshake_reports_versions_boot_and_layout(sim: Sim) -> None:
    client = connect(sim)
    try:
        st = client.status()
        assert st.connected and st.port == sim.port
        assert (st.fw_version, st.proto_version) == ("2.0.0", 2)
        assert st.layout == LAYOUT
        # A fresh EEPROM reads 0xFFFF: boot 0 at power-up, 1 after the reset on open.
        assert st.boot == 1
        sim.command("reset")
        deadline = time.monotonic() + WAIT
        while not (client.status().boot == 2 and client.status().connected):
            assert time.monotonic() < deadline, client.status()
            time.sleep(0.02)
    finally:
        client.stop()


STATES = [
    DisplayState(values=(2, -1), pool=7, turn=1, brightness=255),
    DisplayState(values=(10, -10, 0, 5, -3, 1), pool=10, turn=6, brightness=30),
    DisplayState(values=(0, 0, 4), pool=0, turn=3, brightness=64),
    DisplayState(values=(1,), pool=3, turn=0, brightness=0),
    DisplayState(values=(1, -2, 3, -4, 5, -6, 7), pool=2, turn=7, brightness=255),  # Hachi-hachi
    DisplayState(values=(0, 1, 0, 2, 0, 3, -9, 10), pool=9, turn=8, brightness=200),  # Bagaji
    DisplayState(values=(10,) * 8, pool=10, turn=0, brightness=255),  # dimmed to the budget
]


def test_set_state_reads_back_through_query_and_data_pin(sim: Sim) -> None:
    client = connect(sim)
    try:
        for state in STATES:
            client.set_state(state)
            assert client.wait_acked(WAIT), client.status()
            fb = client.query_framebuffer(timeout=WAIT)
            want = render(LAYOUT, state, link_alive=True)
            assert fb.link is True
            assert fb.leds == want
            assert sim.wait_strip(lambda leds, w=want: leds == w) == want
            assert estimated_ma(want) <= 450
        client.set_test(True)
        assert client.wait_test_acked(WAIT)
        white = render(LAYOUT, STATES[-1], link_alive=True, test=True)
        assert client.query_framebuffer(timeout=WAIT).leds == white
        on_pin = sim.wait_strip(lambda leds: leds == white)
        # What went out on the data pin stays within a USB port's budget (all white at 64 was
        # about 1.2 A for these 91 LEDs).
        assert estimated_ma(on_pin) <= LAYOUT.power_limit_ma == 450
        client.set_test(False)
        assert client.wait_test_acked(WAIT)
        assert client.query_framebuffer(timeout=WAIT).leds == render(LAYOUT, STATES[-1], True)
    finally:
        client.stop()


def _no_more_events(client: StoneCounterClient, quiet: float = 0.8) -> None:
    """Longer than three resend periods: a duplicate would have arrived by then."""
    with pytest.raises(queue.Empty):
        extra = client.buttons.get(timeout=quiet)
        pytest.fail(f"delivered twice: {extra}")


def test_button_press_arrives_once(sim: Sim) -> None:
    client = connect(sim)
    try:
        boot = client.status().boot
        sim.command("press 3")
        time.sleep(0.1)
        sim.command("release 3")
        ev = client.buttons.get(timeout=WAIT)
        assert (ev.button, ev.kind, ev.boot) == (3, "P", boot)
        _no_more_events(client)

        sim.command("press 0")
        ev = client.buttons.get(timeout=WAIT)  # sent once held 1 s, before the release
        assert (ev.button, ev.kind) == (0, "L")
        sim.command("release 0")
        _no_more_events(client)

        for seat in (7, 8):  # Hachi-hachi's seventh seat and Bagaji's eighth (D3, D4)
            sim.command(f"press {seat}")
            time.sleep(0.1)
            sim.command(f"release {seat}")
            ev = client.buttons.get(timeout=WAIT)
            assert (ev.button, ev.kind) == (seat, "P")
        _no_more_events(client)
    finally:
        client.stop()


def test_button_pressed_without_host_is_resent_then_delivered_once(sim: Sim) -> None:
    sim.command("press 6")
    time.sleep(0.1)
    sim.command("release 6")
    with raw_port(sim) as ser:
        seen: list[Frame] = []
        deadline = time.monotonic() + WAIT
        while len(seen) < 2 and time.monotonic() < deadline:
            line = ser.readline()
            start = line.rfind(b"$")
            if line.endswith(b"\n") and start >= 0:
                frame = parse_frame(line[start:])
                if frame.kind == "BTN":
                    seen.append(frame)
    assert len(seen) == 2, "an unacknowledged BTN is resent"
    assert seen[0] == seen[1] and seen[0].seq == 1 and seen[0].args[1:] == (6, "P")

    client = connect(sim, reset=False, banner_timeout=0.5)
    try:
        ev = client.buttons.get(timeout=WAIT)
        assert (ev.button, ev.kind, ev.seq) == (6, "P", seen[0].seq)
        _no_more_events(client)
    finally:
        client.stop()


def test_link_lost_after_silence(sim: Sim) -> None:
    state = DisplayState(values=(3, -2, 1), pool=4, turn=2, brightness=255)
    client = connect(sim)
    try:
        client.set_state(state)
        assert client.wait_acked(WAIT)
    finally:
        client.stop()
    lost_on = render(LAYOUT, state, link_alive=False, blink_on=True)
    lost_off = render(LAYOUT, state, link_alive=False, blink_on=False)
    assert lost_on[-1] == (64, 0, 0) and lost_off[-1] == (0, 0, 0)
    # The status LED blinks: red, then off, over the unchanged state.
    sim.wait_strip(lambda leds: leds == lost_on)
    sim.wait_strip(lambda leds: leds == lost_off)
    sim.wait_strip(lambda leds: leds == lost_on)

    with raw_port(sim) as ser:
        fb = raw_reply(ser, "QUERY,1", want="FB")
        _, link, hexes = fb.args
        assert link == 0
        assert decode_leds(hexes) in (lost_on, lost_off)
        # That QUERY was a valid frame: the link is back.
        fb = raw_reply(ser, "QUERY,2", want="FB")
        assert fb.args[1] == 1
        assert fb.leds() == render(LAYOUT, state, link_alive=True)


def test_bad_frames_are_refused_with_nak(sim: Sim) -> None:
    with raw_port(sim) as ser:
        nak = raw_reply(ser, b"$PING,7*0000\n")
        boot = nak.boot
        assert (nak.kind, nak.seq, nak.args) == ("NAK", 7, (boot, "crc"))
        good = encode_frame("PING,8")
        damaged = good.replace(b"PING,8", b"PONG,8")
        nak = raw_reply(ser, damaged)
        assert (nak.kind, nak.seq, nak.args) == ("NAK", 8, (boot, "crc"))
        nak = raw_reply(ser, "SET,9,255,0,11,1")
        assert (nak.kind, nak.seq, nak.args) == ("NAK", 9, (boot, "range"))
        nak = raw_reply(ser, "SET,10,255,0,1,1,2,3,4,5,6,7,8,9")
        assert (nak.kind, nak.seq, nak.args) == ("NAK", 10, (boot, "range"))
        nak = raw_reply(ser, "SET,11,bright,0,1,1")
        assert (nak.kind, nak.seq, nak.args) == ("NAK", 11, (boot, "parse"))
        nak = raw_reply(ser, "FOO,12")
        assert (nak.kind, nak.seq, nak.args) == ("NAK", 12, (boot, "unknown"))
        nak = raw_reply(ser, b"$" + b"A" * 120 + b"*0000\n")
        assert (nak.kind, nak.seq, nak.args) == ("NAK", 0, (boot, "long"))
        # Noise and a broken-off frame before a good one change nothing.
        ack = raw_reply(ser, b"\x00garbage\r\n$PIN" + encode_frame("PING,13"))
        assert (ack.kind, ack.seq, ack.boot) == ("ACK", 13, boot)
        # A refused SET changed nothing: the display is still the initial state.
        fb = raw_reply(ser, "QUERY,14", want="FB")
        assert fb.leds() == render(LAYOUT, LAYOUT.initial_state(), True)


def _dropped(sim: Sim) -> str:
    """The frame the harness lost on "drop TYPE"."""
    deadline = time.monotonic() + WAIT
    while not sim.dropped:
        assert time.monotonic() < deadline, "the harness lost no frame"
        time.sleep(0.01)
    assert len(sim.dropped) == 1, sim.dropped
    return sim.dropped[0]


def test_reset_whose_boot_frame_is_lost_is_noticed(sim: Sim) -> None:
    """Every reply carries the boot counter: a reset is noticed at the next reply even when its
    BOOT never arrives; the state is sent again and presses restart at 1, none dropped."""
    state = DisplayState(values=(4, -3, 0, 2), pool=5, turn=2, brightness=255)
    client = connect(sim)
    try:
        client.set_state(state)
        assert client.wait_acked(WAIT)
        want = render(LAYOUT, state, link_alive=True)
        sim.wait_strip(lambda leds: leds == want)
        boot = client.status().boot
        sim.command("press 5")  # press 1 of this boot, delivered
        time.sleep(0.08)
        sim.command("release 5")
        ev = client.buttons.get(timeout=WAIT)
        assert (ev.button, ev.seq, ev.boot) == (5, 1, boot)

        sim.command("drop BOOT")
        sim.command("reset")
        assert _dropped(sim).startswith("BOOT,0,")
        deadline = time.monotonic() + WAIT
        while client.status().resets != 1:  # noticed at the next PING's ACK (within ~1 s)
            assert time.monotonic() < deadline, client.status()
            time.sleep(0.02)
        assert client.status().boot == boot + 1
        assert client.wait_acked(WAIT)  # the whole state again
        sim.wait_strip(lambda leds: leds == want)
        assert client.query_framebuffer(timeout=WAIT).leds == want

        sim.command("press 5")  # press 1 again, of the new boot: not taken for a repeat
        time.sleep(0.08)
        sim.command("release 5")
        ev = client.buttons.get(timeout=WAIT)
        assert (ev.button, ev.seq, ev.boot) == (5, 1, boot + 1)
        _no_more_events(client)
    finally:
        client.stop()


def test_presses_arrive_in_the_order_pressed_when_one_is_lost(sim: Sim) -> None:
    """Press 1 (a seat) is lost on the way, press 2 (undo) arrives first: the host takes nothing
    out of order; the device resends press 1, then 2."""
    client = connect(sim)
    try:
        sim.command("drop BTN")
        # Held 80 ms, past the 20 ms debounce even on a busy machine; press 0 is sent about
        # 0.1 s after press 1, before press 1's resend (250 ms).
        sim.command("press 3")
        time.sleep(0.08)
        sim.command("release 3")
        sim.command("press 0")
        time.sleep(0.08)
        sim.command("release 0")
        assert _dropped(sim).startswith("BTN,1,")
        got = [client.buttons.get(timeout=WAIT) for _ in range(2)]
        assert [(e.button, e.seq) for e in got] == [(3, 1), (0, 2)]
        _no_more_events(client)
    finally:
        client.stop()


def test_presses_while_the_host_is_away_keep_their_order_and_the_ninth_is_ignored(sim: Sim) -> None:
    for button in (1, 2, 3, 4, 5, 6, 7, 8, 0, 1):  # ten presses, no host
        sim.command(f"press {button}")
        time.sleep(0.08)  # past the 20 ms debounce even on a busy machine
        sim.command(f"release {button}")
        time.sleep(0.08)
    client = connect(sim, reset=False, banner_timeout=0.2)
    try:
        got = [client.buttons.get(timeout=WAIT) for _ in range(8)]
        assert [(e.button, e.seq) for e in got] == [(b, b) for b in range(1, 9)]
        _no_more_events(client)
    finally:
        client.stop()
