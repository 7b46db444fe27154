"""Rule-based bots: Easy and Normal. They decide from an :class:`~ddz_env.infoset.InfoSet` only.

**Normal** plans its hand into the fewest moves (:mod:`ddz.agents.planner`) and plays the plan:

* leading: finish if the hand is one move; if all groups but one are *control* groups (nothing
  unseen can beat them), cash the controls first; if an opponent is down to one card, lead
  pairs and longer moves (or the highest single), and with 2-4 cards, groups bigger than his
  hand; as a peasant, feed a partner who has one or two cards left with the smallest single or
  pair; otherwise lead the weakest group, groups of four or more cards (chains, trios with
  attachments) before singles and pairs;
* following: never beat the partner's move without reason (only to finish); play a move
  nobody can beat that leaves at most one weak group (a winning line); otherwise play the
  beating move that hurts the plan least, if it hurts little — or at any cost when an opponent
  is close to finishing (with the highest single against a one-card opponent); bomb when the
  rest of the hand can then be cashed, or when the opponent who played has few cards left;
* bidding: :func:`ddz.agents.planner.assess_hand`.

**Easy** uses a cruder greedy plan, ignores its partner, and with probability ``mistake_rate``
(seeded) makes a weaker choice — leading a random planned group or passing when it could
follow. It never plays an illegal move and keeps bombs and the rocket for the end.

**Four players** (``Ruleset(players=4)``): both bots plan with the four-player planner
(:func:`ddz.agents.planner.plan_hand_four`: bombs of 4 to 8 cards, the rocket of four jokers, no
trio + single), judge control with :func:`~ddz.agents.planner.can_be_beaten_four` (bigger bombs beat
smaller ones) and bid with :func:`~ddz.agents.planner.assess_hand_four`; a peasant's partners are the
two other peasants (never beaten without reason, fed when one is close to finishing), and the
last defence is the peasant who plays just before the landlord.

**The wildcard game** (``Ruleset(game="wild")``): the actions are the listed plays of the seat
(``InfoSet.legal_plays``), read through a :class:`~ddz.agents.planner.PlayTable`; both bots plan
with the wild cards assigned to ranks (:func:`ddz.agents.planner.plan_hand_wild`: chains, soft
bombs), play each planned group with its natural cards first, and between plays of the same
rank, and between bombs, choose the one spending fewer wild cards (docs/wild.md, "Bots").
"""

from __future__ import annotations

from bisect import bisect_left
from operator import sub

import numpy as np

from ddz.agents.base import Agent, auction_call, open_call
from ddz.agents.planner import Group, planner_of
from ddz_env.cards import TWO
from ddz_env.infoset import InfoSet
from ddz_env.moves import BOMB_TYPES, MoveType

T = MoveType
#: the bomb types as plain ints (a set look-up of an int, not comparisons with the enum)
_BOMBS = frozenset(int(t) for t in BOMB_TYPES)


