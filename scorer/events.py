"""Events: one game action each, frozen and JSON-serialisable.

Every game defines its event types as frozen dataclasses subclassing :class:`Event` and registers
them in its own :class:`EventRegistry`. The JSON form is a flat object with a ``type`` key and one
key per field; tuples become lists. ``at`` (seconds since the match started, optional) is carried
but ignored by equality. Seats are numbered from 1 in events, records and zones.

Chance is an event like any other (the deal, each stock draw), so a recorded game replays with no
random generator. Corrections (``undo``, ``replace``) are record-level events handled by
:mod:`scorer.record`.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, Union

from scorer.errors import InvalidEventError


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events. Subclasses set ``TYPE`` and add fields."""

    TYPE: ClassVar[str] = ""

    at: float | None = field(default=None, compare=False, kw_only=True)
    """Seconds since the match started, when known (camera time); not part of equality."""

    def to_json(self) -> dict[str, Any]:
        """The event as a plain JSON object, ``type`` first; ``at`` only when set."""
        out: dict[str, Any] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "at" and value is None:
                continue
            out[f.name] = _to_plain(value)
        return out

    def describe(self) -> str:
        """A one-line human description; games may override."""
        parts = [f"{k}={v}" for k, v in self.to_json().items() if k not in ("type", "at")]
        return f"{self.TYPE} " + " ".join(parts)


def _to_plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_to_plain(v) for v in value]
    return value


E = TypeVar("E", bound=type[Event])


class EventRegistry:
    """The event types of one game, by their ``type`` name."""

    def __init__(self, game: str) -> None:
        self.game = game
        self._types: dict[str, type[Event]] = {}

    def register(self, cls: E) -> E:
        """Class decorator: register an event type under its ``TYPE``."""
        if not cls.TYPE:
            raise TypeError(f"{cls.__name__} has no TYPE")
        self._types[cls.TYPE] = cls
        return cls

    def types(self) -> dict[str, type[Event]]:
        """Registered event classes by type name."""
        return dict(self._types)

    def __contains__(self, cls: object) -> bool:
        """True when ``cls`` is one of this game's event classes."""
        return cls in self._types.values()

    def from_json(self, obj: Any) -> Event:
        """Build an event from its JSON object; raise :class:`InvalidEventError` saying what is wrong."""
        if not isinstance(obj, dict):
            raise InvalidEventError(f"an event must be a JSON object, not {type(obj).__name__}")
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise InvalidEventError("an event needs a string field 'type'")
        cls = self._types.get(kind)
        if cls is None:
            raise InvalidEventError(
                f"unknown {self.game} event type {kind!r}; known: {', '.join(sorted(self._types))}"
            )
        fields = _fields_of(cls)
        extra = [key for key in obj if key != "type" and key not in fields]
        if extra:
            raise InvalidEventError(f"{kind}: unknown field(s) {', '.join(sorted(extra))}")
        kwargs: dict[str, Any] = {}
        for name, (hint, required) in fields.items():
            if name not in obj:
                if required:
                    raise InvalidEventError(f"{kind}: missing field {name!r}")
                continue
            kwargs[name] = _convert(obj[name], hint, f"{kind}.{name}")
        try:
            event = cls(**kwargs)
        except (TypeError, ValueError) as exc:
            raise InvalidEventError(f"{kind}: {exc}") from None
        return event


_FIELDS: dict[type[Event], dict[str, tuple[Any, bool]]] = {}


def _fields_of(cls: type[Event]) -> dict[str, tuple[Any, bool]]:
    """Each field of ``cls`` in order: its resolved type hint and whether it is required.

    Resolved once per class (``typing.get_type_hints`` evaluates every annotation string and would
    otherwise dominate a replay's time); event classes are frozen, so the answer never changes.
    """
    fields = _FIELDS.get(cls)
    if fields is None:
        hints = typing.get_type_hints(cls)
        fields = {
            f.name: (
                hints[f.name],
                f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
            )
            for f in dataclasses.fields(cls)
        }
        _FIELDS[cls] = fields
    return fields


def _convert(value: Any, hint: Any, where: str) -> Any:
    """Check ``value`` against a type hint, turning lists into tuples."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        errors = []
        for arm in typing.get_args(hint):
            try:
                return _convert(value, arm, where)
            except InvalidEventError as exc:
                errors.append(str(exc))
        raise InvalidEventError(f"{where}: {value!r} does not fit {_name(hint)}")
    if hint is type(None):
        if value is None:
            return None
        raise InvalidEventError(f"{where}: expected null, got {value!r}")
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list | tuple):
            raise InvalidEventError(f"{where}: expected a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise InvalidEventError(f"{where}: expected {len(args)} items, got {len(value)}")
        return tuple(_convert(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(args, value, strict=True)))
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise InvalidEventError(f"{where}: expected true or false, got {value!r}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise InvalidEventError(f"{where}: expected an integer, got {value!r}")
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise InvalidEventError(f"{where}: expected a number, got {value!r}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise InvalidEventError(f"{where}: expected a string, got {value!r}")
    if hint is Any:
        return value
    raise InvalidEventError(f"{where}: unsupported field type {_name(hint)}")


def _name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")
