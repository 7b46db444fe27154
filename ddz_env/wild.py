"""The engine of the wildcard game (``Ruleset(game="wild")``, :mod:`ddz_env.rules.wild`):
:class:`WildGame`, the :class:`~ddz_env.game.Game` that ``Game(batch_size, ruleset)`` builds
for it.

What differs from the classic engine:

* ``wild_rank`` (B,) int8: the wild rank (0 = 3 .. 12 = 2), -1 during the auction. It is drawn
  when the auction ends, as a hash of the deal (so the deal, and its code, fix it), and is
  public from then on.
* **Actions in play.** The legal plays of the player to act are listed in play-code order
  (:meth:`WildGame.legal_plays`); action ``i`` (1 ≤ i ≤ their number) plays the ``i``-th, action
  0 passes (when following), and ``N + k`` are the auction's calls as in the classic game
  (``N = num_moves = WildRules.action_rows``, 32,760, bounds the list). ``step`` also takes a
  play code itself (:data:`~ddz_env.rules.wild.PLAY_TAG` set). ``legal_action_words`` and the
  masks are over these indices, so the match loop, the bots' sampling and the envs work
  unchanged.
* ``history_action`` (B, H) int64 and ``table_move`` (B,) int64 hold play codes (0 = pass), so
  the history says what every wild card stood for, and replay steps the codes.
* ``bombs`` counts doublings: a bomb or the rocket adds 1, a hard or wild bomb 2 under
  ``hard_bomb_multiplier=4`` (the multiplier is ``2 ** (bombs + spring + …)`` as ever).
"""

from __future__ import annotations

import numpy as np

from .actions import BIDDING, PLAY
from .game import _BID_ONLY_FIELDS, STATE_FIELDS, Game, splitmix64
from .rules.wild import PLAY_TAG, decode_play, play_fields, stood_for

__all__ = ["WildGame", "draw_wild_rank"]

_WILD_SALT = np.uint64(0x7A11D)


def draw_wild_rank(owner, first) -> np.ndarray:
    """The wild rank (0 .. 12) drawn for deals ``owner`` (B, 54) with first bidders ``first``
    (B,): a hash of the deal, so that the deal (and its code) fixes the draw."""
    owner = np.asarray(owner, np.uint64)
    cards = np.arange(owner.shape[-1], dtype=np.uint64) * np.uint64(8)
    with np.errstate(over="ignore"):
        mixed = splitmix64(cards + owner).sum(axis=-1, dtype=np.uint64)
        mixed = splitmix64(mixed ^ _WILD_SALT ^ np.asarray(first, np.uint64))
    return (mixed % np.uint64(13)).astype(np.int8)


