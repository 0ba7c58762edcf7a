"""The Poka match engine (rules P in ``docs/rules.md``).

Two players race to empty their hands. A round:

1. ``deal``: the dealer deals 6 cards each and turns the table card; 35 cards stay in the stock
   (38 with the three blanks of ``extra-jokers``). The first dealer is whoever the deal event names
   (players settle it among themselves); later the previous round's winner deals (rules P2.1).
2. Starting hands (rules P3.1-P3.4): each player either shows the whole hand (``claim``) or
   says ``no-claim``. The window closes when both have spoken, or when the dealer plays or passes
   while no claim has been shown (nobody claims). One claim wins the round at once with its stones;
   two claims of equal value are both void and play proceeds with the hands face up; otherwise the
   higher claim wins. A fully known hand that holds a starting hand must claim it (it wins
   automatically, rules P3.3); a hidden hand cannot be checked, so its ``no-claim`` is accepted.
3. Turns, from the dealer: ``play`` events of one card each onto the top card (Rule 1 next month,
   Rule 2 wilds, Rule 3 January-February, see :mod:`scorer.poka.hands`), then ``pass``. One natural
   card per month per turn; a wild used as a wild has no month; the January played under Rule 3
   is exempt from that limit but still marks January as used. After a Rule 3 January the very next
   card must be a February card or a wild, and the player may not pass before it.
4. Continuing is mandatory while a legal card is held (rules P4.6), judged on what is known: a pass
   is refused when a card *known* to be in the hand could be played; a pass from a hidden hand is
   accepted, since the observer cannot know. ``voluntary-stop`` lifts the rule.
5. Two consecutive zero-card turns (rules P5.1): a ``table-card`` (chance, face up) is turned from the
   stock onto the played cards, which are thereby set aside, and the first passer plays next. When
   the stock is empty a ``reshuffle`` (chance) first turns every played card except the top into a
   new stock (rules P5.2). Its cards were all seen face up, so the new stock is known as
   a multiset; each later ``table-card`` names the card turned.
6. The first player to empty their hand wins 1 stone, or 2 for all six cards in one turn (any
   turn, rules P6.2; the player's first turn only with ``all-out-first-turn-only``). The winner deals
   next. The match ends when a player reaches ``stones-to-win`` (overshoot allowed, rules P7.3).

Stones are taken from a shared pool (rules P7.2): ``state.pool = pool-size − Σ stones``, never negative.
Places: ``hand:1``, ``hand:2``, ``stock`` and ``pile`` (every face-up card played or turned; the
last one is the top).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from scorer.cards import DeckSpec, deck
from scorer.errors import IllegalEventError
from scorer.events import Event
from scorer.evolve import evolver
from scorer.match import Match, Note, NotEnumerableError, Player, RoundResult, Said
from scorer.places import Place, Places
from scorer.poka.events import EVENTS, Claim, Deal, NoClaim, Pass, Play, Reshuffle, TableCard
from scorer.poka.hands import (
    HAND_SIZE,
    MONTHS,
    RULE_JAN_FEB,
    TEYAKU,
    Teyaku,
    deck_name,
    play_rule,
    teyaku_held,
    wilds,
)
from scorer.poka.options import PokaOptions

DEAL = "deal"
CLAIMS = "claims"
PLAY = "play"
TABLE_CARD = "table-card"
OVER = "over"

UNDECIDED = ""
NONE = "none"

HANDS = ("hand:1", "hand:2")
STOCK = "stock"
PILE = "pile"

_FEBRUARY = 1 << 2


@dataclass(frozen=True, slots=True)
class PokaState:
    """Everything about a Poka match at one moment; an immutable value."""

    results: tuple[RoundResult, ...] = ()
    """Settlements of the finished rounds."""
    over: bool = False
    """True once a player has reached the stones to win."""
    places: Places | None = None
    """Where the current round's cards are (``hand:1``, ``hand:2``, ``stock``, ``pile``)."""
    stones: tuple[int, int] = (0, 0)
    """Stones each seat holds (index = seat − 1)."""
    pool: int = 10
    """Stones left in the shared pool: pool size − Σ stones, never negative (rules P7.2)."""
    round: int = 0
    """Current round number from 1; 0 before the first deal."""
    dealer: int = 0
    """Seat that dealt the current round (and leads it)."""
    phase: str = DEAL
    """``deal``, ``claims``, ``play``, ``table-card`` (a new table card is due) or ``over``."""
    to_play: int = 0
    """Seat whose turn it is (the dealer during the claims window)."""
    claims: tuple[str, str] = (UNDECIDED, UNDECIDED)
    """Per seat during the claims window: ``""`` undecided, ``none``, or the teyaku shown."""
    notes: tuple[tuple[str, Note], ...] = ()
    """Explanations gathered during the round (void claims) for its result: (line, note) pairs."""
    turn_cards: int = 0
    """Cards played in the current turn."""
    months_used: int = 0
    """Bit set of the natural months played in the current turn (bit m = month m)."""
    owes_february: bool = False
    """A Rule 3 January was just played: the next card must be a February card or a wild."""
    null_turns: int = 0
    """Consecutive turns that ended with no card played (two call for a new table card)."""
    run: int = 0
    """Cards played onto the current table card (0: the top is the table card itself)."""
    turns: tuple[int, int] = (0, 0)
    """Turns each seat has finished this round."""

    @property
    def top(self) -> str | None:
        """The top card of the pile, or None before the first deal."""
        if self.places is None:
            return None
        pile = self.places[PILE].known
        return pile[-1] if pile else None

    def hand(self, seat: int) -> Place:
        """The hand of ``seat`` (known cards and a hidden count)."""
        if self.places is None:
            return Place()
        return self.places[HANDS[seat - 1]]


