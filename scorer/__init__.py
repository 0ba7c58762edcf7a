"""fudaba's scorer: cards, decks, rulesets, the three game engines, events and game records.

Pure Python with no I/O beyond records; imports nothing from ``vision``, ``web`` or
``firmware_bridge``.
"""

__all__ = ["cards", "errors", "events", "games", "match", "places", "record", "rulesets"]