class _View:
    """What the bots derive from an information set, computed once per decision."""

    def __init__(self, info: InfoSet, legal: np.ndarray | None = None):
        self.info = info
        hooks, self.table = planner_of(info.ruleset).decision(info)
        self.hand = info.hand
        self._hand = info.hand.tolist()
        self.seat = info.seat
        self.role = info.role
        left = info.cards_to_win  # cards left, less the concessions (the two-player game)
        self.left = left.tolist()
        landlord = info.landlord
        self.players = P = info.ruleset.players
        self.plan_hand, self.plan_cost = hooks.plan_hand, hooks.plan_cost
        self.greedy_plan, self._beaten = hooks.greedy_plan, hooks.can_be_beaten
        self._group_move, self._wilds_spent = hooks.group_move, hooks.wilds_spent
        self.table_type = hooks.table_type(info)  # of the move to beat
        if self.role == 0:
            self.opponents = [(landlord + k) % P for k in range(1, P)]
            self.partners: list[int] = []
            self.partner = -1
        else:
            self.opponents = [landlord]
            self.partners = [s for s in range(P) if s not in (landlord, self.seat)]
            # the partner closest to finishing (the only one with three players; none with two)
            self.partner = min(self.partners, key=lambda s: self.left[s], default=-1)
        self.danger = min(self.left[s] for s in self.opponents)
        self._unseen: list[int] | None = None  # as a list (what can_be_beaten reads fastest)
        self.legal = (info.legal_moves() if legal is None else legal).tolist()
        self._control: dict[int, bool] = {}
        #: a row's cards as a tuple: the play table's rows (the wildcard game), else none
        self._row = getattr(self.table, "row", None)

    def rest(self, move: int) -> tuple[int, ...]:
        """The hand left after ``move`` (rank counts)."""
        if self._row is None:  # a move table: its rows as arrays
            return tuple((self.hand - self.table.counts[move]).tolist())
        return tuple(map(sub, self._hand, self._row(move)))  # 15 counts each

    def group_move(self, g: Group) -> int:
        """The move (a row of ``table``) of a planned group."""
        return self._group_move(self.table, g)

    def wilds(self, move: int) -> int:
        """The wild cards ``move`` spends (the wildcard game; 0 in the other games)."""
        return self._wilds_spent(self.table, move)

    def is_bomb(self, move: int) -> bool:
        return int(self.table.type[move]) in _BOMBS

    def is_control(self, move: int) -> bool:
        found = self._control.get(move)
        if found is None:
            if self._unseen is None:  # read on first use: many decisions need none
                self._unseen = self.info.unseen().tolist()
            found = self._control[move] = not self._beaten(self.table, move, self._unseen)
        return found

    def is_legal(self, move: int) -> bool:
        """Whether ``move`` is legal now (a binary search: the legal moves are ascending)."""
        legal = self.legal
        i = bisect_left(legal, move)
        return i < len(legal) and legal[i] == move

    def is_partner(self, seat: int) -> bool:
        return seat in self.partners  # the one partner with three players


def _bomb_order(v: _View, m: int) -> tuple[int, int, int, int]:
    """The smallest bomb first: the fewest wild cards spent (the wildcard game), type (bombs
    before the rocket), size (four players) or class (soft, hard, wild: the wildcard game),
    rank."""
    t = v.table
    return v.wilds(m), int(t.type[m]), int(t.length[m]), int(t.main[m])


def _assess(info: InfoSet):
    """The assessment of the hand of ``info`` (three or four players)."""
    return planner_of(info.ruleset).assess_hand(info.hand)


def _answer(info: InfoSet, bid: int) -> int:
    """The auction call of a player who would bid ``bid`` (0-3): holding the kitty under the
    open-hand rule, open a hand worth a bid of 3; else :func:`~ddz.agents.base.auction_call`."""
    if info.deciding_open:
        return open_call(info, bid == 3)
    return auction_call(info, bid)


def _view_and_obvious_move(info: InfoSet) -> tuple[_View | None, int | None]:
    """The view of ``info``, and the move to play without a thought
    (:func:`_forced_or_finishing`), if there is one; no view when the move is the only legal
    one (a decision without a choice costs no view)."""
    legal = info.legal_moves()
    if len(legal) == 1:
        return None, int(legal[0])
    v = _View(info, legal)
    return v, _forced_or_finishing(v)


def _forced_or_finishing(v: _View) -> int | None:
    """A move that wins (empties the hand, or plays it down to the concessions), else ``None``
    (the view's decision has a choice: :func:`_view_and_obvious_move` answers a forced move)."""
    total = v.left[v.seat]
    if getattr(v.table, "largest", total) < total:  # a play table: no play empties the hand
        return None
    size = v.table.size
    for m in v.legal:
        if m and size[m] >= total:
            return m
    return None


