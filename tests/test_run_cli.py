"""``fudaba run`` and ``fudaba demo`` as a user starts them: the address, bad input, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from fudaba.cli import main
from tests.helpers import sigint_default

REPO = Path(__file__).resolve().parent.parent


def test_run_serves_the_dashboard_prints_its_address_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "fudaba", "run", "--data", str(tmp_path / "h.sqlite3"),
                             "--port", "0", "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=REPO, preexec_fn=sigint_default)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        assert lines[0].startswith("fudaba: history in ") and str(tmp_path) in lines[0]
        url = lines[1].split("dashboard at ", 1)[1].strip()
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "api/games", timeout=10) as r:
            assert {g["name"] for g in json.load(r)} == {"hachi-hachi", "bagaji", "poka"}
        with urllib.request.urlopen(url, timeout=10) as r:
            assert b"New game" in r.read()
    finally:
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(20) == 0
    assert (tmp_path / "h.sqlite3").exists() and (tmp_path / "secret.key").stat().st_mode & 0o077 == 0


def test_run_on_a_busy_port_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["run", "--data", str(tmp_path / "h.sqlite3"), "--port", str(port), "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err


@pytest.mark.parametrize("args,message", [
    (["--camera", "0"], "--camera needs --game"),
    (["--camera", "nothing-here.mp4", "--game", "poka"], "nothing-here.mp4"),
    (["--camera", "0", "--game", "chess"], "unknown game"),
    (["--camera", "0", "--game", "poka", "--option", "jokers"], "KEY=VALUE"),
])
def test_run_with_a_bad_camera_setup_says_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        args: list[str], message: str) -> None:
    pytest.importorskip("cv2")
    code = main(["run", "--data", str(tmp_path / "h.sqlite3"), "--port", "0", "--no-browser", *args])
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_history_file_that_is_not_one_is_said_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "h.sqlite3"
    bad.write_bytes(b"not a database" * 200)
    assert main(["run", "--data", str(bad), "--port", "0", "--no-browser"]) == 2
    assert "not a fudaba history" in capsys.readouterr().err


def test_run_on_every_address_prints_a_pin_and_asks_for_it(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "fudaba", "run", "--data", str(tmp_path / "h.sqlite3"),
                             "--host", "0.0.0.0", "--port", "0", "--no-browser"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=REPO, preexec_fn=sigint_default)
    try:
        assert proc.stdout is not None
        lines = []
        while not (lines and lines[-1].startswith("fudaba: PIN ")):
            lines.append(proc.stdout.readline())
            assert lines[-1], lines
        pin = lines[-1].split()[2]
        assert len(pin) == 6 and pin.isdigit()
        port = lines[1].split("dashboard at ", 1)[1].strip().rsplit(":", 1)[1].strip("/")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/sessions", timeout=10)
            raise AssertionError("the API answered without the PIN")
        except urllib.error.HTTPError as exc:
            assert exc.code == 401
    finally:
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(20) == 0


def test_run_can_be_told_which_camera_sources_a_page_may_name(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from fudaba.serve import build
    from tests.helpers import Browser

    app = build(tmp_path / "h.sqlite3", None, sources="webcams")
    here = Browser(app.test_client())
    r = here.post("/api/camera/look", {"source": str(tmp_path / "table.mp4")})
    assert r.status_code == 403 and "only webcams" in r.json["error"]
    assert build(tmp_path / "h2.sqlite3", None).extensions["fudaba"]["config"].sources_from_requests == "local"
    app.extensions["fudaba"]["config"].setup.close()
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--data", str(tmp_path / "h3.sqlite3"), "--sources", "everything", "--no-browser"])
    assert exit_.value.code == 2 and "--sources" in capsys.readouterr().err
