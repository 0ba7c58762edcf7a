"""Rulesets are data: one frozen options dataclass per game, named presets, and ``K=V`` overrides.

Each option field may carry ``metadata={"doc": "...", "choices": (...)}``; :func:`with_overrides`
parses text values (from the command line or a record header) by the field's type and checks the
choices, and :func:`describe` lists every option with its value and meaning for ``fudaba rules``.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from scorer.errors import ScorerError

OptionsT = TypeVar("OptionsT")


class OptionError(ScorerError):
    """An unknown option name or a value it cannot take."""


def option(default: Any, doc: str, choices: tuple[Any, ...] = ()) -> Any:
    """A dataclass field for an options object, with its documentation and allowed values."""
    return dataclasses.field(default=default, metadata={"doc": doc, "choices": choices})


def _parse(text: Any, hint: Any, name: str) -> Any:
    if hint is bool:
        if isinstance(text, bool):
            return text
        low = str(text).strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise OptionError(f"option {name}: expected true/false, got {text!r}")
    if hint is int:
        if isinstance(text, int) and not isinstance(text, bool):
            return text
        try:
            return int(str(text).strip())
        except ValueError:
            raise OptionError(f"option {name}: expected an integer, got {text!r}") from None
    if hint is str:
        return str(text)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if text is None or str(text).strip().lower() in ("none", "null", ""):
            return None
        return _parse(text, args[0], name)
    raise OptionError(f"option {name}: unsupported type {hint}")


def with_overrides(base: OptionsT, overrides: Mapping[str, Any]) -> OptionsT:
    """``base`` with some options replaced; text values are parsed by the option's type."""
    hints = typing.get_type_hints(type(base))
    fields = {f.name: f for f in dataclasses.fields(base)}  # type: ignore[arg-type]
    changes: dict[str, Any] = {}
    for raw_key, raw in overrides.items():
        key = raw_key.replace("-", "_")
        if key not in fields:
            near = ", ".join(n.replace("_", "-") for n in fields)
            raise OptionError(f"unknown option {raw_key!r}; options are: {near}")
        value = _parse(raw, hints[key], raw_key)
        choices = fields[key].metadata.get("choices", ())
        if choices and value not in choices:
            allowed = ", ".join(str(c) for c in choices)
            raise OptionError(f"option {raw_key}: {value!r} is not one of {allowed}")
        changes[key] = value
    return dataclasses.replace(base, **changes)  # type: ignore[type-var]


def describe(options: Any) -> list[tuple[str, Any, str, tuple[Any, ...]]]:
    """(name, value, doc, choices) for every option, names written with dashes."""
    out = []
    for f in dataclasses.fields(options):
        out.append(
            (
                f.name.replace("_", "-"),
                getattr(options, f.name),
                f.metadata.get("doc", ""),
                tuple(f.metadata.get("choices", ())),
            )
        )
    return out


def to_json(options: Any) -> dict[str, Any]:
    """Options as a JSON object (dashed names)."""
    return {name: value for name, value, _doc, _choices in describe(options)}


def differences(options: Any, base: Any) -> dict[str, Any]:
    """The options whose value differs from ``base``, as ``{dashed-name: value}``."""
    mine = to_json(options)
    theirs = to_json(base)
    return {k: v for k, v in mine.items() if theirs.get(k) != v}
