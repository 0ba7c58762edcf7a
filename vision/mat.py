"""The printable table mat: markers, zones and seat labels at true scale, tiled across sheets.

The mat is drawn in table millimetres (:mod:`vision.zones`: x to the right, y down, the play area
(0, 0)-(width, height)) and extends ``margin_mm`` beyond the play area on every side. On it:

- the four ArUco markers (:mod:`vision.markers`: DICT_4X4_50, ids 0-3), each centred on its
  play-area corner, ``marker_mm`` the side of its black square (default 40 mm), with a white
  quiet zone one cell wide that nothing else is drawn on;
- the outline of every zone of :func:`vision.zones.zone_layout` with its name: ``STOCK``, the
  game's shared zone (``FIELD``, ``PILE`` or ``DISCARD``) upright for seat 1, and ``Seat N`` in
  each seat zone, upright for the player sitting there;
- in the margins: a title (game, players, deck, play-area size), the markers' size, a 100 mm
  scale bar to check the print scale, and how to assemble the sheets.

Tiling: each sheet prints a window of the mat at 100 % inside a :data:`PRINTER_MARGIN_MM` border;
neighbouring windows overlap by :data:`OVERLAP_MM`, and a dashed line runs down the middle of
every overlap, on both sheets. Assembly: cut each sheet along its dashed lines on the left and
top (sheets of column 1 and row 1 keep that edge), lay the sheets out by their labels ("row 1
col 2"), each cut edge on the dashed line of the sheet to its left or above, and tape. Sheets are
portrait or landscape, whichever needs fewer; the tiling is shifted (adding white beyond the mat)
so that no overlap crosses a marker where that is possible.

The enrolment grid sheet (:mod:`vision.enrol_grid`) is a diagram, scaled to fit one sheet: where
each card of the deck goes when it is laid out for ``fudaba enrol``.

Rasters: a mat image at ``dpi`` has its top-left pixel's outer corner at table point
(−margin_mm, −margin_mm); pixel column u spans table x from u / dpi × 25.4 − margin_mm (mm).
Everything is drawn black on white; the PDF stores bilevel pages (CCITT G4) through Pillow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from scorer.cards import BLANK, HANAFUDA, PLAYING
from vision.enrol_grid import GRID_COLUMNS, GRID_ROWS, enrol_grid
from vision.markers import QUIET_RATIO, marker_centres, marker_image
from vision.zones import CARD_MM, ZoneLayout

MM_PER_INCH = 25.4
PRINTER_MARGIN_MM = 10.0
"""Unprinted border kept on every side of a sheet (most printers cannot print to the edge)."""
OVERLAP_MM = 12.0
"""Width of the strip that neighbouring sheets share."""
DEFAULT_MARKER_MM = 40.0
SCALE_BAR_MM = 100.0
LINE_MM = 0.5
"""Width of zone outlines."""


@dataclass(frozen=True, slots=True)
class Paper:
    """A sheet size, portrait (mm)."""

    name: str
    width_mm: float
    height_mm: float


PAPERS: dict[str, Paper] = {
    "a3": Paper("a3", 297.0, 420.0),
    "a4x4": Paper("a4x4", 210.0, 297.0),
    "letter": Paper("letter", 215.9, 279.4),
}
"""Sheets the mat can be tiled on. ``a4x4`` is A4 (named after the design's "4 × A4"; a mat for
four players or more needs more than four A4 sheets, and gets them)."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One sheet of the mat: its place in the assembly and the window of the mat it prints (mm)."""

    row: int
    """From 1, top to bottom."""
    column: int
    """From 1, left to right."""
    window_mm: tuple[float, float, float, float]
    """x0, y0, x1, y1 of the printed window in table mm."""


@dataclass(frozen=True, slots=True)
class MatPlan:
    """What a mat shows and how it is tiled."""

    layout: ZoneLayout
    marker_mm: float
    """Side of each marker's black square (mm)."""
    margin_mm: float
    """How far the mat extends beyond the play area on each side (mm)."""
    paper: Paper
    landscape: bool
    rows: int
    columns: int
    tiles: tuple[Tile, ...]
    """Row by row, left to right."""

    @property
    def extent_mm(self) -> tuple[float, float, float, float]:
        """x0, y0, x1, y1 of the mat (table mm)."""
        w, h = self.layout.area_mm
        m = self.margin_mm
        return (-m, -m, w + m, h + m)

    @property
    def sheet_mm(self) -> tuple[float, float]:
        """Width and height of each sheet as printed (mm)."""
        p = self.paper
        return (p.height_mm, p.width_mm) if self.landscape else (p.width_mm, p.height_mm)


