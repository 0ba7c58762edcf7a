"""Who gets the stone counter's port: an exclusive lock, and auto-detection that asks ``HELLO``.

* A second program opening the same port used to read half the frames and answer with its own
  seq numbers, breaking both links. The client now locks the port and reports it in use.
* Auto-detection took the first Arduino-like USB id and retried it forever (a 3D printer has the
  same ids). The client now asks each candidate ``HELLO`` and takes the first stone counter.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty

import pytest
import serial

from firmware_bridge import ports
from firmware_bridge.client import StoneCounterClient
from firmware_bridge.emulator import Emulator
from firmware_bridge.protocol import DisplayState
from fudaba.cli import main
from tests.waiting import LONG, wait_until


class FakePrinter:
    """A pty that behaves like a 3D printer's firmware: ``ok`` to every line, never a frame."""

    def __init__(self) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.port = os.ttyname(slave)
        self._slave = slave  # kept open so that the master never reads EIO between opens
        os.set_blocking(self.master, False)
        self.received = bytearray()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.02)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:
                time.sleep(0.02)
                continue
            self.received += data
            for _ in range(data.count(b"\n")):
                with contextlib.suppress(OSError):
                    os.write(self.master, b"echo:Unknown command\nok\n")

    @property
    def hellos(self) -> int:
        return bytes(self.received).count(b"$HELLO,")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        os.close(self.master)
        os.close(self._slave)


def _port(path: str) -> ports.PortInfo:
    return ports.PortInfo(path, 0x2341, 0x0043, "Arduino Uno", True, serial_number=path)


@pytest.fixture
def printer():
    p = FakePrinter()
    yield p
    p.close()


def test_a_second_program_cannot_take_the_port():
    state = DisplayState((1, 2, 3), pool=2, turn=1)
    with Emulator(seed=3) as emu, StoneCounterClient(emu.port) as first:
        assert first.wait_connected(LONG)
        first.set_state(state)
        assert first.wait_acked(LONG)
        # Any program that asks for the lock is refused while the client holds the port.
        with pytest.raises(serial.SerialException):
            serial.Serial(emu.port, 115200, exclusive=True)
        with StoneCounterClient(emu.port) as second:
            assert wait_until(lambda: "in use by another program" in (second.status().last_error or ""))
            assert emu.port in second.status().last_error
            assert not second.status().connected
            # The first link is untouched: a new state still goes through at once.
            sets_before = emu.applied_sets
            first.set_state(DisplayState((4,)))
            assert first.wait_acked(LONG) and emu.applied_sets == sets_before + 1
            assert first.status().connected and emu.state == DisplayState((4,))
        assert not second.status().connected
    # Once the first lets go, another client gets the port.
    with Emulator(seed=4) as emu:
        with StoneCounterClient(emu.port) as first:
            assert first.wait_connected(LONG)
        with StoneCounterClient(emu.port) as again:
            assert again.wait_connected(LONG)


def test_auto_detection_skips_a_printer_and_finds_the_stone_counter(monkeypatch, printer):
    with Emulator(seed=7) as emu:
        listed = [_port(printer.port), _port(emu.port)]  # the printer first, as it sorts first
        monkeypatch.setattr(ports, "list_ports", lambda usb_ids=ports.DEFAULT_USB_IDS: listed)
        with StoneCounterClient(banner_timeout=0.2, retry_interval=0.1) as client:
            assert client.wait_connected(LONG), client.status()
            assert client.status().port == emu.port
            assert printer.hellos >= 1  # it was asked, and said only "ok"
            asked = printer.hellos
            client.set_state(DisplayState((2, 2)))
            assert client.wait_acked(LONG)
            # The stone counter goes away and comes back: the printer is not opened again.
            emu.unplug()
            assert wait_until(lambda: not client.status().connected)
            emu.replug()
            assert client.wait_connected(LONG) and client.status().port == emu.port
            assert client.wait_acked(LONG) and emu.state == DisplayState((2, 2))
            assert printer.hellos == asked


def test_auto_detection_reports_when_no_candidate_answers(monkeypatch, printer):
    monkeypatch.setattr(
        ports, "list_ports", lambda usb_ids=ports.DEFAULT_USB_IDS: [_port(printer.port)]
    )
    with StoneCounterClient(banner_timeout=0.1, retry_interval=0.05) as client:
        assert wait_until(
            lambda: "did not answer HELLO as a stone counter" in (client.status().last_error or "")
        )
        assert printer.port in client.status().last_error
        asked = printer.hellos
        time.sleep(1.0)  # several back-off rounds: the printer is left alone
        assert printer.hellos == asked and not client.status().connected


def test_device_test_without_port_uses_the_candidate_that_answers(monkeypatch, capsys, printer):
    with Emulator() as emu:
        listed = [_port(printer.port), _port(emu.port)]
        monkeypatch.setattr(ports, "list_ports", lambda usb_ids=ports.DEFAULT_USB_IDS: listed)
        code = main(["device", "test", "--seconds", "0.2", "--banner-timeout", "0.2"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"stone counter on {emu.port}:" in out
