"""The ``fudaba`` command speaks with one voice: ``fudaba <command>:`` messages, ``usage: fudaba …``
lines, ``--version``, a missing command is a usage error, one spelling per command with the other as
an alias, and the README's command table matches ``fudaba --help``."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import fudaba
from fudaba.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys):
    code, out, err = run(capsys, "--version")
    assert code == 0 and err == ""
    assert out == f"fudaba {fudaba.__version__}\n"
    with open(ROOT / "pyproject.toml", "rb") as fh:
        project = tomllib.load(fh)["project"]
    assert "version" in project.get("dynamic", []) or project["version"] == fudaba.__version__


def test_bare_fudaba_prints_the_help_and_exits_2(capsys):
    code, out, err = run(capsys)
    assert code == 2 and out == ""
    assert err.startswith("usage: fudaba [-h] [--version] COMMAND") and "recognise" in err


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["synth"], "usage: fudaba synth "),
        (["synth", "bogus"], "usage: fudaba synth "),
        (["train"], "usage: fudaba train "),
        (["hand"], "usage: fudaba hand "),
        (["recognise"], "usage: fudaba recognise "),
        (["enrol"], "usage: fudaba enrol "),
        (["replay"], "usage: fudaba replay "),
        (["device", "test", "--seconds", "x"], "usage: fudaba device test "),
    ],
)
def test_every_usage_line_names_fudaba(capsys, argv, usage):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(usage)
    command = " ".join(usage.split()[1:])
    assert f"\n{command}: error: " in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "{missing}"], "fudaba score: "),
        (["hand", "poker", "AS"], "fudaba hand: unknown game"),
        (["rules", "--ruleset", "bogus"], "fudaba rules: no game has a ruleset 'bogus'"),
        (["simulate", "poka", "--players", "3"], "fudaba simulate: Poka seats 2 players, not 3"),
        (["mat", "--game", "poka", "--players", "3"], "fudaba mat: Poka seats 2 players, not 3"),
        (["recognise", "{missing}"], "fudaba recognise: "),
        (["enrol", "--deck", "hanafuda", "{missing}"], "fudaba enrol: "),
        (["synth", "styles", "--deck", "hanafuda", "--art-dir", "{missing}"], "fudaba synth: "),
        (["replay", "{missing}", "--game", "poka", "-o", "{missing}.jsonl"], "fudaba replay: "),
        (["device", "test", "{missing}"], "fudaba device test: no such port"),
        (["run", "--camera", "0", "--port", "1"], "fudaba run: --camera needs --game"),
    ],
)
def test_every_error_starts_with_fudaba_and_its_command(capsys, tmp_path, argv, message):
    missing = str(tmp_path / "nothing-here")
    code, _, err = run(capsys, *(a.replace("{missing}", missing) for a in argv))
    assert code == 2
    assert err.startswith(message), err
    assert not re.search(r"^(fudaba|synth|train|recognise|enroll?):? ", err.replace(message, "", 1), re.M)


@pytest.mark.parametrize(("alias", "command"), [("recognize", "recognise"), ("enroll", "enrol")])
def test_the_other_spelling_is_an_alias(capsys, alias, command):
    code, out, _ = run(capsys, alias, "--help")
    assert code == 0 and out.startswith(f"usage: fudaba {command} ")
    code, _, err = run(capsys)
    assert f"fudaba {alias} ({command})" in err


def test_one_spelling_of_enrol_in_the_tree():
    """``enrol`` (and ``recognise``) everywhere but in the alias itself."""
    allowed = {ROOT / "fudaba" / "cli.py", Path(__file__).resolve()}
    found = []
    for folder in ("fudaba", "vision", "scorer", "web", "firmware_bridge", "bench", "docs", "tests", "models"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in (".py", ".md", ".html", ".js", ".json") or path in allowed:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            if re.search(r"enroll(?!ed|ing)|recogniz", text, re.I):
                found.append(str(path.relative_to(ROOT)))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    readme_hits = [m.group(0) for m in re.finditer(r"`fudaba (recognize|enroll)`", readme)]
    assert not found
    assert sorted(readme_hits) == ["`fudaba enroll`", "`fudaba recognize`"]  # the alias sentence


def test_rules_with_a_ruleset_and_no_game_shows_the_games_that_have_it(capsys):
    code, out, _ = run(capsys, "rules", "--ruleset", "standard")
    assert code == 0
    assert out.startswith("Hachi-hachi (hachi-hachi), 3-7 players")
    assert "Bagaji" not in out and "Poka (poka)" not in out
    code, out, _ = run(capsys, "rules", "--ruleset", "seed")
    assert code == 0 and "Bagaji (bagaji)" in out and "Poka (poka), 2 players" in out
    assert "Hachi-hachi (hachi-hachi)" not in out and "2-2" not in out
    code, out, err = run(capsys, "rules", "--ruleset", "bogus")
    assert code == 2 and out == ""
    assert err == (
        "fudaba rules: no game has a ruleset 'bogus' (rulesets by game: hachi-hachi: seed-1910, standard;"
        " bagaji: seed; poka: seed)\n"
    )


# --------------------------------------------------------------------------- the README's table
def _help_commands(text: str) -> list[str]:
    """The commands a ``--help`` lists under its positional argument, in order."""
    block = text.split("positional arguments:", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^    (\S+)", block, re.M)]


def _readme_rows() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## The `fudaba` command", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if line.startswith("| `fudaba")]
    assert len(rows) == len([line for line in table.splitlines() if line.startswith("|")]) - 2
    return [row.split(" | ", 1)[0] for row in rows]


def _invocations(cell: str) -> list[list[str]]:
    """Each `…` of a row's first cell as words, less the leading ``fudaba`` (``synth video …`` omits it)."""
    out = []
    for code in re.findall(r"`([^`]+)`", cell):
        words = code.replace("\\|", "|").split()
        out.append(words[1:] if words[0] == "fudaba" else words)
    return out