class NormalAgent(Agent):
    """Plans its hand, keeps control cards, cooperates as a peasant. Deterministic."""

    name = "normal"
    #: Largest plan-cost increase accepted to beat an opponent's move: as landlord, as a
    #: peasant, and as the peasant who is the last one able to stop the landlord's move.
    follow_limits = (1.0, 1.0, 1.5)
    #: Extra cost of spending a single or pair of 2s while the opponent holds many cards.
    top_card_cost = 0.3
    #: An opponent with this many cards or fewer is "about to finish": beat at any cost.
    urgent_cards = 6
    #: When an opponent has 2 to this many cards, lead groups bigger than his hand if any.
    safe_lead_cards = 4
    #: Follow with an unbeatable move that leaves at most one weak group, whatever it costs.
    winning_lines = True
    #: Leading, a group of 4 or more cards counts as this many ranks lower (play it earlier).
    lead_size_bonus = 12
    #: Leading, a pair or trio counts as this many ranks lower.
    lead_pair_bonus = 0

    def __init__(self, seed: int | None = None):
        self.seed = seed

    def bid(self, info: InfoSet) -> int:
        return _answer(info, _assess(info).suggested_bid)

    def play(self, info: InfoSet) -> int:
        v, obvious = _view_and_obvious_move(info)
        if obvious is not None:
            return obvious
        return self._lead(v) if info.leading else self._follow(v)

    # ------------------------------------------------------------------ leading
    def _lead(self, v: _View) -> int:
        plan = v.plan_hand(v.hand)
        groups = [(g, v.group_move(g)) for g in plan.groups]
        groups = [(g, m) for g, m in groups if v.is_legal(m)] or [(None, m) for m in v.legal[:1]]
        if groups[0][0] is None:
            return groups[0][1]
        control = [(g, m) for g, m in groups if g.is_bomb or v.is_control(m)]
        weak = [(g, m) for g, m in groups if not (g.is_bomb or v.is_control(m))]
        # Cash the controls when at most one weak group remains.
        if len(weak) <= 1 and control:
            plain = [(g, m) for g, m in control if not g.is_bomb]
            pick = plain or control
            return max(pick, key=lambda gm: (gm[0].size, -gm[0].main))[1]
        # Feed a partner who is close to finishing.
        if v.partner >= 0 and int(v.left[v.partner]) <= 2 and v.danger > 1:
            need = int(v.left[v.partner])
            feed = [
                m for m in v.legal if int(v.table.type[m]) == (T.SINGLE if need == 1 else T.PAIR)
            ]
            if feed:
                return min(feed, key=lambda m: (int(v.table.main[m]), v.wilds(m)))
        if v.danger == 1:
            longer = [(g, m) for g, m in weak if g.type != T.SINGLE] or [
                (g, m) for g, m in control if g.type != T.SINGLE and not g.is_bomb
            ]
            if longer:
                return min(longer, key=lambda gm: gm[0].main)[1]
            singles = [m for m in v.legal if int(v.table.type[m]) == T.SINGLE]
            return max(singles, key=lambda m: (int(v.table.main[m]), -v.wilds(m)))
        if 2 <= v.danger <= self.safe_lead_cards:
            # Groups bigger than an opponent's hand can't be followed (bombs aside).
            safe = [(g, m) for g, m in weak if g.size > v.danger]
            if safe:
                weak = safe
        # Lead the weakest group; chains and trios first (they are hard to follow).
        pool = weak or groups
        bonus, pair_bonus = self.lead_size_bonus, self.lead_pair_bonus

        def weakest(gm: tuple[Group, int]) -> tuple[int, int]:
            g = gm[0]
            return (g.main - (bonus if g.size >= 4 else pair_bonus if g.size >= 2 else 0), -g.size)

        return min(pool, key=weakest)[1]

    @staticmethod
    def _one_weak_group(v: _View, counts) -> bool:
        """Whether at most one group of the plan of ``counts`` could be beaten by the unseen
        cards (bombs aside); the groups are read weakest first, until a second such one."""
        weak = 0
        for g in v.plan_hand(counts).groups:
            if not g.is_bomb and not v.is_control(v.group_move(g)):
                weak += 1
                if weak > 1:
                    return False
        return True

    # ------------------------------------------------------------------ following
    def _follow(self, v: _View) -> int:
        info = v.info
        owner = info.table_seat
        if v.is_partner(owner):
            return 0
        plain: list[int] = []
        bombs: list[int] = []
        types = v.table.type
        for m in v.legal:
            if m:
                (bombs if int(types[m]) in _BOMBS else plain).append(m)
        owner_left = int(v.left[owner])
        # A one-card opponent and a single on the table: hold him with the highest single.
        if v.danger == 1 and v.table_type == T.SINGLE and plain:
            return max(plain, key=lambda m: (int(v.table.main[m]), -v.wilds(m)))
        base = v.plan_cost(v.hand)
        scored = []
        seen: set[tuple[int, ...]] = set()
        rest_of, cost_of, wilds, mains = v.rest, v.plan_cost, v.wilds, v.table.main
        for m in plain:
            rest = rest_of(m)  # moves of the same cards leave the same hand
            if rest in seen:
                continue
            seen.add(rest)
            delta = cost_of(rest) - base
            main = int(mains[m])
            # Spending top cards early costs a little: they take the lead back later.
            if main >= TWO and int(types[m]) in (T.SINGLE, T.PAIR) and owner_left > 5:
                delta += self.top_card_cost
            scored.append((delta + 0.01 * main + 0.001 * wilds(m), m))
        scored.sort()
        # A move nobody can beat that leaves at most one weak group wins the hand: play it.
        if self.winning_lines:
            for _, m in scored[:3]:
                if v.is_control(m) and self._one_weak_group(v, v.rest(m)):
                    return m
        if v.role == 0:
            limit = self.follow_limits[0]
        elif v.role == v.players - 1 and info.moves and info.moves[-1][1] == 0:
            limit = self.follow_limits[2]  # the landlord's move, my partner passed: last defence
        else:
            limit = self.follow_limits[1]
        if owner_left <= self.urgent_cards or v.danger <= 2:
            limit = 10.0
        if scored and scored[0][0] <= limit:
            return scored[0][1]
        if bombs:
            bomb = min(bombs, key=lambda m: _bomb_order(v, m))
            if (
                self._one_weak_group(v, v.rest(bomb))
                or owner_left <= self.urgent_cards
                or v.danger <= 2
            ):
                return bomb
        return 0


