"""`fudaba recognise` and `fudaba enrol` as a user meets them (issue 38, point 6): what each says,
on standard output or error, and its exit status, for files that are missing, folders, text,
truncated, greyscale, four-channel or float images; the `?` and plain cards explained; a missing
backend; a file that is not a deck profile; `--models`' default; enrolment's time estimate, its
grid sheet and its refusal of a photo without the grid. The shipped models on ONNX Runtime; no
real enrolment runs (the estimate's test stops before it). No network, camera or GPU."""

from __future__ import annotations

import json
import re
import time
from types import SimpleNamespace

import pytest

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")
pytest.importorskip("onnxruntime")

from fudaba import cli  # noqa: E402
from vision.recognise.recogniser import Recogniser  # noqa: E402


def _render(scene):
    from vision.synth.artset import find_style
    from vision.synth.scene import render

    return render(scene, {"mantia": find_style("hanafuda", "mantia")}).image


@pytest.fixture(scope="module")
def frame_png(tmp_path_factory):
    """A rendered top-down table of hanafuda (a test-split seed), as a PNG."""
    from vision.synth.fixed_scenes import topdown_scene

    path = tmp_path_factory.mktemp("frames") / "table.png"
    cv2.imwrite(str(path), _render(topdown_scene(9, "hanafuda", ("mantia",), n_cards=12, size=(960, 540))))
    return path


@pytest.fixture(scope="module")
def grid_png(tmp_path_factory):
    """A rendered photo of a hanafuda deck laid out in the enrolment grid."""
    from vision.synth.fixed_scenes import enrolment_scene

    path = tmp_path_factory.mktemp("grid") / "grid.png"
    cv2.imwrite(str(path), _render(enrolment_scene(5, "hanafuda", "mantia", size=(1280, 720))))
    return path


def run(capsys, *argv):
    """(exit status, stdout, stderr) of `fudaba ARGV`, run in this process."""
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- files that are not images
def test_a_missing_file_is_said_and_exits_2(tmp_path, frame_png, capsys):
    missing = tmp_path / "nowhere.jpg"
    code, out, err = run(capsys, "recognise", missing)
    assert code == 2 and out == ""
    assert err == f"fudaba recognise: {missing}: no such file; skipped\n"
    # the other images are still recognised; the status still says one was not
    code, out, err = run(capsys, "recognise", frame_png, missing)
    assert code == 2 and out.startswith(f"{frame_png}: ") and " cards (onnxruntime)" in out
    assert f"{missing}: no such file" in err


def test_a_folder_is_said_and_exits_2(tmp_path, capsys):
    code, out, err = run(capsys, "recognise", tmp_path)
    assert code == 2 and out == ""
    assert err.startswith(f"fudaba recognise: {tmp_path}: a folder, not an image (give the images in it: ")


def test_a_text_file_is_said_and_exits_2(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("not an image")
    code, out, err = run(capsys, "recognise", notes)
    assert code == 2 and out == ""
    assert err.startswith(f"fudaba recognise: {notes}: not an image (")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    assert run(capsys, "recognise", empty)[::2] == (2, f"fudaba recognise: {empty}: an empty file, not an image; "
                                                        "skipped\n")


@pytest.mark.parametrize("suffix", [".jpg", ".png"])
def test_a_truncated_image_is_said_and_exits_2(tmp_path, frame_png, suffix, capsys):
    # OpenCV alone reads most of a truncated JPEG and recognises what it got: the cut is said instead
    whole = tmp_path / f"whole{suffix}"
    cv2.imwrite(str(whole), cv2.imread(str(frame_png)))
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 3])
    code, out, err = run(capsys, "recognise", cut)
    assert code == 2 and out == ""
    assert err.startswith(f"fudaba recognise: {cut}: a truncated image (the file ends before the picture does")


# --------------------------------------------------------------------------- the output explained
def _fake(label, ids, confidence, unsure, alternatives=()):
    """What the CLI reads of a recognised card."""
    poly = ((100.0, 100.0), (154.0, 100.0), (154.0, 187.0), (100.0, 187.0))
    return SimpleNamespace(label=label, card_ids=ids, face_up=True, polygon=poly, box=(100.0, 100.0, 154.0, 187.0),
                           confidence=confidence, unsure=unsure, alternatives=alternatives, named_by="card",
                           index_only=False, as_dict=lambda: {"label": label, "card_ids": list(ids)})