class WildGame(Game):
    """B games of the wildcard game (see the module docstring)."""

    state_fields = STATE_FIELDS + ("wild_rank",)
    bid_only_fields = _BID_ONLY_FIELDS + ("wild_rank",)

    def start_deals(self, owner, first, games=None, keys=None, codes=None, redeals=0) -> None:
        if self.history_action.dtype != np.int64:  # first deal: the wide arrays of this game
            self.history_action = self.history_action.astype(np.int64)
            self.table_move = self.table_move.astype(np.int64)
            self.wild_rank = np.full(self.batch_size, -1, np.int8)
            self._plays = None
        idx = slice(None) if games is None else np.asarray(games, np.int64)
        self.wild_rank[idx] = -1
        super().start_deals(owner, first, games, keys, codes, redeals)

    def _make_landlord(self, b: int, seat: int, base: int) -> None:
        super()._make_landlord(b, seat, base)
        self.wild_rank[b] = draw_wild_rank(self.owner[b], self.first_bidder[b])

    # ------------------------------------------------------------------ legal plays
    def _play_lists(self) -> dict[int, np.ndarray]:
        """Game index → the sorted legal play codes of the player to act (games in play)."""
        play = np.flatnonzero(self.phase == PLAY)
        lists = {}
        if len(play):
            hands = self.hands[play, self.current_player[play]]
            found = self.ruleset.rules.legal_plays_batch(
                hands, self.wild_rank[play], self.table_move[play]
            )
            lists = dict(zip(play.tolist(), found))
        too_many = [b for b, codes in lists.items() if len(codes) >= self.num_moves]
        if too_many:
            raise RuntimeError(f"game {too_many[0]}: more legal plays than action ids")
        return lists

    def legal_plays(self, game: int = 0) -> np.ndarray:
        """The legal play codes of game ``game``'s player to act, in action order (action ``i``
        plays entry ``i - 1``); empty outside the play phase."""
        self.legal_action_words()
        return self._plays[1].get(int(game), np.zeros(0, np.int64))

    def legal_action_words(self) -> np.ndarray:
        plays = getattr(self, "_plays", None)  # a clone recomputes its lists
        if plays is not None and plays[0] is self._legal_cache:
            return self._legal_cache
        lists = self._play_lists()
        words = np.zeros((self.batch_size, self.tables.num_words), np.uint64)
        bid = np.flatnonzero(self.phase == BIDDING)
        if len(bid):
            words[bid] = self.auction.legal_words(self, bid)
            if self.ruleset.open_hand:
                words[bid[self.landlord[bid] >= 0]] = self._open_words[0]
        if lists:  # bits 0 (pass, when following) .. L (the L listed plays)
            rows = np.fromiter(lists, np.int64, len(lists))
            ends = np.array([len(c) + 1 for c in lists.values()], np.uint64)[:, None]
            at = np.arange(self.tables.num_words, dtype=np.uint64)[None] * np.uint64(64)
            fill = np.clip(ends - np.minimum(at, ends), 0, 64)  # bits of each word set
            ones = np.uint64(0xFFFFFFFFFFFFFFFF)
            part = (np.uint64(1) << (fill % np.uint64(64))) - np.uint64(1)
            words[rows] = np.where(fill == 64, ones, part)
            words[rows[self.table_move[rows] == 0], 0] &= ~np.uint64(1)
        self._legal_cache = words
        self._plays = (words, lists)
        return words

    # ------------------------------------------------------------------ step
    def _live_legal(self, rows, actions):
        """Play codes given to ``step`` become their index in the legal list first."""
        if isinstance(rows, int):
            return super()._live_legal(rows, self._index_of(rows, actions))
        index = np.array([self._index_of(b, a) for b, a in zip(rows.tolist(), actions.tolist())])
        return super()._live_legal(rows, index.astype(np.int64))

    def _index_of(self, b: int, action: int) -> int:
        if not action & int(PLAY_TAG) or self.phase[b] != PLAY:
            return action
        codes = self.legal_plays(b)
        at = int(np.searchsorted(codes, action))
        return at + 1 if at < len(codes) and codes[at] == action else -1

    def _step_play(self, rows, moves) -> None:
        rows, moves = np.atleast_1d(rows), np.atleast_1d(moves)
        codes = self._codes_of(rows, moves)
        pos = self.history_len[rows] - 1
        self.history_action[rows, pos] = codes
        seats = self.current_player[rows]
        passing = codes == 0
        if np.any(passing):
            super()._step_play(*_pick(passing, rows, moves))
        if np.all(passing):
            return
        q, c, s = _pick(~passing, rows, codes, seats)
        counts = play_fields(c)["consumed"]
        self.hands[q, s] -= counts
        self.played[q, s] += counts
        self.num_plays[q, s] += 1
        self.table_move[q] = c
        self.table_player[q] = s
        self.passes[q] = 0
        self.bombs[q] += self.ruleset.rules.play_doublings(c)
        self.current_player[q] = (s + 1) % self.num_players
        finished = ~self.hands[q, s].any(-1)
        if np.any(finished):
            self._finish(*_pick(finished, q, s))

    def _codes_of(self, rows, moves):
        """The play codes of list indices ``moves`` of games ``rows`` (0: pass)."""
        lists = self._plays[1]
        return np.array(
            [int(lists[b][m - 1]) if m else 0 for b, m in zip(rows.tolist(), moves.tolist())],
            np.int64,
        )

    def explain_illegal(self, game: int, action: int) -> str:
        if self.phase[game] != PLAY or 0 <= action - self.num_moves < 1 << 16 or action == 0:
            return super().explain_illegal(game, action)
        if 0 < action <= len(self.legal_plays(game)):
            return "legal"
        return "not a legal play of this hand on the table"

    def _code(self, move: int, game: int = 0) -> int:
        """A play code of a history entry (a code) or of an action of game ``game``'s list."""
        if move & int(PLAY_TAG) or move <= 0:
            return max(int(move), 0)
        plays = self.legal_plays(game)
        return int(plays[move - 1]) if move <= len(plays) else -1

    def move_name(self, move: int, game: int = 0) -> str:
        """The reading of a play: ``"soft bomb of 7s (7 7 + wild 9 as 7, 9 as 7)"``."""
        code = self._code(move, game)
        if code < 0:
            return f"action {move}"
        if code == 0:
            return "pass"
        t, length, main, bomb, _ = decode_play(code)
        name = self.table.describe(_row_of(self.table, t, length, main))
        if bomb:
            name = name.replace("bomb", {1: "soft bomb", 2: "hard bomb", 3: "wild bomb"}[bomb])
        return f"{name} ({self.move_cards(code, game)})"

    def move_cards(self, move: int, game: int = 0) -> str:
        """The cards of a play, the wild cards named with what they stood for (a wild wing
        stands for nothing in particular): ``"4 5 6 7 + wild 8 as 3"``."""
        from .cards import RANK_NAMES, format_counts

        code = self._code(move, game)
        if code <= 0:
            return "pass" if code == 0 else f"action {move}"
        wild = int(self.wild_rank[game])
        consumed = play_fields(code)["consumed"].copy()
        used = int(consumed[wild])
        consumed[wild] = 0
        stood = stood_for(code, wild)
        named = [f"as {RANK_NAMES[r]}" for r in range(15) for _ in range(int(stood[r]))]
        named += ["wing"] * (used - len(named))
        wilds = [f"wild {RANK_NAMES[wild]} {n}" for n in named]
        return " + ".join(p for p in [format_counts(consumed)] + wilds if p)


def _row_of(table, mtype: int, length: int, main: int) -> int:
    """A move-table row of the reading (type, length, main) (its name is the reading's)."""
    rows = np.flatnonzero((table.type == mtype) & (table.length == length) & (table.main == main))
    return int(rows[0])


def _pick(mask, *values):
    """The entries of ``values`` where ``mask`` holds (scalars: the values themselves)."""
    if not isinstance(mask, np.ndarray):
        return values
    return tuple(v[mask] for v in values)
