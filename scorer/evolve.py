"""A fast ``dataclasses.replace`` for the engines' frozen, slotted state classes.

``dataclasses.replace`` re-runs ``__init__`` through a generic path and dominates the cost of a
state transition; :func:`evolver` builds, once per class, a function with one keyword per field
that copies the unchanged fields directly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_MISSING = object()


def evolver(cls: type[T]) -> Callable[..., T]:
    """``evolve(obj, **changes)`` for dataclass ``cls`` (no validation, no ``__post_init__``)."""
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    params = ", ".join(f"{n}=_M" for n in names)
    body = "".join(f"    _set(new, {n!r}, self.{n} if {n} is _M else {n})\n" for n in names)
    src = f"def evolve(self, *, {params}):\n    new = _new(_cls)\n{body}    return new\n"
    scope: dict[str, Any] = {"_M": _MISSING, "_new": object.__new__, "_cls": cls, "_set": object.__setattr__}
    exec(src, scope)  # noqa: S102 - generated from the dataclass's own field names
    return scope["evolve"]
