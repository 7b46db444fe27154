"""The table of ``ddz play``: the engine's game plus what a screen needs that the engine does
not keep — which card (with its suit) each seat holds, the kitty's cards, the cards of each
seat's last play, the bombs played, the hand's history — and snapshots to take moves back.

The engine works on rank counts; this model picks the suited cards of each play (the cards the
player picked, else the lowest suits first) so the hands on screen always match the engine's
counts. A snapshot copies the engine's
arrays and this model's lists, so :meth:`TableModel.restore` gives back the exact position
(hands, table, bids, multiplier, history).

The variants (``Ruleset(bidding="rob")``, ``Ruleset(open_hand=True)``) are followed too: the
seats that robbed the landlord seat (:attr:`TableModel.rob_log`), and whether the landlord
opened the hand (:attr:`TableModel.opened`); each doubles the stake (:meth:`multiplier`). The
landlord takes the kitty as soon as the auction ends, before deciding to open the hand.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from ddz.play.wild import is_bomb, move_counts
from ddz_env.actions import OVER, ROB, bid_of_action
from ddz_env.game import Game


def game_state(game: Game) -> dict:
    """Copies of a game's state arrays (:data:`ddz_env.game.STATE_FIELDS`, and those its game
    adds: the wildcard game's wild rank), its deal codes and its stream of deals: enough to put
    the game back exactly (the move tables and rules objects are constants, shared)."""
    state = {name: getattr(game, name).copy() for name in game.state_fields}
    return {**state, "codes": list(game.codes), "stream": game.deal_stream}


def set_game_state(game: Game, state: dict) -> None:
    """Put back a state taken by :func:`game_state` (through :meth:`Game.restore`)."""
    fields = game.state_fields
    game.restore({k: v for k, v in state.items() if k in fields}, codes=state["codes"])
    game.deal_stream = state["stream"]


@dataclass
class Event:
    """One line of the hand's history: who (``None`` for a notice) and the rendered text."""

    seat: int | None
    text: str


