"""Manual mode on a phone: taps per entry and the delay from a tap to the page's update.

Playwright drives Debian's Chromium at 390 × 844 against the server ``fudaba run`` starts (waitress
over a fresh history, in this process) and enters simulated rounds (:func:`scorer.simulate.entered_rounds`)
by the move screen alone, as ``tests/test_phone_rounds.py`` does: each deal by its face-up cards,
each event by its kind's button and its cards in the picker, a hidden hand shown by picking it.

* **Taps per entry**: clicks (and the dealer's choice where the page asks) per thing entered;
  median per game, and over all.
* **Tap → update**: in the page, from the click that records an event (capture phase,
  ``performance.now()``) to the end of the render of the snapshot that carries it (the stream's
  push, the whole page redrawn); median and p95 per game. Taps that only narrow the picker redraw
  at once, without the server, and are not counted here.

Run from the checkout: ``python bench/phone.py [--seeds 3] [--screenshots docs]``. Prints the
figures and writes ``bench/out/phone.json`` (``--json``); ``--screenshots DIR`` keeps each game's
move screen as ``DIR/phone-moves-GAME.png``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

GAMES = [  # (game, seats, seeds): the first seed of each holds a claim / a starting hand / a stop and show
    ("hachi-hachi", 3, (10, 1, 2, 3, 4)),
    ("poka", 2, (100, 4, 5, 6, 7)),
    ("bagaji", 3, (0, 6, 7, 8, 9)),
]

TIMING_JS = """() => {
  window.__delays = []; window.__tap = null; window.__seq = STATE ? STATE.seq : 0;
  document.addEventListener("click", () => { window.__tap = performance.now(); }, true);
  const shown = render;
  render = function (s) {
    shown(s);
    if (s.seq > window.__seq) {
      if (window.__tap !== null) window.__delays.push(performance.now() - window.__tap);
      window.__tap = null; window.__seq = s.seq;
    }
  };
}"""


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=3, help="rounds per game (1-5)")
    p.add_argument("--json", type=Path, default=Path("bench/out/phone.json"))
    p.add_argument("--screenshots", type=Path, default=None, help="keep each game's move screen here")
    args = p.parse_args()

    import waitress
    from playwright.sync_api import sync_playwright

    from fudaba.counter import CounterControl
    from fudaba.serve import THREADS, build
    from scorer.simulate import entered_rounds
    from tests.browser_kit import CHROMIUM, FLAGS, merged_shows, start_game, tap_deal, tap_event

    if CHROMIUM is None:
        print("Debian's chromium is not installed", file=sys.stderr)
        return 2
    app = build(Path(tempfile.mkdtemp()) / "h.sqlite3", None, (), CounterControl())
    srv = waitress.create_server(app, host="127.0.0.1", port=0, threads=THREADS)
    threading.Thread(target=srv.run, daemon=True).start()
    base = f"http://127.0.0.1:{srv.effective_port}"
    out: dict[str, Any] = {"viewport": [390, 844], "games": {}}
    all_taps: list[int] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for game, seats, seeds in GAMES:
            taps: list[int] = []
            delays: list[float] = []
            kinds: dict[str, list[int]] = {}
            shot = args.screenshots is None
            for seed in seeds[: args.seeds]:
                steps, results = entered_rounds(game, seats, seed)
                page = browser.new_page(viewport={"width": 390, "height": 844}, bypass_csp=True)
                start_game(page, base, game, seats)
                page.evaluate(TIMING_JS)
                for step in merged_shows(steps):
                    if step.kind == "deal":
                        k = tap_deal(page, dict(step.face_up), step.dealer)
                        kind = "deal"
                    else:
                        if not shot and page.locator("#moves .grid").count():
                            args.screenshots.mkdir(parents=True, exist_ok=True)
                            page.locator("#moves").scroll_into_view_if_needed()
                            page.screenshot(path=str(args.screenshots / f"phone-moves-{game}.png"))
                            shot = True
                        k = tap_event(page, step.event)
                        kind = step.event["type"]
                    taps.append(k)
                    kinds.setdefault(kind, []).append(k)
                page.wait_for_selector("#scorebar details.settled")
                sums = [int(x) for x in page.locator("#scorebar .sum").all_inner_texts()]
                if sums != list(results[0]):
                    raise SystemExit(f"{game} seed {seed}: the page settled {sums}, the engine {results[0]}")
                delays.extend(page.evaluate("window.__delays"))
                page.close()
            all_taps.extend(taps)
            row = {"entries": len(taps), "taps_median": statistics.median(taps), "taps_mean": round(statistics.mean(taps), 2),
                   "taps_by_kind": {k: statistics.median(v) for k, v in sorted(kinds.items())},
                   "share_within_3_taps": round(sum(1 for t in taps if t <= 3) / len(taps), 3),
                   "update_ms_median": round(statistics.median(delays), 1), "update_ms_p95": round(_p95(delays), 1),
                   "updates": len(delays), "seeds": list(seeds[: args.seeds])}
            out["games"][game] = row
            print(f"{game:12s} {row['entries']:4d} entries  taps median {row['taps_median']} (mean {row['taps_mean']}, "
                  f"{100 * row['share_within_3_taps']:.0f} % in <= 3)  tap->update median {row['update_ms_median']} ms "
                  f"p95 {row['update_ms_p95']} ms over {row['updates']}  by kind {row['taps_by_kind']}")
        browser.close()
    out["taps_median_all"] = statistics.median(all_taps)
    print(f"all          taps median {out['taps_median_all']}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=2))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