_evolve = evolver(PokaState)
"""``dataclasses.replace`` without its generic checks: a state step must stay cheap."""


def _other(seat: int) -> int:
    return 3 - seat


def _stones(n: int) -> str:
    return f"{n} stone" if n == 1 else f"{n} stones"


def _seat(seat: int) -> Said:
    return Said("seat", seat)


def _shown(teyaku: Teyaku) -> Note:
    """A shown starting hand as data, said as ``Teyaku.describe()`` says it."""
    return Note.of("teyaku", teyaku=Said("name", teyaku.name), stones=teyaku.stones)


class PokaMatch(Match):
    """A Poka match between two seats (rules P1.1)."""

    GAME = "poka"
    UNIT = "stones"
    EVENTS = EVENTS

    options: PokaOptions

    @classmethod
    def default_deck(cls, options: Any, n_players: int) -> str:
        """``hanafuda``, or ``hanafuda+3blank`` with ``extra-jokers``."""
        return deck_name(options)

    def _check_setup(self) -> None:
        if len(self.players) != 2:
            raise ValueError(f"Poka is a two-player game, not {len(self.players)} (rules P1.1)")
        wanted = deck_name(self.options)
        if self.deck != wanted:
            why = (
                "extra-jokers adds three blank wilds"
                if self.options.extra_jokers
                else "no blanks are used"
            )
            raise ValueError(
                f"Poka with these options plays with the {wanted!r} deck ({why}), not {self.deck!r}"
            )
        self._spec: DeckSpec = deck(self.deck)
        self._ids = self._spec.counts_set
        self._wilds = wilds(self.options)
        self._stock_size = len(self._spec) - 2 * HAND_SIZE - 1
        self._handlers = {
            Deal: self._deal,
            Claim: self._claim,
            NoClaim: self._no_claim,
            Play: self._play,
            Pass: self._pass,
            TableCard: self._table_card,
            Reshuffle: self._reshuffle,
        }

    def _initial_state(self) -> PokaState:
        return PokaState(pool=max(0, self.options.pool_size))

    def to_play(self) -> int | None:
        """The seat expected to act: the next dealer, the leader or the player on turn."""
        s: PokaState = self._state
        if s.phase == DEAL:
            return s.results[-1].winner if s.results else None
        if s.phase in (CLAIMS, PLAY):
            return s.to_play
        return None

    def expecting(self) -> str:
        s: PokaState = self._state
        seat = self.to_play()
        return {
            DEAL: f"seat {seat} is to deal" if seat else "a deal is due",
            CLAIMS: f"seat {seat} is to show a starting hand or say no claim",
            PLAY: f"seat {seat} is to play a card on the pile or pass",
            TABLE_CARD: "a new table card is to be turned from the stock",
            OVER: "the match is over",
        }.get(s.phase, s.phase)

    @property
    def pool(self) -> int:
        """Stones left in the shared pool (rules P7.2)."""
        return self._state.pool

    # ------------------------------------------------------------------ stepping
    def _step(self, state: PokaState, event: Event) -> PokaState:
        return self._handlers[type(event)](state, event)

    def _card(self, card_id: str) -> str:
        if card_id in self._ids:
            return card_id
        return self._spec.validate(card_id, "Poka")

    def _seat(self, seat: int) -> int:
        if seat not in (1, 2):
            raise IllegalEventError("seat", f"there is no seat {seat}: Poka has seats 1 and 2")
        return seat

    def _name(self, seat: int) -> str:
        return self.players[seat - 1].name

    # ---- deal
    def _deal(self, s: PokaState, e: Deal) -> PokaState:
        if s.phase != DEAL:
            raise IllegalEventError(
                "deal-time", "a deal comes only before a round, not during one (rules P2.2)"
            )
        dealer = self._seat(e.dealer)
        if s.results and dealer != s.results[-1].winner:
            winner = s.results[-1].winner
            raise IllegalEventError(
                "winner-deals",
                f"seat {winner} ({self._name(winner)}) won the last round and deals this one, not seat "
                f"{dealer} (rules P2.1)",
            )
        if len(e.hands) != 2:
            raise IllegalEventError(
                "deal-size", f"a Poka deal has 2 hands, not {len(e.hands)} (rules P2.2)"
            )
        places: dict[str, Place] = {}
        for seat, hand in enumerate(e.hands, start=1):
            if isinstance(hand, int):
                if hand != HAND_SIZE:
                    raise IllegalEventError(
                        "deal-size",
                        f"seat {seat} must be dealt {HAND_SIZE} cards, not {hand} (rules P2.2)",
                    )
                places[HANDS[seat - 1]] = Place((), HAND_SIZE)
            else:
                if len(hand) != HAND_SIZE:
                    raise IllegalEventError(
                        "deal-size",
                        f"seat {seat} must be dealt {HAND_SIZE} cards, not {len(hand)} (rules P2.2)",
                    )
                places[HANDS[seat - 1]] = Place(tuple(self._card(c) for c in hand))
        if e.stock is None:
            places[STOCK] = Place((), self._stock_size)
        else:
            if len(e.stock) != self._stock_size:
                raise IllegalEventError(
                    "deal-size",
                    f"the stock holds {self._stock_size} cards after the deal, not {len(e.stock)} (rules P2.2)",
                )
            places[STOCK] = Place(tuple(self._card(c) for c in e.stock))
        places[PILE] = Place((self._card(e.table),))
        return PokaState(
            results=s.results,
            places=Places.start(self._spec.cards, places),
            stones=s.stones,
            pool=s.pool,
            round=s.round + 1,
            dealer=dealer,
            phase=CLAIMS,
            to_play=dealer,
        )

    # ---- starting hands
    def _claim(self, s: PokaState, e: Claim) -> PokaState:
        seat = self._seat(e.seat)
        if s.phase != CLAIMS:
            raise IllegalEventError(
                "claim-time",
                "starting hands are shown right after the deal, before any card is played (rules P3.3)",
            )
        if s.claims[seat - 1] != UNDECIDED:
            raise IllegalEventError(
                "claim-once", f"seat {seat} has already said whether they claim a starting hand (rules P3.3)"
            )
        name = HANDS[seat - 1]
        place = s.places[name]
        if len(e.cards) != place.size:
            raise IllegalEventError(
                "show-whole-hand",
                f"a claim shows the whole hand: seat {seat} holds {place.size} cards, {len(e.cards)} were shown "
                "(rules P3.3)",
            )
        cards = tuple(self._card(c) for c in e.cards)
        places = _reveal(s.places, name, cards)
        held = teyaku_held(cards, self.options)
        if e.teyaku is not None and e.teyaku not in TEYAKU:
            raise IllegalEventError(
                "unknown-teyaku",
                f"{e.teyaku!r} is not a Poka starting hand; they are: {', '.join(TEYAKU)} (rules P3.1)",
            )
        if not held:
            raise IllegalEventError(
                "no-teyaku",
                f"{' '.join(cards)} hold no starting hand (three wilds, three pairs, three Januaries or four "
                "of a month, rules P3.1)",
            )
        if e.teyaku is not None and all(t.name != e.teyaku for t in held):
            raise IllegalEventError(
                "teyaku-not-held",
                f"{' '.join(cards)} do not make {e.teyaku} ({TEYAKU[e.teyaku].condition}, rules P3.1)",
            )
        claims = _set(s.claims, seat, held[0].name)
        s = _evolve(s, places=places, claims=claims)
        return self._close_claims(s) if UNDECIDED not in claims else s

    def _no_claim(self, s: PokaState, e: NoClaim) -> PokaState:
        seat = self._seat(e.seat)
        if s.phase != CLAIMS:
            raise IllegalEventError(
                "claim-time",
                "starting hands are settled right after the deal, before any card is played (rules P3.3)",
            )
        if s.claims[seat - 1] != UNDECIDED:
            raise IllegalEventError(
                "claim-once", f"seat {seat} has already said whether they claim a starting hand (rules P3.3)"
            )
        self._check_unclaimed(s, seat)
        claims = _set(s.claims, seat, NONE)
        s = _evolve(s, claims=claims)
        return self._close_claims(s) if UNDECIDED not in claims else s

    def _check_unclaimed(self, s: PokaState, seat: int) -> None:
        """Refuse to let a fully known hand that holds a starting hand go unclaimed."""
        place = s.places[HANDS[seat - 1]]
        if place.hidden:
            return
        held = teyaku_held(place.known, self.options)
        if held:
            raise IllegalEventError(
                "teyaku-must-be-claimed",
                f"seat {seat} holds {held[0].describe()}: a starting hand wins the round at once and "
                "must be shown (rules P3.3)",
            )

    def _open_play(self, s: PokaState) -> PokaState:
        """The dealer acts while the claims window is open: that means nobody claims."""
        for seat in (1, 2):
            claim = s.claims[seat - 1]
            if claim == UNDECIDED:
                self._check_unclaimed(s, seat)
            elif claim != NONE:
                raise IllegalEventError(
                    "claim-pending",
                    f"seat {seat} has shown a starting hand: seat {_other(seat)} must show one too or say "
                    "no-claim before play (rules P3.3)",
                )
        return _evolve(s, phase=PLAY, claims=(NONE, NONE))

    def _close_claims(self, s: PokaState) -> PokaState:
        """Both seats have spoken: settle the starting hands (rules P3.2, P3.4)."""
        shown = [(seat, TEYAKU[c]) for seat, c in ((1, s.claims[0]), (2, s.claims[1])) if c != NONE]
        if not shown:
            return _evolve(s, phase=PLAY)
        if len(shown) == 2 and shown[0][1].stones == shown[1][1].stones:
            line = (
                f"Both players show starting hands of equal value ({self._name(1)}: {shown[0][1].describe()}; "
                f"{self._name(2)}: {shown[1][1].describe()}): both are void and play proceeds (rules P3.4)."
            )
            note = Note.of("void-claims", first=_seat(1), first_hand=_shown(shown[0][1]), second=_seat(2),
                           second_hand=_shown(shown[1][1]))
            return _evolve(s, phase=PLAY, notes=(*s.notes, (line, note)))
        seat, teyaku = max(shown, key=lambda x: x[1].stones)
        lines = [(
            f"{self._name(seat)} shows {teyaku.describe()} and wins the round (rules P3.4).",
            Note.of("claim-wins", seat=_seat(seat), hand=_shown(teyaku)),
        )]
        if len(shown) == 2:
            loser = next(t for st, t in shown if st != seat)
            lines.append((
                f"{self._name(_other(seat))}'s {loser.name.replace('-', ' ')} ({_stones(loser.stones)}) is "
                "outvalued: only the higher counts (rules P3.4).",
                Note.of("outvalued", seat=_seat(_other(seat)), hand=Said("name", f"{loser.name}:short"),
                        stones=loser.stones),
            ))
        return self._settle(s, seat, teyaku.stones, lines)

    # ---- turns
    def _why_not(self, s: PokaState, places: Places, seat: int, card: str) -> tuple[str, str] | str:
        """The rule that lets ``card`` be played now, or ``(rule broken, reason)``."""
        top = places[PILE].known[-1]
        wild = card in self._wilds
        if s.owes_february and not wild and MONTHS[card] != 2:
            return (
                "jan-feb-exception",
                f"{card} cannot follow the January played on a January: it must be followed at once by a "
                "February card or a wild (rules P4.4)",
            )
        jan_feb = not s.owes_february and (not self.options.jan_feb_table_card_only or s.run == 0)
        rule = play_rule(card, top, self._wilds, jan_feb)
        if rule is None:
            month = MONTHS[card]
            want = 1 if MONTHS[top] == 12 else MONTHS[top] + 1
            return (
                "next-month",
                f"{card} (month {month}) cannot go on {top} (month {MONTHS[top]}): a card of month {want} "
                "or a wild is needed (rules P4.2, P4.3)",
            )
        if not wild:
            bit = 1 << MONTHS[card]
            if s.months_used & bit and rule != RULE_JAN_FEB:
                return (
                    "one-card-per-month",
                    f"seat {seat} has already played a card of month {MONTHS[card]} this turn: one card per "
                    "month per turn (rules P4.5)",
                )
            if rule == RULE_JAN_FEB and not self._february_left(s, places, seat, card):
                return (
                    "jan-feb-exception",
                    f"a January on a January must be followed at once by a February card or a wild, and seat "
                    f"{seat} would have none left to play (rules P4.4)",
                )
        return rule

    def _february_left(self, s: PokaState, places: Places, seat: int, card: str) -> bool:
        """After playing ``card`` could the hand still give a February card or a wild?"""
        place = places[HANDS[seat - 1]]
        feb_open = not s.months_used & _FEBRUARY
        known = list(place.known)
        if card in known:
            known.remove(card)
            hidden = place.hidden
        else:
            hidden = place.hidden - 1
        for c in known:
            if c in self._wilds or (feb_open and MONTHS[c] == 2):
                return True
        if hidden > 0:
            for c in places.unseen:
                if c in self._wilds or (feb_open and MONTHS[c] == 2):
                    return True
        return False

    def _turn_check(self, s: PokaState, seat: int) -> PokaState:
        if s.phase == CLAIMS:
            if seat != s.to_play:
                raise IllegalEventError(
                    "out-of-turn",
                    f"seat {s.to_play} deals and plays first this round, not seat {seat} (rules P4.1)",
                )
            return self._open_play(s)
        if s.phase != PLAY:
            why = {
                DEAL: "the round has not been dealt yet",
                TABLE_CARD: "both players passed without playing: a new table card is turned first (rules P5.1)",
            }.get(s.phase, "no turn is in progress")
            raise IllegalEventError("not-in-play", why)
        if seat != s.to_play:
            raise IllegalEventError(
                "out-of-turn", f"it is seat {s.to_play}'s turn, not seat {seat}'s (rules P4.1)"
            )
        return s

    def _play(self, s: PokaState, e: Play) -> PokaState:
        seat = self._seat(e.seat)
        s = self._turn_check(s, seat)
        card = self._card(e.card)
        hand = HANDS[seat - 1]
        places = s.places
        if not places.can_take(hand, card):
            places.take(hand, card)  # raises with the reason
        verdict = self._why_not(s, places, seat, card)
        if isinstance(verdict, tuple):
            raise IllegalEventError(*verdict)
        places = places.move(card, hand, PILE)
        used = s.months_used if card in self._wilds else s.months_used | (1 << MONTHS[card])
        turn_cards = s.turn_cards + 1
        s = _evolve(
            s,
            places=places,
            months_used=used,
            owes_february=verdict == RULE_JAN_FEB,
            turn_cards=turn_cards,
            run=s.run + 1,
        )
        if places[hand].size:
            return s
        all_out = turn_cards == HAND_SIZE and (
            not self.options.all_out_first_turn_only or s.turns[seat - 1] == 0
        )
        if all_out:
            line = (
                f"{self._name(seat)} plays all {HAND_SIZE} cards in one turn (総出し sō-dashi): "
                f"{_stones(2)} (rules P6.2)."
            )
            return self._settle(s, seat, 2, [(line, Note.of("all-out", seat=_seat(seat), cards=HAND_SIZE))])
        line = f"{self._name(seat)} empties their hand first: {_stones(1)} (rules P6.1)."
        return self._settle(s, seat, 1, [(line, Note.of("out", seat=_seat(seat)))])

    def _legal_known(self, s: PokaState, seat: int) -> str | None:
        """A card known to be in ``seat``'s hand that could be played now, if any."""
        places = s.places
        for card in dict.fromkeys(places[HANDS[seat - 1]].known):
            if not isinstance(self._why_not(s, places, seat, card), tuple):
                return card
        return None

    def _pass(self, s: PokaState, e: Pass) -> PokaState:
        seat = self._seat(e.seat)
        s = self._turn_check(s, seat)
        if s.owes_february:
            raise IllegalEventError(
                "jan-feb-exception",
                "a January played on a January must be followed at once by a February card or a wild; "
                "passing now is not allowed (rules P4.4)",
            )
        if not self.options.voluntary_stop:
            card = self._legal_known(s, seat)
            if card is not None:
                raise IllegalEventError(
                    "must-continue",
                    f"seat {seat} holds {card}, which can go on {s.top}: a player keeps playing while able "
                    "(rules P4.6)",
                )
        null_turns = s.null_turns + 1 if s.turn_cards == 0 else 0
        turns = (s.turns[0] + 1, s.turns[1]) if seat == 1 else (s.turns[0], s.turns[1] + 1)
        return _evolve(
            s,
            phase=TABLE_CARD if null_turns >= 2 else PLAY,
            to_play=_other(seat),
            turn_cards=0,
            months_used=0,
            null_turns=null_turns,
            turns=turns,
        )

    def _table_card(self, s: PokaState, e: TableCard) -> PokaState:
        if s.phase != TABLE_CARD:
            raise IllegalEventError(
                "no-new-table-card",
                "a new table card is turned only after both players pass in succession without playing "
                "(rules P5.1)",
            )
        if not s.places[STOCK].size:
            raise IllegalEventError(
                "reshuffle-first",
                "the stock is empty: the played cards are reshuffled first (rules P5.2)",
            )
        card = self._card(e.card)
        places = s.places.move(card, STOCK, PILE)
        return _evolve(s, places=places, phase=PLAY, run=0, null_turns=0)

    def _reshuffle(self, s: PokaState, e: Reshuffle) -> PokaState:
        if s.phase != TABLE_CARD or s.places[STOCK].size:
            raise IllegalEventError(
                "reshuffle-time",
                "the played cards are reshuffled only when a new table card is due and the stock is empty "
                "(rules P5.2)",
            )
        top = s.places[PILE].known[-1]
        places = s.places.move_all(PILE, STOCK).move(top, STOCK, PILE)
        return _evolve(s, places=places)

    # ---- settlement
    def _settle(self, s: PokaState, winner: int, gained: int, lines: list[tuple[str, Note]]) -> PokaState:
        """Settle the round won by ``winner``; ``lines``: (line, note) pairs of how it was won."""
        stones = (
            (s.stones[0] + gained, s.stones[1])
            if winner == 1
            else (s.stones[0], s.stones[1] + gained)
        )
        changes = (gained, 0) if winner == 1 else (0, gained)
        pool = max(0, self.options.pool_size - sum(stones))
        over = max(stones) >= self.options.stones_to_win
        out = [*s.notes, *lines]
        out.append((
            f"Stones: {self._name(1)} {stones[0]}, {self._name(2)} {stones[1]}; pool {pool} (rules P7.1, P7.2).",
            Note.of("stones", first=_seat(1), first_stones=stones[0], second=_seat(2), second_stones=stones[1],
                    pool=pool),
        ))
        if over:
            out.append((
                f"{self._name(winner)} reaches {self.options.stones_to_win} stones and wins the match (rules P7.3).",
                Note.of("match-won", seat=_seat(winner), stones=self.options.stones_to_win),
            ))
        else:
            out.append((f"{self._name(winner)} deals the next round (rules P2.1).",
                        Note.of("next-dealer", seat=_seat(winner))))
        result = RoundResult(s.round, s.dealer, winner, changes, stones, tuple(line for line, _ in out),
                             tuple(note for _, note in out))
        return _evolve(
            s,
            results=(*s.results, result),
            over=over,
            stones=stones,
            pool=pool,
            phase=OVER if over else DEAL,
            notes=(),
            owes_february=False,
        )

    # ------------------------------------------------------------------ enumeration
    def legal_events(self) -> list[Event]:
        """Every legal next event; raises ``NotEnumerableError`` at a deal.

        A hidden hand's claims are not listed (any of many hands could be shown); its plays are
        listed for every card it could hold, and a new table card for every card the stock could
        hold.
        """
        s: PokaState = self._state
        if s.phase == DEAL:
            raise NotEnumerableError("a deal can be any of many card layouts")
        if s.phase == TABLE_CARD:
            if not s.places[STOCK].size:
                return [Reshuffle()]
            stock = s.places[STOCK]
            return (
                [TableCard(c) for c in s.places.candidates(STOCK)]
                if stock.hidden
                else [TableCard(c) for c in dict.fromkeys(stock.known)]
            )
        if s.phase == OVER:
            return []
        out: list[Event] = []
        if s.phase == CLAIMS:
            blocked = False
            for seat in (1, 2):
                if s.claims[seat - 1] != UNDECIDED:
                    blocked = blocked or s.claims[seat - 1] != NONE
                    continue
                place = s.places[HANDS[seat - 1]]
                held = () if place.hidden else teyaku_held(place.known, self.options)
                if held:
                    out.append(Claim(seat, place.known, held[0].name))
                    blocked = True
                else:
                    out.append(NoClaim(seat))
            if blocked:
                return out
            s = _evolve(s, phase=PLAY, claims=(NONE, NONE))
        seat = s.to_play
        places = s.places
        hand = places[HANDS[seat - 1]]
        playable = False
        for card in places.candidates(HANDS[seat - 1]):
            if not isinstance(self._why_not(s, places, seat, card), tuple):
                out.append(Play(seat, card))
                playable = playable or card in hand.known
        if not s.owes_february and (self.options.voluntary_stop or not playable):
            out.append(Pass(seat))
        return out

    def random_event(self, rng: random.Random) -> Event:
        """A random legal event: a uniformly random known deal, a uniformly random stock card for a
        new table card, otherwise a uniform choice among :meth:`legal_events`."""
        s: PokaState = self._state
        if s.phase == DEAL:
            cards = list(self._spec.cards)
            rng.shuffle(cards)
            dealer = s.results[-1].winner if s.results else rng.choice((1, 2))
            n = HAND_SIZE
            return Deal(
                dealer,
                (tuple(cards[:n]), tuple(cards[n : 2 * n])),
                cards[2 * n],
                tuple(cards[2 * n + 1 :]),
            )
        if s.phase == TABLE_CARD and s.places[STOCK].size:
            stock = s.places[STOCK]
            i = rng.randrange(stock.size)
            if i < len(stock.known):
                return TableCard(stock.known[i])
            unseen = s.places.unseen
            return TableCard(rng.choices(list(unseen), weights=list(unseen.values()))[0])
        events = self.legal_events()
        return events[rng.randrange(len(events))]


def _set(claims: tuple[str, str], seat: int, value: str) -> tuple[str, str]:
    return (value, claims[1]) if seat == 1 else (claims[0], value)


def _reveal(places: Places, name: str, cards: tuple[str, ...]) -> Places:
    """Show every card of place ``name`` face up: ``cards`` is its whole content.

    Known copies are set apart first so that each further copy comes out of the hidden part (the
    three blanks of ``extra-jokers`` share one id).
    """
    aside = f"{name}:shown"
    for card in places[name].known:
        places = places.move(card, name, aside)
    rest = list(cards)
    for card in places[aside].known:
        if card not in rest:
            raise IllegalEventError(
                "card-whereabouts",
                f"{card} is known to be in {name} but was not among the cards shown",
            )
        rest.remove(card)
    for card in rest:
        if places[name].hidden == 0:
            raise IllegalEventError("card-whereabouts", f"{name} does not hold {' '.join(cards)}")
        places = places.move(card, name, aside)
    return places.move_all(aside, name)


__all__ = ["PokaMatch", "PokaState", "Player"]
