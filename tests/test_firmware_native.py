"""The firmware's C code on the host and its AVR build.

* ``test_protocol`` (host gcc) checks the firmware's CRC against ``firmware_bridge/vectors/crc.tsv``,
  its receiver and parser against every host frame of ``frames.tsv`` and every edge case of
  ``edges.tsv`` (the emulator's parser is checked against the same file), and encoding, the frame
  buffer and current budget, debouncing and the press queue.
* The firmware builds with Debian's avr-gcc and fits an ATmega328P with Optiboot.
* The sketch compiles as the Arduino IDE compiles it, against Debian's arduino-core-avr.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE_DIR = ROOT / "firmware_bridge" / "firmware"
VECTORS = ROOT / "firmware_bridge" / "vectors" / "crc.tsv"
FRAMES = ROOT / "firmware_bridge" / "vectors" / "frames.tsv"
EDGES = ROOT / "firmware_bridge" / "vectors" / "edges.tsv"
ARDUINO_CORE = Path("/usr/share/arduino/hardware/arduino/avr/cores/arduino")

FLASH_FOR_SKETCH = 32768 - 512  # Optiboot takes the last 512 bytes
RAM = 2048
STACK_RESERVE = 512


def make(*targets: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["make", "-C", str(FIRMWARE_DIR), *targets], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _need(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")


def test_native_protocol_core_passes_with_shared_vectors() -> None:
    _need("make", "cc")
    make("build/test_protocol")
    done = subprocess.run(
        [str(FIRMWARE_DIR / "build" / "test_protocol"), str(VECTORS), str(FRAMES), str(EDGES)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    failed = [line for line in done.stdout.splitlines() if line.startswith("not ok")]
    assert done.returncode == 0 and not failed, "\n".join(failed) or done.stdout + done.stderr
    vectors = sum(
        1 for line in VECTORS.read_text().splitlines() if line and not line.startswith("#")
    )
    crc_checks = [line for line in done.stdout.splitlines() if re.match(r"ok \d+ - crc of ", line)]
    assert len(crc_checks) == vectors
    host_frames = sum(1 for line in FRAMES.read_text().splitlines() if line.startswith("H\t"))
    frame_checks = [
        line for line in done.stdout.splitlines() if re.match(r"ok \d+ - frames.tsv \$", line)
    ]
    assert len(frame_checks) == host_frames
    edges = sum(1 for line in EDGES.read_text().splitlines() if line and not line.startswith("#"))
    edge_checks = [line for line in done.stdout.splitlines() if re.match(r"ok \d+ - edges.tsv ", line)]
    assert edges >= 3000 and len(edge_checks) == edges + 1  # one per frame and the summary


def _sizes(output: str) -> tuple[int, int]:
    program = re.search(r"Program:\s+(\d+) bytes", output)
    data = re.search(r"Data:\s+(\d+) bytes", output)
    assert program and data, output
    return int(program.group(1)), int(data.group(1))


def test_firmware_builds_with_avr_gcc_and_fits_the_atmega328p() -> None:
    _need("make", "avr-gcc", "avr-size")
    flash, ram = _sizes(make("firmware", "size").stdout)
    assert flash <= FLASH_FOR_SKETCH
    assert ram <= RAM - STACK_RESERVE
    assert (FIRMWARE_DIR / "build" / "stone_counter.hex").stat().st_size > 0


def test_sketch_compiles_against_the_arduino_core() -> None:
    _need("make", "avr-gcc")
    if not ARDUINO_CORE.is_dir():
        pytest.skip("arduino-core-avr not installed")
    flash, ram = _sizes(make("arduino").stdout)
    assert flash <= FLASH_FOR_SKETCH
    assert ram <= RAM - STACK_RESERVE
