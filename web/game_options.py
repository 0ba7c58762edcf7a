"""A game's options as the new-game form needs them: each option's name, kind, allowed values and
default under every ruleset (``GET /api/games``, :func:`options_json`).

The values are read from the options dataclasses (:mod:`scorer.rulesets`), never restated here: a
kind is the field's type (``bool``, ``int``, ``int | None``) or ``choice`` where the field lists its
values. What the form shows up front (:data:`MAIN`) is the page's choice: the length of a match and
the cards used.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from scorer import rulesets
from scorer.games import GameSpec

MAIN = {
    "hachi-hachi": ("rounds",),
    "bagaji": ("deck", "end-after-minutes", "end-after-rounds"),
    "poka": ("stones-to-win",),
}
"""Game → the options the form shows up front (the rest sit under "more options"), in that order."""


def _kind(hint: Any, choices: tuple[Any, ...]) -> tuple[str, bool]:
    """``(kind, nullable)`` of an option of type ``hint``: ``choice``, ``bool``, ``int`` or ``text``."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    nullable = len(args) < len(typing.get_args(hint))
    base = args[0] if nullable and len(args) == 1 else hint
    if choices:
        return "choice", nullable
    if base is bool:
        return "bool", nullable
    if base is int:
        return "int", nullable
    return "text", nullable


def options_json(spec: GameSpec) -> list[dict[str, Any]]:
    """Every option of ``spec``, in the dataclass's order with the :data:`MAIN` ones first:
    ``{"name": dashed name, "label": its i18n key, "kind", "values": allowed values (a choice), "nullable",
    "main": shown up front, "doc": the option's English text, "defaults": {ruleset: value}}``."""
    per_ruleset = {r: rulesets.to_json(spec.options(r, {})) for r in spec.rulesets}
    first = next(iter(spec.rulesets.values()))
    hints = typing.get_type_hints(type(first))
    main = MAIN.get(spec.name, ())
    out = []
    for f in dataclasses.fields(first):
        name = f.name.replace("_", "-")
        choices = tuple(f.metadata.get("choices", ()))
        kind, nullable = _kind(hints[f.name], choices)
        out.append({"name": name, "label": f"opt-{name}", "kind": kind, "values": list(choices),
                    "nullable": nullable, "main": name in main, "doc": f.metadata.get("doc", ""),
                    "defaults": {r: values[name] for r, values in per_ruleset.items()}})
    order = {name: i for i, name in enumerate(main)}
    return sorted(out, key=lambda o: order.get(o["name"], len(order)))