def test_the_question_mark_is_explained_once_and_in_the_help(frame_png, monkeypatch, capsys):
    cards = [_fake("08-moon", ("08-moon",), 0.99, False),
             _fake("03-curtain", ("03-curtain",), 0.41, True, (("03-ribbon", 0.3),))]
    monkeypatch.setattr(Recogniser, "recognise", lambda self, frame: cards)
    code, out, err = run(capsys, "recognise", frame_png, frame_png)
    assert code == 0 and err == ""
    assert re.search(r"^  \? 03-curtain +0\.41 +at \(127, 144\)  \(or 03-ribbon 0\.30\)$", out, re.M), out
    legend = [line for line in out.splitlines() if line.startswith("? ")]
    assert len(legend) == 1 and out.endswith(legend[0] + "\n")
    threshold = Recogniser("hanafuda", backends=("onnxruntime",)).card_unsure_below
    assert legend[0].startswith(f"? unsure: confidence below {threshold:.2f}, the threshold calibrated so that "
                                "the sure answers are right 99.5 % of the time (a game asks the players)")
    # no `?`, no legend; the JSON has its own field for it
    monkeypatch.setattr(Recogniser, "recognise", lambda self, frame: cards[:1])
    assert "unsure" not in run(capsys, "recognise", frame_png)[1]
    with pytest.raises(SystemExit) as done:
        cli.main(["recognise", "--help"])
    assert done.value.code == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "? marks an unsure card: its confidence is below the threshold calibrated so that the sure answers " \
           "are right 99.5 % of the time" in said


def test_a_plain_is_printed_as_its_months_plain_with_its_ids(frame_png, monkeypatch, capsys):
    cards = [_fake("01-plain", ("01-plain-1", "01-plain-2"), 0.98, False),
             _fake("12-plain", ("12-plain-2", "12-plain-3"), 0.5, True, (("12-plain-1", 0.4),)),
             _fake("12-plain-1", ("12-plain-1",), 0.97, False)]
    monkeypatch.setattr(Recogniser, "recognise", lambda self, frame: cards)
    code, out, _ = run(capsys, "recognise", frame_png)
    lines = out.splitlines()
    assert code == 0
    assert lines[1].endswith("01-plain          0.98  at (127, 144)  (a January plain: 01-plain-1 or 01-plain-2)")
    assert lines[2].endswith("(a December plain: 12-plain-2 or 12-plain-3)  (or 12-plain-1 0.40)")
    assert lines[3].endswith("12-plain-1        0.97  at (127, 144)")  # one id: nothing to add
    # and on a real frame, every plain printed says what it may be, as the recogniser's card ids do
    monkeypatch.undo()
    code, out, _ = run(capsys, "recognise", frame_png)
    plains = [line for line in out.splitlines() if re.match(r"^  [ ?] \d\d-plain ", line)]
    assert code == 0 and plains, out
    for line in plains:
        month = line[4:6]
        assert re.search(rf"\(an? \w+ plain: {month}-plain-\d or {month}-plain-\d\)", line), line
    doc = json.loads(run(capsys, "recognise", frame_png, "--json")[1])
    assert all(len(c["card_ids"]) == 2 for c in doc["cards"] if c["label"].endswith("-plain"))


# --------------------------------------------------------------------------- backends, profiles, models
def test_backend_torch_without_torch_says_to_install_torch(frame_png, capsys):
    from vision.recognise.backends import available_backends

    if "torch" in available_backends():
        pytest.skip("torch and ultralytics are installed here")
    code, out, err = run(capsys, "recognise", frame_png, "--backend", "torch")
    assert code == 2 and out == ""
    assert err.startswith("fudaba recognise: --backend torch: torch is not installed here; install torch and "
                          "ultralytics with pip install 'fudaba[train]'")
    assert "install onnxruntime" not in err and err.rstrip().endswith("or leave out --backend to use onnxruntime")
    # with a backend after it that is installed, that one runs, and the skip is said
    code, out, err = run(capsys, "recognise", frame_png, "--backend", "torch,onnxruntime")
    assert code == 0 and " cards (onnxruntime)" in out
    assert err.startswith("fudaba recognise: --backend torch: torch is not installed here, trying the next")
    code, _, err = run(capsys, "recognise", frame_png, "--backend", "tensorflow")
    assert code == 2 and err.startswith("fudaba recognise: --backend tensorflow: unknown backend; backends: ")


