"""Errors of the scorer: each subclasses ``ValueError`` and says what is wrong and why.

* :class:`UnknownCardError` — a card id that no deck knows, with the nearest valid ids.
* :class:`InvalidEventError` — an event that is malformed (wrong fields, wrong types).
* :class:`IllegalEventError` — a well-formed event the rules forbid here; ``rule`` names the rule.
* :class:`AmbiguousEventError` — several legal events explain what was seen; ``candidates`` lists them.
* :class:`RecordError` — a game record that cannot be read or replayed; ``str()`` is ``file:line: reason``
  (``file: reason`` for the file as a whole).
"""

from __future__ import annotations


class ScorerError(ValueError):
    """Base class of every error the scorer raises on bad input."""


class UnknownCardError(ScorerError):
    """A card id that is not in the deck being used.

    Without ``message`` it reads ``unknown card 'X' in deck 'D'; did you mean A, B?``; ``message``
    replaces that where more is known, e.g. ``KC is not in Bagaji's playing-2x deck (no kings)``
    (:meth:`scorer.cards.DeckSpec.missing`).
    """

    def __init__(
        self, card_id: str, suggestions: tuple[str, ...] = (), deck: str = "", *, message: str = ""
    ) -> None:
        self.card_id = card_id
        self.suggestions = suggestions
        self.deck = deck
        where = f" in deck {deck!r}" if deck else ""
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(message or f"unknown card {card_id!r}{where}{hint}")


class InvalidEventError(ScorerError):
    """An event that is malformed: unknown type, missing or mistyped field."""


class IllegalEventError(ScorerError):
    """A well-formed event that the rules forbid in the current state.

    ``rule`` is a short name of the rule broken (for example ``"capture-must-match-month"``) and
    ``message`` says what and why in words a player understands.
    """

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        self.message = message
        super().__init__(f"{message} [rule: {rule}]")


class AmbiguousEventError(ScorerError):
    """More than one legal event (or sequence of events) explains what was seen equally well.

    ``candidates`` holds the explanations, most likely first; ``message`` says what to choose
    between in words a player understands.
    """

    def __init__(self, message: str, candidates: tuple = ()) -> None:
        self.message = message
        self.candidates = candidates
        super().__init__(message)


class RecordError(ScorerError):
    """A game record that cannot be read or replayed; ``str()`` is ``file:line: reason``.

    ``line`` 0 is the file as a whole (it cannot be read, it is a directory, it exists already):
    ``str()`` is then ``file: reason``, with no line number.
    """

    def __init__(self, path: str, line: int, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        super().__init__(f"{path}:{line}: {reason}" if line else f"{path}: {reason}")
