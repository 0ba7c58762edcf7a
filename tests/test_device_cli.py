"""``fudaba device list|test|emulate``: output, exit codes, and a run against the emulator."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge import ports
from firmware_bridge.client import StoneCounterClient
from firmware_bridge.emulator import Emulator
from firmware_bridge.protocol import DisplayState
from fudaba.cli import main
from tests.helpers import sigint_default

ROOT = Path(__file__).resolve().parents[1]
LONG = 20.0


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_device_list_puts_stone_counters_first(capsys, monkeypatch):
    fake = [
        ports.PortInfo("/dev/ttyS0", None, None, "n/a", False),
        ports.PortInfo("/dev/ttyACM0", 0x2341, 0x0043, "Arduino Uno", True),
    ]
    monkeypatch.setattr(ports, "list_ports", lambda usb_ids=ports.DEFAULT_USB_IDS: fake)
    code, out, _ = run(capsys, "device", "list")
    assert code == 0
    assert "/dev/ttyACM0  2341:0043  Arduino Uno  [stone counter]" in out
    monkeypatch.setattr(ports, "list_ports", lambda usb_ids=ports.DEFAULT_USB_IDS: [])
    assert run(capsys, "device", "list")[:2] == (0, "no serial ports found\n")


def test_device_list_real_ports(capsys):
    assert run(capsys, "device", "list")[0] == 0


def test_device_test_absent_port_exits_2(capsys, tmp_path):
    code, out, err = run(capsys, "device", "test", str(tmp_path / "ttyNONE"))
    assert code == 2 and out == ""
    assert "no such port" in err and "ttyNONE" in err


def test_device_test_without_a_device_exits_2(capsys, monkeypatch):
    monkeypatch.setattr(ports, "candidates", lambda usb_ids=ports.DEFAULT_USB_IDS: [])
    code, out, err = run(capsys, "device", "test")
    assert code == 2 and out == ""
    assert "no stone counter found" in err and "device list" in err


def test_device_test_on_a_silent_port_exits_2(capsys):
    with Emulator(proto=9) as emu:
        code, _, err = run(capsys, "device", "test", emu.port, "--banner-timeout", "0.2")
    assert code == 2 and "protocol 9" in err


def test_device_test_lights_everything_and_reports_buttons(capsys):
    with Emulator() as emu:
        emu.press(3, "P")
        emu.press(0, "L")
        code, out, err = run(capsys, "device", "test", emu.port, "--seconds", "1.5")
        assert not emu.test  # back to the state
    assert code == 0, err
    assert "firmware 2.0.0, protocol 2" in out and "91 in all" in out
    assert "current budget 450 mA" in out and "white at level 16 of 255 (about 434 mA)" in out
    assert "every LED lit white" in out
    assert "button 3 (seat 3): press" in out and "button 0 (undo): long press" in out
    assert out.rstrip().endswith(
        "test over: the LEDs show the counter's state again (the stones a game last sent it; dark but the"
        " status LED after a fresh start)"
    )


def test_device_without_subcommand_is_a_usage_error(capsys):
    code, out, err = run(capsys, "device")
    assert code == 2 and out == ""
    assert err.startswith("usage: fudaba device") and "emulate" in err


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_device_test_on_a_path_that_is_no_serial_port_says_so_once(capsys, tmp_path, kind):
    path = tmp_path / "passwd"
    if kind == "file":
        path.write_text("root:x:0:0:root:/root:/bin/bash\n")
    else:
        path.mkdir()
    code, out, err = run(capsys, "device", "test", str(path))
    assert code == 2 and out == ""
    assert err == f"fudaba device test: {path} is a {kind}, not a serial port (`fudaba device list` shows the ports)\n"


def test_device_emulate_prints_its_port_and_stops_on_ctrl_c():
    proc = subprocess.Popen(
        [sys.executable, "-m", "fudaba", "device", "emulate", "--seats", "4"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_default,
    )
    try:
        port = proc.stdout.readline().strip()
        assert port.endswith("/tty") and Path(port).exists()
        with StoneCounterClient(port) as client:
            assert client.wait_connected(LONG)
            assert client.status().layout.seats == 4
            client.set_state(DisplayState((1, 2, 3, 4)))
            assert client.wait_acked(LONG)
            proc.stdin.write("2 L\n")
            proc.stdin.flush()
            event = client.buttons.get(timeout=LONG)
            assert (event.button, event.kind) == (2, "L")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=LONG) == 0
        assert not Path(port).exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_device_emulate_says_what_it_accepts_when_typed_something_else():
    proc = subprocess.Popen(
        [sys.executable, "-m", "fudaba", "device", "emulate", "--seats", "4", "--seconds", "3"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, err = proc.communicate("bogus\n9\n2 X\n", timeout=LONG + 5)
    assert proc.returncode == 0
    accepts = "type N to press button N (0 undo, 1-4 the seats) or N L to hold it (a long press)"
    assert f"fudaba device emulate: 'bogus' is not a button; {accepts}" in err
    assert f"fudaba device emulate: '9' is not a button; {accepts}" in err
    assert "fudaba device emulate: 'X' is not a kind of press (P: press, L: long press)" in err
    assert "invalid literal" not in err


@pytest.mark.parametrize("bad", ["1.5", "-0.1"])
def test_device_emulate_refuses_bad_probabilities(capsys, bad):
    with pytest.raises(SystemExit) as exc:
        main(["device", "emulate", "--drop", bad])
    assert exc.value.code == 2