def test_a_profile_that_is_not_a_profile_says_so(tmp_path, frame_png, capsys):
    np.save(tmp_path / "array.npy", np.zeros(3))
    np.savez(tmp_path / "other.npz", weights=np.zeros(3))
    np.savez(tmp_path / "objects.npz", meta=np.array([{"deck": "hanafuda"}], dtype=object),
             embeddings=np.zeros((2, 4)), labels=np.zeros(2))
    (tmp_path / "notes.npz").write_text("hello")
    said = {
        "array.npy": "not a deck profile (a single NumPy array, .npy)",
        "other.npz": "not a deck profile (a .npz without meta, embeddings, labels)",
        "objects.npz": "not a deck profile (a damaged or different .npz archive)",  # numpy would say allow_pickle
        "notes.npz": "not a deck profile (not a .npz archive)",  # numpy would say the file holds pickled data
        "missing.npz": "no such file",
    }
    for name, what in said.items():
        code, out, err = run(capsys, "recognise", frame_png, "--profile", tmp_path / name)
        assert code == 2 and out == ""
        assert err == (f"fudaba recognise: {tmp_path / name}: {what}; a deck profile is the .npz file "
                       "`fudaba enrol` writes\n")
        assert "pickle" not in err


def test_models_help_names_the_real_default(tmp_path, monkeypatch, capsys):
    from vision.recognise.manifest import models_dir

    def squeezed(text):  # argparse wraps a long path where it has hyphens too
        return "".join(text.split())

    monkeypatch.delenv("FUDABA_MODELS", raising=False)
    for command in ("recognise", "enrol"):
        with pytest.raises(SystemExit) as done:
            cli.main([command, "--help"])
        assert done.value.code == 0
        assert squeezed(f"--models DIR models folder, one sub-folder per deck (default: {models_dir()}; "
                        "$FUDABA_MODELS overrides it)") in squeezed(capsys.readouterr().out)
        assert (models_dir() / "hanafuda" / "manifest.json").is_file()  # where the shipped models really are
    monkeypatch.setenv("FUDABA_MODELS", str(tmp_path))
    with pytest.raises(SystemExit):
        cli.main(["recognise", "--help"])
    assert squeezed(f"(default: {tmp_path}, from $FUDABA_MODELS)") in squeezed(capsys.readouterr().out)


# --------------------------------------------------------------------------- kinds of image
def test_greyscale_four_channel_and_float_images_are_read_or_refused_with_a_message(tmp_path, frame_png, capsys):
    bgr = cv2.imread(str(frame_png))
    grey, bgra = tmp_path / "grey.png", tmp_path / "alpha.png"
    cv2.imwrite(str(grey), cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))
    cv2.imwrite(str(bgra), cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA))
    unit, bytes_, grey_unit = tmp_path / "unit.pfm", tmp_path / "bytes.pfm", tmp_path / "grey.tiff"
    cv2.imwrite(str(unit), bgr.astype(np.float32) / 255)
    cv2.imwrite(str(bytes_), bgr.astype(np.float32))
    cv2.imwrite(str(grey_unit), cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255)
    hdr = tmp_path / "hdr.pfm"
    cv2.imwrite(str(hdr), bgr.astype(np.float32) * 4 + 1)
    accepted = {
        grey: ["greyscale: read as colour with three equal channels (colour helps tell some cards apart)"],
        bgra: ["its alpha channel (transparency) is ignored"],
        unit: ["float pixels in 0-1: scaled to 0-255"],
        bytes_: ["float pixels in 0-255: taken as 8-bit values"],
        grey_unit: ["greyscale: read as colour with three equal channels (colour helps tell some cards apart)",
                    "float pixels in 0-1: scaled to 0-255"],
    }
    plain = run(capsys, "recognise", frame_png)[1].splitlines()[1:]
    for path, notes in accepted.items():
        code, out, err = run(capsys, "recognise", path)
        assert code == 0, err
        assert err == "".join(f"fudaba recognise: {path}: {n}\n" for n in notes)
        assert re.match(rf"{re.escape(str(path))}: \d+ cards \(onnxruntime\)", out)
        if path in (bgra, unit, bytes_):  # the same pixels as the PNG: the same cards
            assert out.splitlines()[1:] == plain
    code, out, err = run(capsys, "recognise", hdr)
    assert code == 2 and out == ""
    assert re.fullmatch(rf"fudaba recognise: {re.escape(str(hdr))}: float pixels from \d+ to \d+, neither 0-1 nor "
                        r"0-255: save it as an 8-bit PNG or JPEG; skipped\n", err), err
    # enrolment reads its photos itself: it refuses a float photo rather than read it differently
    code, _, err = run(capsys, "enrol", "--deck", "hanafuda", unit, "--practice", "0", "--out", tmp_path / "p.npz")
    assert code == 2 and err.startswith(f"fudaba enrol: {unit}: float pixels: enrolment reads 8- or 16-bit photos")


