"""The firmware README's figures are the firmware's: layout, pins, current budget, supplies.

The README once said that brightness 64 kept "all 71 LEDs at full white near the 500 mA a USB
port gives" (it was 1.14 A) and listed six seat buttons; these checks tie its numbers to
``config.h``, ``board.h`` and ``protocol.render``.
"""

from __future__ import annotations

import re
from pathlib import Path

from firmware_bridge.protocol import DisplayState, Layout, estimated_ma, render

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware_bridge" / "firmware"
README = (FIRMWARE / "README.md").read_text(encoding="utf-8")
CONFIG = (FIRMWARE / "stone_counter" / "config.h").read_text(encoding="utf-8")
BOARD = (FIRMWARE / "stone_counter" / "board.h").read_text(encoding="utf-8")


def _define(name: str) -> int:
    match = re.search(rf"#define {name} (\d+)", CONFIG)
    assert match, name
    return int(match.group(1))


DEFAULT = Layout(
    _define("SEATS"),
    _define("LEDS_PER_SEAT"),
    _define("POOL_LEDS"),
    _define("MAX_BRIGHTNESS"),
    _define("POWER_LIMIT_MA"),
)


def test_the_default_layout_is_the_documented_strip():
    assert Layout() == DEFAULT  # the host's default is the firmware's
    n = DEFAULT.led_count
    assert f"WS2812B strip, {n} LEDs" in README
    assert f"{DEFAULT.seats} seats × {DEFAULT.leds_per_seat} + {DEFAULT.pool_leds} pool + 1 status" in README
    assert f"{DEFAULT.seats + 1} momentary push buttons" in README


def test_every_button_pin_is_wired_in_the_readme():
    pins = re.findall(r"\{ &PIN([BCD]), (\d) \}", BOARD)
    assert len(pins) == 9  # undo and eight seats
    names = {("D", 2): "D2", ("D", 3): "D3", ("D", 4): "D4"} | {("C", i): f"A{i}" for i in range(6)}
    for index, (port, bit) in enumerate(pins):
        who = "undo   (button 0)" if index == 0 else f"seat {index}"
        assert f"Arduino {names[(port, int(bit))]}  ── button ── GND      {who}" in README


def test_usb_current_figures_are_what_the_firmware_does():
    assert f"`POWER_LIMIT_MA` = {DEFAULT.power_limit_ma} mA" in README
    white = render(DEFAULT, DEFAULT.initial_state(), True, test=True)
    full = render(DEFAULT, DisplayState((10,) * 8, pool=10, brightness=255), True)
    assert estimated_ma(white) <= 450 and estimated_ma(full) <= 450
    assert f"white at level {white[0][0]}" in README
    assert f"(about {round(estimated_ma(white))} mA; at 64 it would be" in README
    unbudgeted = ((64, 64, 64),) * DEFAULT.led_count
    assert f"{estimated_ma(unbudgeted) / 1000:.2f} A" in README
    assert f"full at {max(full[0])} ({round(estimated_ma(full))} mA)" in README


def test_external_supply_table_is_what_the_firmware_does():
    rows = re.findall(
        r"\| 5 V (\d) A \| (\d+) \| (\d) A \| [^|]+ \| level (\d+) / (\d+) \|", README
    )
    assert len(rows) == 3
    for amps, limit, fuse, white_level, full_level in rows:
        assert int(limit) == int(amps) * 800  # 80 % of the rating
        assert fuse == amps
        layout = Layout(max_brightness=255, power_limit_ma=int(limit))
        white = render(layout, layout.initial_state(), True, test=True)
        full = render(layout, DisplayState((10,) * 8, pool=10, brightness=255), True)
        assert (white[0][0], max(full[0])) == (int(white_level), int(full_level))
        assert estimated_ma(white) <= int(limit) and estimated_ma(full) <= int(limit)


def test_hardware_notes_are_there():
    for heading in ("## The capacitor", "## External power", "## Long button wires"):
        assert heading in README
    for words in ("Power injection", "Wire gauge", "Fuse:", "Common ground", "220 µF", "4.7 kΩ"):
        assert words in README
