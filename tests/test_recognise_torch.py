"""The PyTorch fallback of recognition gives what the ONNX export gives (needs the ``train`` extra:
skipped without ultralytics; CI runs it in the training venv)."""

from __future__ import annotations

import pytest

pytest.importorskip("ultralytics")
pytest.importorskip("onnxruntime")
np = pytest.importorskip("numpy")

from vision.evaluate.recognition import render_scenes  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.synth.fixed_scenes import topdown_scene  # noqa: E402


def test_torch_fallback_matches_onnx_runtime():
    ((image, _),) = render_scenes("hanafuda", ("mantia",), [59], size=(1280, 720), scene=topdown_scene)
    onnx = Recogniser("hanafuda", backends=("onnxruntime",)).recognise(image)
    torch_rec = Recogniser("hanafuda", backends=("torch",))
    assert torch_rec.backend == "torch"
    got = torch_rec.recognise(image)
    assert len(got) == len(onnx) >= 5
    assert [c.label for c in got] == [c.label for c in onnx]
    assert np.allclose([c.confidence for c in got], [c.confidence for c in onnx], atol=2e-3)
    assert np.allclose([c.box for c in got], [c.box for c in onnx], atol=1.0)


def test_backends_fall_back_in_order():
    rec = Recogniser("hanafuda", backends=("openvino", "onnxruntime", "torch"))
    assert rec.backend in ("openvino", "onnxruntime")


def test_enrolment_with_a_fine_tune_keeps_its_classifier_beside_the_profile(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    import cv2

    from vision.evaluate.recognition import accuracy, outcomes
    from vision.recognise import load_profile
    from vision.synth.artset import find_style
    from vision.synth.fixed_scenes import enrolment_scene
    from vision.synth.scene import render
    from vision.train.enrol import work_dir

    grid = render(enrolment_scene(5, "hanafuda", "mantia", size=(1280, 720)), {"mantia": find_style("hanafuda", "mantia")})
    photo = tmp_path / "grid.png"
    cv2.imwrite(str(photo), grid.image)
    out = tmp_path / "deck.npz"
    # in a process of its own, as `fudaba enrol --fine-tune` runs: this one imported ultralytics
    # before vision.train.offline could make it offline
    script = (
        "import json, sys\n"
        "from vision.recognise import Recogniser\n"
        "from vision.train.enrol import fine_tune\n"
        "rec = Recogniser('hanafuda', backends=('onnxruntime',))\n"
        f"profile, report = fine_tune(rec, [{str(photo)!r}], {str(out)!r}, scenes=10, minutes=0.01,"
        " practice_scenes=2, workers=1)\n"
        "print(json.dumps({'cards': report[0].cards, 'tuned_after': rec.classifier_tuned,"
        " 'classifier': str(profile.classifier)}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    beside = tmp_path / "deck-classifier.onnx"
    assert said == {"cards": 48, "tuned_after": False, "classifier": str(beside)}  # the recogniser is left as it was
    assert beside.is_file() and not work_dir(out).exists()
    profile = load_profile(out)
    assert profile.classifier == beside and profile.meta["fine_tune"]["scenes"] == 10
    tuned = Recogniser("hanafuda", backends=("onnxruntime",), profile=out)
    assert tuned.classifier_tuned and tuned.classifier_file == beside
    assert accuracy(outcomes(grid.labels, tuned.recognise(grid.image)), 1.0)["accuracy"] == 1.0
    shipped = Recogniser("hanafuda", backends=("onnxruntime",))
    tuned.use_profile(None)  # back to the shipped classifier
    assert not tuned.classifier_tuned and tuned.classifier_sha256() == shipped.classifier_sha256()
