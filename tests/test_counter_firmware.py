"""The stone counter in the game, as the real firmware on a simulated ATmega328P: every state of
a game the session goes through is what the device's data pin sends to the strip, and one press of
the undo button undoes exactly one event."""

from __future__ import annotations

import time
from pathlib import Path

from firmware_bridge.protocol import render
from fudaba.counter import CounterLink, display_state
from fudaba.session import Sessions
from fudaba.store import Store
from scorer.simulate import entered_rounds
from tests.firmware_kit import LAYOUT, SKIP, WAIT, Sim, connect

pytestmark = SKIP


def test_every_state_of_a_game_reaches_the_strip_and_undo_undoes_one_event(sim: Sim, tmp_path: Path) -> None:
    client = connect(sim)
    session = Sessions(Store(tmp_path / "h.sqlite3")).create("poka", ["Aki", "Ben"])
    link = CounterLink(session, client)
    link.start()
    try:
        steps, _ = entered_rounds("poka", 2, 4)
        shown = 0
        for step in steps:
            if step.kind == "deal":
                session.deal(step.dealer, {k: list(v) for k, v in step.face_up.items()})
            else:
                session.play(dict(step.event))
            want = render(LAYOUT, display_state(session.snapshot(), LAYOUT.leds_per_seat, LAYOUT.pool_leds),
                          link_alive=True)
            assert sim.wait_strip(lambda leds, w=want: leds == w) == want, session.match.expecting()
            shown += 1
        assert shown == len(steps) and session.match.results  # the round was settled on the way
        # one press of the undo button: exactly one event undone, shown on the strip
        events = session.match.event_count
        sim.command("press 0")
        time.sleep(0.1)
        sim.command("release 0")
        deadline = time.monotonic() + WAIT
        while session.match.event_count == events and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.5)  # a second undo would arrive by now
        assert session.match.event_count == events - 1
        assert [line["type"] for line in session.lines if line["source"] == "button"] == ["undo"]
        want = render(LAYOUT, display_state(session.snapshot(), LAYOUT.leds_per_seat, LAYOUT.pool_leds), True)
        assert sim.wait_strip(lambda leds: leds == want) == want
    finally:
        link.stop()