def margin_for(marker_mm: float) -> float:
    """The mat's margin around the play area (mm): the markers' quiet zones plus room for text."""
    return round((marker_mm * QUIET_RATIO / 2 + 16.0) * 2) / 2


def _axis(lo: float, hi: float, printable: float, clear: list[tuple[float, float]]) -> tuple[float, int]:
    """(start, count) of windows ``printable`` long, overlapping by OVERLAP_MM, covering lo-hi:
    the fewest, then the first start (stepping back from lo) whose overlaps avoid ``clear``."""
    stride = printable - OVERLAP_MM

    def count(start: float) -> int:
        return max(1, math.ceil((hi - start - OVERLAP_MM) / stride - 1e-9))

    fewest = count(lo)
    for k in range(int(stride // 5) + 1):
        start = lo - 5.0 * k
        n = count(start)
        if n != fewest:
            continue
        strips = [(start + i * stride, start + i * stride + OVERLAP_MM) for i in range(1, n)]
        if all(b <= c0 or a >= c1 for a, b in strips for c0, c1 in clear):
            return start, n
    return lo, fewest


def plan_mat(layout: ZoneLayout, paper: str | Paper, marker_mm: float = DEFAULT_MARKER_MM) -> MatPlan:
    """The tiling of ``layout``'s mat on ``paper`` (a :data:`PAPERS` name or a :class:`Paper`)."""
    if isinstance(paper, str):
        if paper not in PAPERS:
            raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
        paper = PAPERS[paper]
    if not 15.0 <= marker_mm <= 100.0:
        raise ValueError(f"marker size must be 15-100 mm, not {marker_mm:g}")
    margin = margin_for(marker_mm)
    w, h = layout.area_mm
    q = marker_mm * QUIET_RATIO / 2 + 2.0
    clear_x = [(-q, q), (w - q, w + q)]
    clear_y = [(-q, q), (h - q, h + q)]
    best = None
    for landscape in (True, False):
        sw, sh = (paper.height_mm, paper.width_mm) if landscape else (paper.width_mm, paper.height_mm)
        pw, ph = sw - 2 * PRINTER_MARGIN_MM, sh - 2 * PRINTER_MARGIN_MM
        x0, cols = _axis(-margin, w + margin, pw, clear_x)
        y0, rows = _axis(-margin, h + margin, ph, clear_y)
        if best is None or rows * cols < best[0]:
            best = (rows * cols, landscape, x0, y0, cols, rows, pw, ph)
    assert best is not None
    _, landscape, x0, y0, cols, rows, pw, ph = best
    tiles = tuple(
        Tile(r + 1, c + 1, (x0 + c * (pw - OVERLAP_MM), y0 + r * (ph - OVERLAP_MM),
                            x0 + c * (pw - OVERLAP_MM) + pw, y0 + r * (ph - OVERLAP_MM) + ph))
        for r in range(rows) for c in range(cols)
    )
    return MatPlan(layout, marker_mm, margin, paper, landscape, rows, cols, tiles)


# ---------------------------------------------------------------------------- drawing
@lru_cache(maxsize=32)
def _font(size_px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(6, size_px))


def _text(img: Image.Image, centre: tuple[float, float], text: str, height_px: float, ccw_deg: float = 0.0,
          box: bool = False) -> tuple[float, float]:
    """Draw ``text`` black, centred on ``centre`` (px), letters ``height_px`` tall, turned
    ``ccw_deg`` counter-clockwise; ``box``: on a white box. Returns the text's width and height (px)."""
    font = _font(round(height_px))
    left, top, right, bottom = font.getbbox(text)
    pad = max(2, round(height_px * 0.3))
    mask = Image.new("L", (right - left + 2 * pad, bottom - top + 2 * pad), 0)
    ImageDraw.Draw(mask).text((pad - left, pad - top), text, fill=255, font=font)
    if ccw_deg % 360:
        mask = mask.rotate(ccw_deg, expand=True, resample=Image.Resampling.BICUBIC)
    x, y = round(centre[0] - mask.width / 2), round(centre[1] - mask.height / 2)
    if box:
        ImageDraw.Draw(img).rectangle((x, y, x + mask.width - 1, y + mask.height - 1), fill=255)
    img.paste(0, (x, y), mask)
    return (right - left, bottom - top)


class _Canvas:
    """A raster of a window of the mat: table mm → pixels at ``dpi``."""

    def __init__(self, window_mm: tuple[float, float, float, float], dpi: float) -> None:
        self.x0, self.y0, x1, y1 = window_mm
        self.s = dpi / MM_PER_INCH
        self.img = Image.new("L", (round((x1 - self.x0) * self.s), round((y1 - self.y0) * self.s)), 255)
        self.draw = ImageDraw.Draw(self.img)

    def px(self, x: float, y: float) -> tuple[float, float]:
        return ((x - self.x0) * self.s, (y - self.y0) * self.s)

    def edge(self, x: float, y: float) -> tuple[int, int]:
        """The pixel edge nearest to table point (x, y): shared by touching rectangles."""
        u, v = self.px(x, y)
        return (round(u), round(v))

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: int) -> None:
        (u0, v0), (u1, v1) = self.edge(x0, y0), self.edge(x1, y1)
        if u1 > u0 and v1 > v0:
            self.draw.rectangle((u0, v0, u1 - 1, v1 - 1), fill=fill)

    def line(self, pts: list[tuple[float, float]], width_mm: float, closed: bool = False) -> None:
        p = [self.px(x, y) for x, y in pts]
        if closed:
            p.append(p[0])
        self.draw.line(p, fill=0, width=max(1, round(width_mm * self.s)), joint="curve")

    def text(self, at: tuple[float, float], text: str, height_mm: float, ccw_deg: float = 0.0) -> tuple[float, float]:
        w, h = _text(self.img, self.px(*at), text, height_mm * self.s, ccw_deg)
        return (w / self.s, h / self.s)


def _draw_marker(cv: _Canvas, marker_id: int, centre: tuple[float, float], size_mm: float) -> None:
    """Marker ``marker_id``: its white quiet zone, then its black cells, each cell on pixel edges."""
    cell = size_mm / 6
    bits = marker_image(marker_id, 1)  # 8 × 8: quiet ring, black border, 4 × 4 bits
    ox, oy = centre[0] - 4 * cell, centre[1] - 4 * cell
    cv.rect(ox, oy, ox + 8 * cell, oy + 8 * cell, 255)
    for i in range(8):
        for j in range(8):
            if bits[i, j] < 128:
                cv.rect(ox + j * cell, oy + i * cell, ox + (j + 1) * cell, oy + (i + 1) * cell, 0)


def _zone_title(name: str) -> str:
    return f"Seat {name.split(':', 1)[1]}" if name.startswith("seat:") else name.upper()


def _title(plan: MatPlan) -> str:
    lay = plan.layout
    w, h = lay.area_mm
    return (f"fudaba mat · {lay.game} · {lay.players} players · {lay.deck} cards · "
            f"play area {w:g} x {h:g} mm")


def draw_window(plan: MatPlan, window_mm: tuple[float, float, float, float], dpi: float) -> Image.Image:
    """The mat seen through ``window_mm`` (x0, y0, x1, y1, table mm) at ``dpi`` (grey "L", black on white)."""
    cv = _Canvas(window_mm, dpi)
    lay = plan.layout
    w, h = lay.area_mm
    m = plan.margin_mm
    # Mat edge (thin, to cut along) and the play area between the markers' quiet zones.
    cv.line([(-m, -m), (w + m, -m), (w + m, h + m), (-m, h + m)], 0.25, closed=True)
    q = plan.marker_mm * QUIET_RATIO / 2 + 1.0
    corners = marker_centres(lay.area_mm)
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        d = (b - a) / max(float(((b - a) ** 2).sum() ** 0.5), 1e-9)
        cv.line([tuple(a + d * q), tuple(b - d * q)], 0.25)
    for z in lay.zones:
        cv.line(list(z.polygon_mm), LINE_MM, closed=True)
        cx, cy = z.center_mm
        if z.name.startswith("seat:"):
            cv.text((cx, cy), _zone_title(z.name), 14.0, -z.angle_deg)
        else:
            cv.text((cx, cy), _zone_title(z.name), 12.0 if z.name == "stock" else 16.0, 0.0)
    for k, (x, y) in enumerate(corners):
        _draw_marker(cv, k, (float(x), float(y)), plan.marker_mm)
    # Margins: title and marker size on top, scale bar and assembly below.
    cv.text((w / 2, -m * 0.62), _title(plan), 5.0)
    from vision.recognise.index_reader import INDEX_PX_NEEDED

    camera = (" · Playing cards: film this mat at 1920 x 1080, as their corner index must show about "
              f"{INDEX_PX_NEEDED:g} px tall to be read" if lay.deck == "playing" else "")
    cv.text((w / 2, -m * 0.28), f"Markers: ArUco DICT_4X4_50, ids 0-3 clockwise from top-left, black squares "
                                f"{plan.marker_mm:g} mm, centred on the play area's corners{camera}", 3.5)
    bar_x, bar_y = q + 25.0, h + m * 0.42
    seg = SCALE_BAR_MM / 10
    cv.line([(bar_x, bar_y), (bar_x + SCALE_BAR_MM, bar_y), (bar_x + SCALE_BAR_MM, bar_y + 3.0),
             (bar_x, bar_y + 3.0)], 0.3, closed=True)
    for i in range(0, 10, 2):
        cv.rect(bar_x + i * seg, bar_y, bar_x + (i + 1) * seg, bar_y + 3.0, 0)
    cv.text((bar_x + SCALE_BAR_MM / 2, bar_y + 8.0), f"{SCALE_BAR_MM:g} mm: print at 100 % (actual size), "
                                                    "then check this bar with a ruler", 3.5)
    cv.text((w / 2 + SCALE_BAR_MM / 2 + q, h + m * 0.8),
            "Assemble: cut each sheet along its dashed lines on the left and top, lay it with each cut edge on "
            "the dashed line of the sheet to its left or above (by the row / col labels), tape", 3.0)
    return cv.img


def draw_mat(plan: MatPlan, dpi: float) -> Image.Image:
    """The whole mat (its :attr:`MatPlan.extent_mm`) at ``dpi``, untiled."""
    return draw_window(plan, plan.extent_mm, dpi)


def _dashed(draw: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float], s: float) -> None:
    length = math.dist(a, b)
    dash, gap = 3.0 * s, 2.0 * s
    t = 0.0
    while t < length:
        t1 = min(t + dash, length)
        p0 = (a[0] + (b[0] - a[0]) * t / length, a[1] + (b[1] - a[1]) * t / length)
        p1 = (a[0] + (b[0] - a[0]) * t1 / length, a[1] + (b[1] - a[1]) * t1 / length)
        draw.line([p0, p1], fill=0, width=max(1, round(0.3 * s)))
        t = t1 + gap


