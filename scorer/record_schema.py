"""The JSON Schema of game records, built from the event registries of the games.

``scorer/data/record.schema.json`` is the committed output of :func:`schema`; a test checks that the
two agree, so the file always documents the events the engines accept.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Any, Union

from scorer.games import GAME_MODULES, game
from scorer.record import FORMAT, SOURCES, VERSION

META_PROPERTIES: dict[str, Any] = {
    "source": {"$ref": "#/$defs/source"},
    "seq": {"$ref": "#/$defs/seq"},
    "evidence": {"$ref": "#/$defs/evidence"},
}
"""The record-level keys any event or correction line may carry (``scorer.record.META_KEYS``)."""


def _type_schema(hint: Any) -> dict[str, Any]:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return {"anyOf": [_type_schema(a) for a in typing.get_args(hint)]}
    if hint is type(None):
        return {"type": "null"}
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _type_schema(args[0])}
        return {"type": "array", "prefixItems": [_type_schema(a) for a in args], "minItems": len(args), "maxItems": len(args)}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if hint in simple:
        return {"type": simple[hint]}
    return {}


def _event_schema(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    props: dict[str, Any] = {"type": {"const": cls.TYPE}}
    required = ["type"]
    for f in dataclasses.fields(cls):
        props[f.name] = _type_schema(hints[f.name])
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    props.update(META_PROPERTIES)
    doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
    return {
        "type": "object",
        "description": doc,
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def schema() -> dict[str, Any]:
    """The whole schema (draft 2020-12)."""
    defs: dict[str, Any] = {
        "header": {
            "type": "object",
            "description": "Line 1 of a record.",
            "properties": {
                "format": {"const": FORMAT},
                "version": {"const": VERSION},
                "game": {"enum": list(GAME_MODULES)},
                "ruleset": {"type": "string"},
                "options": {
                    "type": "object",
                    "description": "Option values by dashed name; omitted options take the ruleset's value.",
                },
                "players": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"seat": {"type": "integer", "minimum": 1}, "name": {"type": "string"}},
                        "required": ["seat", "name"],
                        "additionalProperties": False,
                    },
                    "minItems": 2,
                },
                "deck": {"type": "string"},
                "start": {"type": "string", "description": "ISO 8601 start time"},
            },
            "required": ["format", "version", "game", "ruleset", "players", "deck"],
            "additionalProperties": False,
        },
        "source": {
            "description": "Record-level: who or what produced the line. "
            + "; ".join(f"{name}: {meaning}" for name, meaning in SOURCES.items())
            + ".",
            "enum": list(SOURCES),
        },
        "seq": {
            "description": "Record-level: the line's sequence number in a live record; the lines that "
            "carry one carry strictly increasing numbers (gaps allowed).",
            "type": "integer",
            "minimum": 1,
        },
        "evidence": {
            "description": "Record-level: why the line was written, free-form, e.g. "
            '{"frames": [t0, t1], "confidence": 0.97, "note": "..."} (times in seconds since the '
            "match started, confidence 0-1).",
            "type": "object",
        },
        "undo": {
            "type": "object",
            "description": "Correction: take back the last effective event(s).",
            "properties": {"type": {"const": "undo"}, "count": {"type": "integer", "minimum": 1}, **META_PROPERTIES},
            "required": ["type"],
            "additionalProperties": False,
        },
        "replace": {
            "type": "object",
            "description": "Correction: take back the last effective event and apply this one instead "
            "(the event itself carries no record-level keys).",
            "properties": {"type": {"const": "replace"}, "event": {"type": "object"}, **META_PROPERTIES},
            "required": ["type", "event"],
            "additionalProperties": False,
        },
        "confirm": {
            "type": "object",
            "description": "Correction that changes nothing: a player confirmed the last effective event.",
            "properties": {"type": {"const": "confirm"}, **META_PROPERTIES},
            "required": ["type"],
            "additionalProperties": False,
        },
    }
    games = []
    for name in GAME_MODULES:
        registry = game(name).match.EVENTS
        arms = []
        for kind, cls in registry.types().items():
            key = f"{name}.{kind}"
            defs[key] = _event_schema(cls)
            arms.append({"$ref": f"#/$defs/{key}"})
        defs[f"{name}-event"] = {"description": f"Any {name} event.", "oneOf": arms}
        games.append({"$ref": f"#/$defs/{name}-event"})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://fudaba.example/record.schema.json",
        "title": "fudaba game record line",
        "description": (
            "A fudaba game record is JSON Lines: line 1 is a header, every further line an event of "
            "the header's game or a correction (undo, replace, confirm). Seats are numbered from 1. "
            "Events may carry 'at', seconds since the match started; any event or correction line "
            "may carry the record-level keys 'source', 'seq' and 'evidence', which the engines never see."
        ),
        "anyOf": [
            {"$ref": "#/$defs/header"},
            {"$ref": "#/$defs/undo"},
            {"$ref": "#/$defs/replace"},
            {"$ref": "#/$defs/confirm"},
            *games,
        ],
        "$defs": defs,
    }


def dumps() -> str:
    """The schema as the committed file's text."""
    return json.dumps(schema(), ensure_ascii=False, indent=2) + "\n"


if __name__ == "__main__":
    print(dumps(), end="")