# --------------------------------------------------------------------------- enrolment
def test_enrol_estimates_its_time_from_this_machine(grid_png, tmp_path, monkeypatch, capsys):
    import vision.recognise.enrol as en

    seconds_per_scene = 0.4

    def practice(recogniser, faces, scenes=300, seed=0, textures=()):  # a machine this slow
        time.sleep(0.05 + seconds_per_scene * scenes)
        return SimpleNamespace(labels=np.zeros(12 * scenes, np.int32))

    def enrol(*args, **kwargs):
        raise ValueError("stopped by the test before the long part")

    monkeypatch.setattr(en, "practice", practice)
    monkeypatch.setattr(en, "enrol", enrol)
    out_file = tmp_path / "mine.npz"
    code, out, err = run(capsys, "enrol", "--deck", "hanafuda", grid_png, "--practice", "150", "--out", out_file)
    assert code == 2 and err == "fudaba enrol: stopped by the test before the long part\n"
    lines = out.splitlines()
    assert lines[0] == "reading the grid in 1 photo…"
    m = re.fullmatch(r"about (.+) on this machine: the references of 48 cards \((\d+) s\), 150 practice scenes "
                     r"with your deck's faces \((\d+) s\), the head's fit \((.+)\)…", lines[1])
    assert m, lines[1]
    assert 55 <= int(m[3]) <= 75  # 150 × 0.4 s, measured, not a fixed figure per scene
    # without practice scenes, none is timed or counted
    code, out, _ = run(capsys, "enrol", "--deck", "hanafuda", grid_png, "--practice", "0", "--out", out_file)
    assert code == 2 and "practice" not in out.splitlines()[1]
    assert out.splitlines()[1].startswith("about ") and "the head's fit (" in out
    assert not out_file.exists()


def test_enrol_writes_the_grid_sheet_it_expects(tmp_path, capsys):
    from PIL import Image

    pdf = tmp_path / "grid.pdf"
    code, out, err = run(capsys, "enrol", "--deck", "hanafuda", "--sheet", pdf)
    assert code == 0 and err == ""
    assert out == (f"wrote {pdf}: the hanafuda enrolment grid on one A4 sheet; lay your deck out as it shows, face "
                   "up, photograph it from above, then: fudaba enrol --deck hanafuda PHOTO\n")
    assert pdf.read_bytes().startswith(b"%PDF")
    png = tmp_path / "grid.png"
    assert run(capsys, "enrol", "--deck", "playing", "--sheet", png, "--paper", "letter")[0] == 0
    with Image.open(png) as im:
        assert im.size == (round(279.4 / 25.4 * 300), round(215.9 / 25.4 * 300))  # Letter, landscape, 300 dpi
    # the same page as the mat's last
    from vision.mat import draw_grid_sheet

    with Image.open(png) as im:
        assert np.array_equal(np.asarray(im.convert("L")), np.asarray(draw_grid_sheet("playing", "letter", 300)))
    code, _, err = run(capsys, "enrol", "--deck", "hanafuda")
    assert code == 2 and err == ("fudaba enrol: give the photos of your deck laid out in the enrolment grid "
                                 "(`fudaba enrol --deck hanafuda --sheet grid.pdf` draws it, as does the last page "
                                 "of `fudaba mat`)\n")


def test_enrol_refuses_a_photo_without_the_grid(tmp_path, frame_png, grid_png, capsys):
    out_file = tmp_path / "mine.npz"
    white = tmp_path / "white.png"
    cv2.imwrite(str(white), np.full((540, 960, 3), 255, np.uint8))
    for photos in ([frame_png], [white], [grid_png, frame_png]):
        started = time.perf_counter()
        code, out, err = run(capsys, "enrol", "--deck", "hanafuda", *photos, "--out", out_file)
        assert code == 2 and "on this machine" not in out  # refused before anything long
        assert time.perf_counter() - started < 15
        assert err.startswith(f"fudaba enrol: {photos[-1]}: the grid sheet was not found (found ")
        assert err.endswith("lay the deck out as the grid sheet shows (`fudaba enrol --deck hanafuda --sheet "
                            "grid.pdf` draws it, as does the last page of `fudaba mat`) and photograph it from "
                            "above\n")
        assert not out_file.exists()
    for bad, what in ((tmp_path / "none.jpg", "no such file"), (tmp_path, "a folder, not an image")):
        code, out, err = run(capsys, "enrol", "--deck", "hanafuda", bad)
        assert code == 2 and out == "" and err.startswith(f"fudaba enrol: {bad}: {what}")
