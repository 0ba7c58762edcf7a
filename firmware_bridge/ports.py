"""Finding the stone counter among the serial ports, by USB vendor and product id.

A USB id only says "an Arduino-like board": a 3D printer, another Arduino project or a board with
other firmware has the same ids. So these are *candidates*; the host client opens each in turn and
takes the first that answers ``HELLO`` as a stone counter (``StoneCounterClient`` without a port).
Opening a port resets most such boards, so where other Arduino-like devices are attached, give
the stone counter's port explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_USB_IDS: tuple[tuple[int, int], ...] = (
    (0x2341, 0x0043),  # Arduino Uno R3 (ATmega16U2)
    (0x2341, 0x0001),  # Arduino Uno (8U2)
    (0x2341, 0x0243),  # Arduino Uno R3 (later 16U2 firmware)
    (0x2A03, 0x0043),  # Arduino.org Uno
    (0x1A86, 0x7523),  # CH340: most Nano clones
    (0x0403, 0x6001),  # FTDI FT232R: classic Nano
)
"""USB (vendor, product) ids of the boards the firmware runs on."""


@dataclass(frozen=True)
class PortInfo:
    """One serial port as the operating system lists it."""

    device: str
    """The path to open, e.g. ``/dev/ttyACM0`` or ``COM3``."""
    vid: int | None
    pid: int | None
    description: str
    matches: bool
    """True when its USB id is one of the stone counter's."""
    serial_number: str | None = None
    location: str | None = None
    """Where it is plugged in (USB bus path), when the system says."""

    @property
    def key(self) -> tuple[object, ...]:
        """What tells this device from another one later at the same path."""
        return (self.device, self.vid, self.pid, self.serial_number, self.location)

    @property
    def usb_id(self) -> str:
        return f"{self.vid:04X}:{self.pid:04X}" if self.vid is not None and self.pid is not None else "-"


def list_ports(usb_ids: tuple[tuple[int, int], ...] = DEFAULT_USB_IDS) -> list[PortInfo]:
    """Every serial port, stone counter candidates first, then by path."""
    from serial.tools import list_ports as lp

    wanted = set(usb_ids)
    found = [
        PortInfo(
            p.device,
            p.vid,
            p.pid,
            p.description or "",
            (p.vid, p.pid) in wanted,
            getattr(p, "serial_number", None),
            getattr(p, "location", None),
        )
        for p in lp.comports()
    ]
    return sorted(found, key=lambda p: (not p.matches, p.device))


def candidates(usb_ids: tuple[tuple[int, int], ...] = DEFAULT_USB_IDS) -> list[PortInfo]:
    """The ports with a stone counter's USB id, by path: each still has to answer ``HELLO``."""
    return [p for p in list_ports(usb_ids) if p.matches]


def find_device(usb_ids: tuple[tuple[int, int], ...] = DEFAULT_USB_IDS) -> str | None:
    """The path of the first port with a stone counter's USB id, or None.

    By USB id only, unchecked: to find the port that really is a stone counter, start a
    ``StoneCounterClient`` without a port, which tries each candidate with ``HELLO``.
    """
    found = candidates(usb_ids)
    return found[0].device if found else None