def draw_sheet(plan: MatPlan, tile: Tile, dpi: float) -> Image.Image:
    """One sheet of the tiled mat at ``dpi``: the tile's window inside the printer margin, dashed
    lines down the middle of its overlaps, and its label ("row R col C")."""
    s = dpi / MM_PER_INCH
    sw, sh = plan.sheet_mm
    page = Image.new("L", (round(sw * s), round(sh * s)), 255)
    pm = PRINTER_MARGIN_MM
    page.paste(draw_window(plan, tile.window_mm, dpi), (round(pm * s), round(pm * s)))
    draw = ImageDraw.Draw(page)
    x0, y0, x1, y1 = pm, pm, sw - pm, sh - pm
    half = OVERLAP_MM / 2
    if tile.column > 1:
        _dashed(draw, ((x0 + half) * s, y0 * s), ((x0 + half) * s, y1 * s), s)
    if tile.column < plan.columns:
        _dashed(draw, ((x1 - half) * s, y0 * s), ((x1 - half) * s, y1 * s), s)
    if tile.row > 1:
        _dashed(draw, (x0 * s, (y0 + half) * s), (x1 * s, (y0 + half) * s), s)
    if tile.row < plan.rows:
        _dashed(draw, (x0 * s, (y1 - half) * s), (x1 * s, (y1 - half) * s), s)
    # The label goes in the printable corner farthest from any marker (never over one).
    wx0, wy0, wx1, wy1 = tile.window_mm
    markers = marker_centres(plan.layout.area_mm)
    inset = OVERLAP_MM + 6.0
    spots = [(wx0 + inset + 20, wy0 + inset), (wx1 - inset - 20, wy0 + inset),
             (wx0 + inset + 20, wy1 - inset), (wx1 - inset - 20, wy1 - inset)]
    spot = max(spots, key=lambda p: min(math.dist(p, tuple(c)) for c in markers))
    label = f"row {tile.row} col {tile.column} (of {plan.rows} x {plan.columns})"
    _text(page, ((spot[0] - wx0 + pm) * s, (spot[1] - wy0 + pm) * s), label, 3.5 * s, box=True)
    return page


