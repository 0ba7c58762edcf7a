"""The suite's own layout: test modules share helpers through conftest.py or a helpers module
(tests/helpers.py, tests/browser_kit.py, tests/firmware_kit.py …), never by importing one another
(a test module imported by another runs its module-level code twice and couples their fixtures)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_test_module_imports_another() -> None:
    pattern = re.compile(r"^\s*(from\s+tests(\.|\s+import\s+)test_\w*|import\s+tests\.test_)", re.M)
    found = [f"{p.name}:{p.read_text(encoding='utf-8').count(chr(10), 0, m.start()) + 1}"
             for p in sorted(TESTS.glob("*.py")) for m in pattern.finditer(p.read_text(encoding="utf-8"))]
    assert not found, f"test modules importing test modules: {found}"