class EasyAgent(Agent):
    """A beatable bot: greedy plan, no cooperation, seeded mistakes; never absurd."""

    name = "easy"

    def __init__(self, seed: int | None = None, mistake_rate: float = 0.2):
        self.mistake_rate = mistake_rate
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def bid(self, info: InfoSet) -> int:
        a = _assess(info)
        score = a.big_cards + 2 * a.bombs
        bid = 3 if score >= 8 else 2 if score >= 6 else 1 if score >= 4 else 0
        return _answer(info, bid)

    def play(self, info: InfoSet) -> int:
        v, obvious = _view_and_obvious_move(info)
        if obvious is not None:
            return obvious
        mistake = self.rng.random() < self.mistake_rate
        if info.leading:
            plan = v.greedy_plan(v.hand)
            groups: list[tuple[Group, int]] = [(g, v.group_move(g)) for g in plan.groups]
            groups = [(g, m) for g, m in groups if v.is_legal(m)]
            plain = [(g, m) for g, m in groups if not g.is_bomb]
            if not plain:
                return groups[0][1] if groups else v.legal[0]
            if mistake:
                return plain[int(self.rng.integers(len(plain)))][1]
            return min(plain, key=lambda gm: gm[0].main)[1]
        candidates = [m for m in v.legal if m]
        plain = [m for m in candidates if not v.is_bomb(m)]
        owner_left = int(v.left[info.table_seat])
        if plain and not (mistake and owner_left > 3):
            keep = [m for m in plain if not (v.table.counts[m] & (v.hand >= 4)).any()] or plain
            return min(
                keep, key=lambda m: (int(v.table.main[m]), v.wilds(m), -int(v.table.size[m]))
            )
        bombs = [m for m in candidates if v.is_bomb(m)]
        if bombs and owner_left <= 3 and not v.is_partner(info.table_seat):
            return min(bombs, key=lambda m: _bomb_order(v, m))
        return 0