def draw_grid_sheet(deck: str, paper: str | Paper, dpi: float) -> Image.Image:
    """The enrolment grid of ``deck`` as a diagram on one landscape sheet (not to scale): one
    box per card with its id, in :func:`vision.enrol_grid.enrol_grid` order, the optional extras
    (blank or jokers) below in dashed boxes."""
    if isinstance(paper, str):
        paper = PAPERS[paper]
    s = dpi / MM_PER_INCH
    sw, sh = paper.height_mm, paper.width_mm
    page = Image.new("L", (round(sw * s), round(sh * s)), 255)
    draw = ImageDraw.Draw(page)
    pm = PRINTER_MARGIN_MM + 5.0
    cols = GRID_COLUMNS[deck]
    cw, ch = CARD_MM[deck]
    gap = 8.0
    rows = GRID_ROWS + 1
    title_h = 30.0
    scale = min((sw - 2 * pm + gap) / (cols * (cw + gap)), (sh - 2 * pm - title_h + gap) / (rows * (ch + gap)))
    bw, bh, g = cw * scale, ch * scale, gap * scale
    gx0 = (sw - (cols * (bw + g) - g)) / 2
    gy0 = pm + title_h
    deck_name = "hanafuda" if deck == HANAFUDA else "playing-card"
    _text(page, (sw / 2 * s, (pm + 4) * s), f"fudaba enrolment grid · {deck_name} deck · "
                                            f"{cols} columns x {GRID_ROWS} rows (not to scale)", 5.0 * s)
    _text(page, (sw / 2 * s, (pm + 12) * s), "Lay every card face up as shown, about 8 mm apart, the first row "
                                             "towards the top of the photo; photograph from above; "
                                             f"then: fudaba enrol --deck {deck} PHOTO...", 3.2 * s)
    _text(page, (sw / 2 * s, (pm + 18) * s), "Dashed boxes: extra cards, only with --extras "
                                             "(the blank / the jokers)", 3.2 * s)
    for cell in enrol_grid(deck, extras=True):
        x = gx0 + cell.column * (bw + g)
        y = gy0 + cell.row * (bh + g)
        box = (x * s, y * s, (x + bw) * s, (y + bh) * s)
        if cell.row < GRID_ROWS:
            draw.rectangle(box, outline=0, width=max(1, round(0.4 * s)))
        else:
            for a, b in (((x, y), (x + bw, y)), ((x + bw, y), (x + bw, y + bh)),
                         ((x + bw, y + bh), (x, y + bh)), ((x, y + bh), (x, y))):
                _dashed(draw, (a[0] * s, a[1] * s), (b[0] * s, b[1] * s), s)
        label = "blank" if cell.card_id == BLANK else cell.card_id
        parts = label.split("-", 1) if "-" in label else [label]  # 01 / plain-1, JOKER / BLACK
        for i, part in enumerate(parts):
            yy = y + bh / 2 + (i - (len(parts) - 1) / 2) * min(bw / 5, 4.0) * 1.3
            _text(page, ((x + bw / 2) * s, yy * s), part, min(bw / 5, 4.0) * s)
    return page