def test_the_readme_command_table_matches_fudaba_help(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    commands = _help_commands(out)
    assert {"score", "hand", "rules", "recognise", "enrol", "device", "run", "demo", "train"} <= set(commands)
    rows = [inv for cell in _readme_rows() for inv in _invocations(cell)]
    in_readme = {words[0] for words in rows if not words[0].startswith("--")}
    assert in_readme == set(commands), f"README lacks {set(commands) - in_readme}, has extra {in_readme - set(commands)}"
    assert ["--version"] in rows
    for name in ("device", "synth", "train"):  # every sub-command of those that have them
        code, out, _ = run(capsys, name, "--help")
        assert code == 0
        listed = re.search(r"\{([a-z,-]+)\}", out)
        subs = set(listed.group(1).split(",")) if listed else set(_help_commands(out))
        in_row = {w for words in rows if words[0] == name and len(words) > 1 for w in words[1].split("|")}
        assert subs == in_row, f"fudaba {name}: README has {sorted(in_row)}, --help {sorted(subs)}"
    for words in rows:  # each option the README shows is one the command takes
        if words[0].startswith("--"):
            continue
        prefix = words[:2] if words[0] in ("device", "synth", "train") else words[:1]
        if "|" in " ".join(prefix):
            prefix = [prefix[0], prefix[1].split("|")[0]]
        code, out, _ = run(capsys, *prefix, "--help")
        assert code == 0, prefix
        for option in re.findall(r"(--[a-z][a-z-]*|-o\b)", " ".join(words)):
            assert option in out, f"`fudaba {' '.join(prefix)}` takes no {option} (README)"


def test_the_readme_lists_every_extra():
    with open(ROOT / "pyproject.toml", "rb") as fh:
        extras = set(tomllib.load(fh)["project"]["optional-dependencies"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`(\w+)` \(", readme.split("Extras, each", 1)[1].split("\n\n", 1)[0]))
    assert listed == extras
