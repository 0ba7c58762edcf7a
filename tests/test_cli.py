"""The ``fudaba`` command: score, hand, rules, simulate; exit codes and messages."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fudaba.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_hand_hachi_hachi_json(capsys):
    code, out, _ = run(capsys, "hand", "hachi-hachi", "--ruleset", "standard", "--json",
                       "01-plain-1", "01-plain-2", "01-ribbon", "02-plain-1", "02-plain-2", "03-plain-1", "03-plain-2")
    assert code == 0
    data = json.loads(out)
    assert data["group_a"] == {"name": "haneken", "name_ja": "跳剣", "kan": 7.0, "points": 84}
    assert data["group_b"]["name"] == "tan-ichi" and data["group_b"]["points"] == 36
    assert data["points"] == 120


def test_hand_text_and_options(capsys):
    code, out, _ = run(capsys, "hand", "hh", "--ruleset", "standard", "--option", "kan-size=10",
                       "01-plain-1", "01-plain-2", "01-ribbon", "02-warbler", "04-cuckoo", "06-butterflies", "08-moon")
    assert code == 0 and "sanbon" in out and "20 points" in out


def test_unknown_card_suggests(capsys):
    code, out, err = run(capsys, "hand", "hachi-hachi", "08-mon", "01-crane")
    assert code == 2 and out == ""
    assert "unknown card '08-mon'" in err and "08-moon" in err


def test_bad_option(capsys):
    code, _, err = run(capsys, "hand", "hachi-hachi", "--option", "kan-size=11", "01-crane")
    assert code == 2 and "kan-size" in err and "12" in err


def test_rules_lists_every_ruleset(capsys):
    code, out, _ = run(capsys, "rules", "hachi-hachi")
    assert code == 0
    assert "ruleset seed-1910 (default)" in out and "ruleset standard" in out and "kan-size = 12" in out
    code, out, _ = run(capsys, "rules", "hachi-hachi", "--json", "--ruleset", "standard")
    assert json.loads(out)["rulesets"]["standard"]["fields"] is True


def test_score_sample_and_json(capsys):
    code, out, _ = run(capsys, "score")
    assert code == 0 and "match over after 3 round(s)" in out
    code, out, _ = run(capsys, "score", "--json")
    data = json.loads(out)
    assert data["game"] == "hachi-hachi" and len(data["rounds"]) == 3
    assert sum(data["totals"]) == 0 and data["over"] is True


def test_score_reports_file_line_and_prints_nothing(tmp_path, capsys):
    code, out, _ = run(capsys, "simulate", "hachi-hachi", "--seed", "4", "--option", "rounds=3")
    lines = out.splitlines()
    bad = list(lines)
    play_at = next(i for i, line in enumerate(bad) if '"type": "play"' in line)
    bad[play_at] = bad[play_at].replace('"type": "play"', '"type": "draw"')
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(bad) + "\n")
    code, out, err = run(capsys, "score", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"fudaba score: {path}:{play_at + 1}: ")
    assert "rule:" in err
    broken = list(lines)
    broken[3] = "{not json"
    path.write_text("\n".join(broken) + "\n")
    code, out, err = run(capsys, "score", str(path))
    assert code == 2 and out == "" and f"{path}:4: not valid JSON" in err
    code, _, err = run(capsys, "score", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read" in err


@pytest.mark.parametrize("game", ["hachi-hachi", "bagaji", "poka"])
def test_simulate_then_score_round_trip(game, tmp_path, capsys):
    path = tmp_path / f"{game}.jsonl"
    code, out, _ = run(capsys, "simulate", game, "--seed", "2", "-o", str(path), "--option",
                       {"hachi-hachi": "rounds=3", "bagaji": "end-after-rounds=3", "poka": "stones-to-win=3"}[game])
    assert code == 0, out
    code, out, err = run(capsys, "score", str(path), "--json")
    assert code == 0, err
    assert json.loads(out)["over"] is True


def test_module_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "fudaba", "rules", "poka"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Poka" in proc.stdout


def test_score_deeply_nested_line_is_bad_input(tmp_path, capsys):
    code, out, _ = run(capsys, "simulate", "poka", "--seed", "1", "--option", "stones-to-win=3")
    path = tmp_path / "deep.jsonl"
    path.write_text(out.splitlines()[0] + "\n" + "[" * 50_000 + "]" * 50_000 + "\n")
    code, out, err = run(capsys, "score", str(path))
    assert code == 2 and out == ""
    assert err == f"fudaba score: {path}:2: not valid JSON: nested too deeply to read\n"


def test_score_names_the_line_of_undecodable_bytes(tmp_path, capsys):
    code, out, _ = run(capsys, "simulate", "poka", "--seed", "1", "--option", "stones-to-win=3")
    lines = out.encode().split(b"\n")
    lines[5] = lines[5][:-1] + b', "note": "caf\xe9"}'
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b"\n".join(lines))
    code, out, err = run(capsys, "score", str(path))
    assert code == 2 and out == ""
    column = lines[5].index(b"\xe9") + 1
    assert err == f"fudaba score: {path}:6: not UTF-8 text: byte 0xe9 at byte column {column}\n"


def test_score_reads_source_seq_evidence_and_names_a_bad_one(tmp_path, capsys):
    code, out, _ = run(capsys, "simulate", "bagaji", "--seed", "3", "--option", "end-after-rounds=2")
    lines = out.splitlines()
    marked = [lines[0]] + [
        json.dumps({**json.loads(line), "source": "camera", "seq": i, "evidence": {"confidence": 0.99}})
        for i, line in enumerate(lines[1:], start=1)
    ]
    path = tmp_path / "marked.jsonl"
    path.write_text("\n".join(marked) + "\n")
    code, out, err = run(capsys, "score", str(path), "--json")
    assert code == 0, err
    assert json.loads(out)["events"] == len(lines) - 1
    marked[4] = marked[4].replace('"source": "camera"', '"source": "webcam"')
    path.write_text("\n".join(marked) + "\n")
    code, out, err = run(capsys, "score", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"fudaba score: {path}:5: 'source' must be one of camera, button,")


def test_simulate_more_than_a_thousand_rounds(tmp_path, capsys):
    path = tmp_path / "long.jsonl"
    code, out, err = run(capsys, "simulate", "bagaji", "--seed", "1", "-o", str(path), "--option",
                         "end-after-rounds=1001", "--option", "end-after-minutes=0")
    assert code == 0, err
    assert out.startswith(f"wrote {path}: 1001 rounds")


def test_simulate_a_match_without_end_is_bad_input(capsys):
    code, out, err = run(capsys, "simulate", "bagaji", "--option", "end-after-rounds=0", "--option",
                         "end-after-minutes=0", "--max-rounds", "3")
    assert code == 2 and out == ""
    assert err == ("fudaba simulate: bagaji: the match did not end within 3 rounds; do its options set an end?"
                   " (or raise --max-rounds)\n")
    code, out, err = run(capsys, "simulate", "poka", "--max-rounds", "0")
    assert code == 2 and err == "fudaba simulate: --max-rounds must be at least 1, not 0\n"