def write_grid_sheet(deck: str, out: str | Path, paper: str = "a4x4", dpi: float = 300.0) -> Path:
    """Write the enrolment grid sheet of ``deck`` alone (:func:`draw_grid_sheet`, the last page of
    :func:`write_mat`): a one-page PDF, or a PNG when ``out`` ends in ``.png``; returns the path
    written. ValueError for an unknown deck or paper."""
    if deck not in (HANAFUDA, PLAYING):
        raise ValueError(f"unknown deck {deck!r}; decks: {HANAFUDA}, {PLAYING}")
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
    out = Path(out)
    if out.suffix.lower() not in (".pdf", ".png"):
        out = out.with_name(out.name + ".pdf")
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet = draw_grid_sheet(deck, paper, dpi)
    if out.suffix.lower() == ".png":
        sheet.save(out, dpi=(dpi, dpi))
    else:
        sheet.convert("1", dither=Image.Dither.NONE).save(out, "PDF", resolution=dpi,
                                                           title=f"fudaba enrolment grid ({deck})", creator="fudaba")
    return out


@dataclass(frozen=True, slots=True)
class MatFiles:
    """What :func:`write_mat` wrote."""

    pdf: Path
    png: Path
    """The whole mat, untiled, at ``png_dpi``."""
    grid_png: Path
    """The enrolment grid sheet."""
    pages: int
    """Pages of the PDF: the mat's sheets, then the grid sheet."""
    plan: MatPlan