@dataclass
class TableModel:
    """One hand at the table (seat 0 is the human); three or four seats, as the game's
    ruleset says (``TableModel(Game(1, Ruleset(players=4)))``)."""

    game: Game = field(default_factory=lambda: Game(1))
    cards: list[list[int]] = field(default_factory=lambda: [[], [], []])
    kitty_ids: list[int] = field(default_factory=list)
    last_cards: dict[int, list[int]] = field(default_factory=dict)
    bomb_log: list[tuple[int, int]] = field(default_factory=list)
    #: The seats that robbed the landlord seat, in order (``bidding="rob"``).
    rob_log: list[int] = field(default_factory=list)
    #: Every line of the hand so far (bids, plays, notices), for the screen and ``history``.
    log: list[str] = field(default_factory=list)
    #: The events the log's lines were written from (:mod:`ddz.play.transcript`), in order:
    #: the log is written again from them in another language.
    events: list = field(default_factory=list)
    #: The code of the deal on the table (a redeal has its own).
    code: str = ""
    #: The code the hand was dealt with: it deals the same cards again, and the same redeals
    #: follow from it when every seat passes again (a redeal's own code starts a fresh auction,
    #: whose all-pass auctions redeal other cards).
    hand_code: str = ""
    #: The opener was made landlord after the last allowed redeal (nobody bid).
    forced: bool = False
    #: Actions taken in this hand (bids and plays, redeals included).
    turns: int = 0
    hints_used: int = 0
    undos_used: int = 0
    snapshots: list[dict] = field(default_factory=list)

    @property
    def table(self):
        return self.game.table

    @property
    def players(self) -> int:
        return self.game.num_players

    def rank_of(self, card: int) -> int:
        return int(self.game.ruleset.deck.card_ranks[card])

    # ------------------------------------------------------------------ deals
    def deal(self, code: str) -> None:
        self.game.reset(codes=[code])
        self.code = self.hand_code = code
        self.bomb_log, self.rob_log, self.log, self.snapshots = [], [], [], []
        self.events = []
        self.forced = False
        self.turns = self.hints_used = self.undos_used = 0
        self.take_cards()

    def take_cards(self) -> None:
        owner, players = self.game.owner[0], self.players
        self.cards = [sorted(int(c) for c in np.flatnonzero(owner == s)) for s in range(players)]
        self.kitty_ids = sorted(int(c) for c in np.flatnonzero(owner == players))
        self.last_cards = {}

    # ------------------------------------------------------------------ actions
    def bid(self, action: int) -> tuple[int, bool]:
        """Apply an auction action: (the bid 0-3 or the word — ``CLAIM``, ``ROB``, ``OPEN`` —,
        whether the cards were dealt again)."""
        g = self.game
        redeals, known = int(g.redeals[0]), int(g.landlord[0]) >= 0
        seat = int(g.current_player[0])
        g.step(np.array([action]))
        self.turns += 1
        bid = bid_of_action(g.num_moves, action)
        if bid == ROB:
            self.rob_log.append(seat)
        if int(g.redeals[0]) != redeals:
            self.code = g.deal_code(0)  # each redeal is a deal of its own
            self.take_cards()
            return bid, True
        if not known and int(g.landlord[0]) >= 0:  # the auction ended: the kitty
            lord = int(g.landlord[0])
            self.cards[lord] = sorted(self.cards[lord] + self.kitty_ids)
            self.forced = int(g.high_bid[0]) == 0
        return bid, False

    def auction_over(self) -> bool:
        """Whether the landlord is known (the open-hand decision may still follow)."""
        return self.landlord() >= 0

    @property
    def robs(self) -> int:
        return int(self.game.robs[0])

    @property
    def opened(self) -> bool:
        return bool(self.game.opened[0])

    def multiplier(self) -> int:
        """The stake's multiplier so far: 2 to the robs, the open hand and the bombs that
        doubled it (the spring counts once the hand is over: ``game.multiplier``)."""
        g = self.game
        if g.phase[0] == OVER:
            return int(g.multiplier[0])
        return 2 ** (int(g.bombs[0]) + self.robs + int(self.opened))

    def play(self, seat: int, move: int, chosen=()) -> list[int]:
        """Apply a play: the suited cards it took from ``seat`` (empty for a pass); the
        ``chosen`` card ids (those the player picked) are the ones that leave the hand."""
        self.game.step(np.array([move]))
        self.turns += 1
        if move == 0:
            return []
        ids = self.take_ids(seat, move_counts(self.table, move), chosen)
        self.last_cards[seat] = ids
        if is_bomb(self.table, move):
            self.bomb_log.append((seat, move))
        return ids

    def as_move(self, action: int) -> int:
        """The move of a play action: its play (``Game.plays``): the action itself, or in the
        wildcard game the play code of the listed play it picks (action ``i`` ≥ 1 is the
        ``i``-th legal play)."""
        return int(self.game.plays(int(action)))

    def take_ids(self, seat: int, counts: np.ndarray, chosen=()) -> list[int]:
        """Remove the cards of ``counts`` from a seat's hand: of each rank the ``chosen`` ones
        first, then the lowest suits."""
        taken = []
        for r in np.flatnonzero(counts):
            ids = [c for c in self.cards[seat] if self.rank_of(c) == r]
            ids = [c for c in ids if c in chosen] + [c for c in ids if c not in chosen]
            taken += ids[: int(counts[r])]
        self.cards[seat] = [c for c in self.cards[seat] if c not in taken]
        return sorted(taken)

    # ------------------------------------------------------------------ facts
    def over(self) -> bool:
        return bool(self.game.phase[0] == OVER)

    def landlord(self) -> int:
        return int(self.game.landlord[0])

    def conceded(self, seat: int) -> int:
        """The cards the rules concede ``seat`` (``Rules.conceded``: the two-player game's
        peasant wins at as many cards as the grabs; 0 elsewhere)."""
        g = self.game
        return int(g.ruleset.rules.conceded(g.landlord[0], g.robs[0], np.int64(seat)))

    def kitty_held(self, seat: int) -> list[int]:
        """The kitty's cards still in ``seat``'s hand when that seat is the landlord."""
        if self.landlord() != seat:
            return []
        return [c for c in self.kitty_ids if c in self.cards[seat]]

    def kitty_unplayed_by_others(self, seat: int) -> np.ndarray:
        """Rank counts of the revealed kitty cards that ``seat`` has not seen played and does
        not hold (so the counter can show them apart): empty before the kitty is revealed."""
        counts = np.zeros(15, np.int64)
        lord = self.landlord()
        if lord < 0 or lord == seat:
            return counts
        for c in self.kitty_ids:
            if c in self.cards[lord]:
                counts[self.rank_of(c)] += 1
        return counts

    # ------------------------------------------------------------------ undo
    def push(self) -> None:
        """Remember the position before the human acts."""
        self.snapshots.append(self._state())

    def can_undo(self) -> bool:
        return len(self.snapshots) >= 2

    def undo(self) -> None:
        """Go back to the position before the human's previous action (the current turn's
        snapshot and the previous one are dropped; the caller pushes again at that turn)."""
        self.snapshots.pop()
        state = self.snapshots.pop()
        hints, undos = self.hints_used, self.undos_used
        set_game_state(self.game, state.pop("game"))
        for k, v in state.items():
            setattr(self, k, v)
        self.hints_used, self.undos_used = hints, undos + 1

    def _state(self) -> dict:
        return {
            "game": game_state(self.game),
            "cards": copy.deepcopy(self.cards),
            "kitty_ids": list(self.kitty_ids),
            "last_cards": copy.deepcopy(self.last_cards),
            "bomb_log": list(self.bomb_log),
            "rob_log": list(self.rob_log),
            "log": list(self.log),
            "events": list(self.events),
            "code": self.code,
            "forced": self.forced,
            "turns": self.turns,
        }