def write_mat(layout: ZoneLayout, paper: str, out_pdf: str | Path, *, marker_mm: float = DEFAULT_MARKER_MM,
              dpi: float = 300.0, png_dpi: float = 150.0) -> MatFiles:
    """Write the mat of ``layout``: ``out_pdf`` (the tiled sheets at 100 % on ``paper`` at
    ``dpi``, then the enrolment grid sheet), beside it ``<name>.png`` (the whole mat at
    ``png_dpi``) and ``<name>-grid.png`` (the grid sheet)."""
    if layout.deck not in (HANAFUDA, PLAYING):
        raise ValueError(f"unknown deck {layout.deck!r}")
    plan = plan_mat(layout, paper, marker_mm)
    out_pdf = Path(out_pdf)
    if out_pdf.suffix.lower() != ".pdf":
        out_pdf = out_pdf.with_name(out_pdf.name + ".pdf")
    out_pdf.parent.mkdir(parents=True, exist_ok=True)
    sheets = [draw_sheet(plan, t, dpi).convert("1", dither=Image.Dither.NONE) for t in plan.tiles]
    grid = draw_grid_sheet(layout.deck, plan.paper, dpi)
    sheets.append(grid.convert("1", dither=Image.Dither.NONE))
    sheets[0].save(out_pdf, "PDF", resolution=dpi, save_all=True, append_images=sheets[1:],
                   title=_title(plan), creator="fudaba mat")
    png = out_pdf.with_suffix(".png")
    draw_mat(plan, png_dpi).save(png, dpi=(png_dpi, png_dpi))
    grid_png = out_pdf.with_name(out_pdf.stem + "-grid.png")
    grid.save(grid_png, dpi=(dpi, dpi))
    return MatFiles(out_pdf, png, grid_png, len(sheets), plan)


def mat_command(game: str, players: int, paper: str = "a3", deck: str | None = None, output: str | None = None,
                marker_mm: float = DEFAULT_MARKER_MM, dpi: float = 300.0) -> str:
    """``fudaba mat``: check the arguments (ValueError with the reason), write the mat, and
    return the report to print. The deck defaults to the game's (playing cards for Bagaji, else hanafuda)."""
    from scorer.games import game as game_spec
    from vision.zones import zone_layout

    spec = game_spec(game)
    if not spec.min_players <= players <= spec.max_players:
        raise ValueError(f"{spec.title} seats {spec.seats} players, not {players}")
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
    deck = deck or spec.description.deck_family
    if deck not in (HANAFUDA, PLAYING):
        raise ValueError(f"unknown deck {deck!r}; decks: {HANAFUDA}, {PLAYING}")
    if not 72 <= dpi <= 600:
        raise ValueError(f"--dpi must be 72-600, not {dpi:g}")
    layout = zone_layout(spec.name, players, deck)
    out = output or f"fudaba-mat-{spec.name}-{players}p-{paper}.pdf"
    files = write_mat(layout, paper, out, marker_mm=marker_mm, dpi=dpi)
    plan = files.plan
    w, h = layout.area_mm
    return (f"wrote {files.pdf}: {files.pages} pages, the mat on {plan.rows} x {plan.columns} "
            f"{plan.paper.name} sheets ({'landscape' if plan.landscape else 'portrait'}) and the enrolment grid\n"
            f"wrote {files.png} (the whole mat) and {files.grid_png}\n"
            f"play area {w:g} x {h:g} mm, markers {plan.marker_mm:g} mm; print at 100 % (actual size, no "
            f"fit to page) and check the 100 mm scale bar\n")
