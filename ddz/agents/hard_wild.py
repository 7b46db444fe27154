"""Hard on the wildcard game (``Ruleset(game="wild")``): a model of that game, or the networks
of the classic game.

A model of the wildcard game (``ddz train --wild``) reads the game's own observation with each
move shown as the combination it stood for (:func:`represented_observation`), and scores each
play as below, with the same reading of the wild cards kept and the same bonus (the trainer's
actors play and learn with them). Without one, the classic model plays it by reading each of
its plays as the classic combination it stands for:

* **The state** is the wildcard game's observation (:func:`ddz_env.observation.observe_infoset`)
  read through the classic layout (:func:`ddz_env.observation.map_layout`), with the moves of
  ``table_move`` and ``history`` shown as the combinations they stood for
  (:func:`represented_observation`): the wild game's observation encodes a move by the real cards
  it consumed, and what its wild cards stood for in fields of its own (``table_wild``,
  ``history_wild``), which the classic layout lacks. The cards fields (``hand``, ``played``,
  ``unseen``, ``kitty``) hold the real cards, the wild cards at the wild rank.
* **A play** is scored by the role's networks as in the classic game,
  ``head(relu(state_mlp(obs) + move_mlp(shown) + rest_mlp(hand - consumed)))``, where ``shown``
  is the card encoding of the combination the play stands for (:func:`represented`: the natural
  cards, each wild card of the body at the rank it stood for, one pairing a wing card at that
  card's rank, any other wild wing at the wild rank) —
  so the model's knowledge of what beats what applies — and ``consumed`` the real cards the
  play takes from the hand (so the rest branch sees the hand that is really left).
* **Wild cards kept**: a model whose rest branch reads the wild cards (``ddz train --wild
  --rest-wild``: the natural cards left, a thermometer of the wild cards kept and the wild rank,
  :func:`wild_rest_features`) scores each play once, as it is, plus the bonus below. Otherwise
  the model does not know that a wild card may become any rank; read at
  the wild rank, a wild card kept in hand is worth no more to it than a natural card, and it
  spends them freely. So the rest of the hand is read again with its wild cards at other ranks,
  one step at a time (:data:`ASSIGN_ROUNDS` steps, each reading up to :data:`TOGETHER` of them
  at one rank the rest holds :data:`HELD` cards of or more), each step kept only where it
  raises the play's value (the value of a hand is at least that of the best way to read its
  wild cards), for the :data:`TOP_PLAYS` best plays;
  and a play gets :data:`WILD_BONUS` per wild card it keeps (:func:`wild_scores`).
* **A wild card spent where a natural card would do**: a play that differs from another
  listed play only in spending a wild card where that one spends a natural card of a rank,
  showing the same combination, is not scored (:func:`spends_wild_for_natural`): the other
  play keeps the wild card, and its rest with that card read at the natural card's rank is
  this play's rest, one of the readings it tries.
* **Bids** are the classic bid network's on the 17 cards dealt (the wild rank is drawn after
  the auction): :meth:`ddz.agents.hard.HardAgent.bid` unchanged.

Everything is read from the information set alone.

:func:`play_values` is the one scoring of plays, for Hard (:func:`batch_scores`, a
:class:`ModelScorer`: one decision in :func:`wild_scores`, every decision of a batch of games in
:func:`model_actions`, the Expert's rollouts) and for the actors of ``ddz train`` in every
game (a :class:`ddz.train.model.NetScorer`; the classic game's plays keep no wild card and are
scored once): all the plays of all the decisions of a role in one batch, :data:`CHUNK` rows
per call of the networks.

Measured with the classic model (``ddz eval hard:checkpoints/hard.npz normal --wild --deals
2000 --seed 2026 --workers 1``, no auction, seats swapped; the shipped wildcard model is in
``checkpoints/README.md``): WP 0.619 ± 0.012, ADP 2.554 ± 0.238 (0.619 ± 0.012, 2.546 ± 0.238 with the
wild cards read at every rank, :data:`HELD` 0: per deal WP −0.000 ± 0.003, ADP +0.009 ±
0.048, ``python -m ddz.bench.paired``; 0.618 ± 0.012, 2.543 ± 0.238 with the plays of
:func:`spends_wild_for_natural` scored too); the plays scored without reading the
wild cards left again and without the bonus (and with those plays): WP 0.496 ± 0.013, ADP
0.733 ± 0.166.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ddz.agents.model_game import read_game_tag, tag_ruleset
from ddz_env.infoset import InfoSet
from ddz_env.legal import legal_pairs
from ddz_env.observation import encode_cards, map_layout, obs_slices, observe, observe_infoset
from ddz_env.rules import Ruleset
from ddz_env.rules.wild import play_body, play_consumed, stood_for, swap_card

#: how many of the wild cards left in hand the rest branch may read at another rank
ASSIGN_ROUNDS = 4
#: added to a play's value per wild card it keeps in hand
WILD_BONUS = 0.05
#: how many plays (the best by their first score) have the wild cards of their rest read again
TOP_PLAYS = 512
#: how many wild cards of the rest one step may read at one rank together
TOGETHER = 2
#: the wild cards of the rest are read only at a rank of which the rest holds at least this
#: many cards (a pair made a trio or a bomb, a trio a bomb): a wild card read alone at a rank,
#: or joining a single, seldom raised a play's value and was most of the readings scored
HELD = 2
#: the types whose wings are pairs (``MoveType``: trio with pair, plane with pairs, four with
#: two pairs)
_PAIR_WINGS = (5, 10, 12)
_PAIR_WINGED = np.isin(np.arange(16), _PAIR_WINGS)  # by type (the low 4 bits of a play code)


def represented(codes, wild, consumed=None) -> np.ndarray:
    """(…, 15) int16 rank counts of the classic combination each play code stands for: its
    natural cards, each wild card of its body at the rank it stood for
    (:func:`ddz_env.rules.wild.stood_for`), a wild card that pairs a natural wing card (a pair
    wing of a trio, plane or four with pairs) at that card's rank, and any other wild wing at
    the wild rank (its own card). Pass (0) is all zeros. ``wild`` broadcasts with ``codes``;
    ``consumed``: :func:`ddz_env.rules.wild.play_consumed` of the codes, where already read."""
    codes = np.asarray(codes, np.int64)
    wild = np.broadcast_to(np.asarray(wild, np.int64), codes.shape)
    shape = codes.shape
    codes, wild = codes.reshape(-1), wild.reshape(-1)
    consumed = play_consumed(codes) if consumed is None else consumed.reshape(-1, 15)
    stood = stood_for(codes, wild, consumed)
    shown = consumed.astype(np.int16) + stood
    at = np.flatnonzero(wild >= 0)
    shown[at, wild[at]] -= stood.sum(-1, dtype=np.int16)[at]
    # the wild wings that pair a natural wing card: plays whose wings are pairs only
    at = np.flatnonzero(_PAIR_WINGED.take(codes & 15) & (wild >= 0))
    if len(at):
        w = wild[at]
        # less the body of each reading: the cards of its type, length and main
        wing = shown[at] - play_body(codes[at])
        free = wing[np.arange(len(at)), w]
        odd = (wing % 2 == 1) & (np.arange(15) != w[:, None]) & (np.arange(15) < 13)
        paired = odd & (np.cumsum(odd, -1) <= free[:, None])
        shown[at] += paired
        shown[at, w] -= paired.sum(-1, dtype=np.int16)
    return shown.reshape(shape + (15,))


#: (54, 15): the rank of each number of a card encoding (:func:`encode_cards`, 3 players)
_RANK_OF = np.eye(15, dtype=np.float32)[np.r_[np.repeat(np.arange(13), 4), 13, 14]]


def _counts(encoded: np.ndarray) -> np.ndarray:
    """(…, 15) rank counts of (…, 54) card encodings (:func:`encode_cards`, 3 players)."""
    return np.rint(np.asarray(encoded, np.float32) @ _RANK_OF).astype(np.int16)


def model_ruleset(model) -> Ruleset:
    """The ruleset whose observation layout the classic ``model`` reads (its game tag)."""
    return tag_ruleset(read_game_tag(model.meta))


def wild_ranks(obs: np.ndarray, ruleset: Ruleset) -> np.ndarray:
    """(n,) int64: the wild rank of each observation (n, obs_size(ruleset)) of the wildcard
    game, read from its ``wild_rank`` field (-1 where none is drawn yet)."""
    onehot = np.asarray(obs)[:, obs_slices(ruleset)["wild_rank"]]
    return np.where(onehot.any(-1), onehot.argmax(-1), -1)


def represented_observation(obs: np.ndarray, ruleset: Ruleset, target: Ruleset) -> np.ndarray:
    """Observations (n, obs_size(ruleset)) of the wildcard game ``ruleset`` as a model of
    layout ``target`` reads them (the classic layout, or the wildcard game's own for a model of
    that game): :func:`map_layout`, then ``table_move`` and every block of ``history`` the card
    encoding of the combination the move stood for (:func:`represented`, from the consumed
    cards of the move's field, what its wild cards stood for in the matching ``table_wild`` /
    ``history_wild`` field, and the ``wild_rank`` field); the wildcard game's own fields, where
    ``target`` has them, stay as they are."""
    obs = np.asarray(obs, np.float32)
    src, dst = obs_slices(ruleset), obs_slices(target)
    out = map_layout(obs, ruleset, target).copy()
    wild = wild_ranks(obs, ruleset)
    for move, extra in (("table_move", "table_wild"), ("history", "history_wild")):
        n = obs.shape[0]
        consumed = _counts(obs[:, src[move]].reshape(n, -1, 54))
        stood = _counts(obs[:, src[extra]].reshape(n, -1, 54))
        at_wild = (np.arange(15) == wild[:, None, None]) & (wild[:, None, None] >= 0)
        shown = consumed + stood - at_wild * stood.sum(-1, keepdims=True)
        out[:, dst[move]] = encode_cards(shown).reshape(n, -1)
    return out


def play_codes(info: InfoSet, moves: np.ndarray) -> np.ndarray:
    """The play codes of legal actions ``moves`` (0 pass, ``i`` the ``i``-th listed play)."""
    listed = np.concatenate([[0], np.asarray(info.legal_plays, np.int64)])
    return listed[np.asarray(moves, np.int64)]


def spends_wild_for_natural(codes, wild, groups=None, shown=None, consumed=None) -> np.ndarray:
    """(n,) bool: which of the plays ``codes`` (n,) of the wild rank ``wild`` (n,) spend a
    wild card where a natural card would do: the same play (type, length, main, bomb class)
    with one of its wild cards replaced by a natural card, showing the same combination
    (:func:`represented`), is listed among the plays of its decision (``groups`` (n,): the
    decision of each play; one decision without). That play keeps the wild card, and its rest
    with the wild card read at the natural card's rank is this play's rest: the agent does not
    score these. ``shown``: :func:`represented` of the plays and ``consumed`` their
    :func:`ddz_env.rules.wild.play_consumed`, where already computed."""
    codes = np.asarray(codes, np.int64)
    n = len(codes)
    groups = np.zeros(n, np.int64) if groups is None else np.asarray(groups, np.int64)
    wild = np.broadcast_to(np.asarray(wild, np.int64), (n,))
    consumed = play_consumed(codes) if consumed is None else consumed
    spends = np.flatnonzero((wild >= 0) & (consumed[np.arange(n), np.maximum(wild, 0)] > 0))
    shown = represented(codes, wild, consumed) if shown is None else shown
    # the natural card must show where a wild card of this play shows: at a rank shown more
    # often than the play has natural cards of it
    w = wild[spends]
    more = (shown[spends, :13] > consumed[spends, :13]) & (np.arange(13) != w[:, None])
    row, rank = np.nonzero(more)
    if not len(row):
        return np.zeros(n, bool)
    row = spends[row]
    alt = swap_card(codes[row], wild[row], rank)
    # the listed play each asked one matches (its own decision, its own wild rank), whose
    # combination shown is already at hand: the first of them, -1 where none is listed
    match = _first_listed(groups, codes, groups[row], alt)
    hit = np.flatnonzero(match >= 0)
    same = shown[row[hit]] == shown[match[hit]]
    out = np.zeros(n, bool)
    out[row[hit[same.all(-1)]]] = True
    return out


#: the bits of a play code below its tag and the bit above its fields (never set)
_CODE_BITS = 55


def _first_listed(groups, codes, ask_groups, ask_codes) -> np.ndarray:
    """For each asked pair (``ask_groups``, ``ask_codes``), the index of the first listed pair
    (``groups``, ``codes``) equal to it, -1 where none is. With groups 0 .. 255 a pair is one
    int64 key (group above the code's fields), searched among the listed keys (sorted once
    unless they already are, as a batch of decisions lists them); other groups sort the
    listed and asked pairs together."""
    n = len(codes)
    if n and groups.min() >= 0 and groups.max() < 1 << (63 - _CODE_BITS):
        low = np.int64((1 << _CODE_BITS) - 1)
        key = groups << _CODE_BITS | codes & low
        ask = ask_groups << _CODE_BITS | ask_codes & low
        order = None if (key[1:] >= key[:-1]).all() else np.argsort(key, kind="stable")
        keys = key if order is None else key[order]
        at = np.minimum(np.searchsorted(keys, ask), n - 1)
        found = keys[at] == ask
        return np.where(found, at if order is None else order[at], -1)
    g = np.concatenate([groups, ask_groups])
    c = np.concatenate([codes, ask_codes])
    asked = np.concatenate([np.zeros(n, bool), np.ones(len(ask_codes), bool)])
    order = np.lexsort((asked, c, g))  # the listed pairs first in each run of equal pairs
    c_sorted, g_sorted = c[order], g[order]
    new_run = np.ones(len(c), bool)
    new_run[1:] = (g_sorted[1:] != g_sorted[:-1]) | (c_sorted[1:] != c_sorted[:-1])
    first = order[np.maximum.accumulate(np.where(new_run, np.arange(len(c)), 0))]
    match = np.zeros(len(c), np.int64)
    match[order] = first
    return np.where(match[n:] < n, match[n:], -1)


#: candidate readings scored per call of the networks: the sums of one call stay in the
#: processor's cache (the networks' time is their products, not their memory traffic)
CHUNK = 2048


def has_wild_rank(ruleset: Ruleset) -> bool:
    """Whether ``ruleset``'s game draws a wild rank (its observation has the ``wild_rank``
    field): the games whose models may read the wild cards in their rest branch."""
    return "wild_rank" in obs_slices(ruleset)


def wild_rest_width(deck) -> int:
    """The numbers a rest branch that reads the wild cards (:func:`wild_rest_features`) reads
    beyond ``deck``'s card encoding: a thermometer of the wild cards kept, as wide as a rank's
    (4), then the wild rank one-hot (13)."""
    return deck.thermometer[0] + 13


def wild_rest_features(rests, wild, deck) -> np.ndarray:
    """(n, card encoding + :func:`wild_rest_width`) float32: what a rest branch that reads the
    wild cards reads of rests ``rests`` (n, 15) (the real cards left, the wild cards at the
    wild rank) of the wild ranks ``wild`` (n,): the card encoding of the natural cards (the
    wild rank's count 0), a thermometer of the wild cards kept, the wild rank one-hot. A rest
    of no wild rank (-1) reads as all natural cards, no wild card kept, no rank."""
    rests = np.asarray(rests, np.int16)
    wild = np.broadcast_to(np.asarray(wild, np.int64), (len(rests),))
    n, at = len(rests), np.flatnonzero(wild >= 0)
    natural = rests.copy()
    kept = np.zeros(n, np.int16)
    kept[at] = natural[at, wild[at]]
    natural[at, wild[at]] = 0
    levels = deck.thermometer[0]
    rank = np.zeros((n, 13), np.float32)
    rank[at, wild[at]] = 1
    return np.concatenate(
        [encode_cards(natural, deck=deck), kept[:, None] > np.arange(levels), rank], axis=1
    ).astype(np.float32)


def rest_inputs(reads_wild: bool, rests, wild, deck) -> np.ndarray:
    """What a rest branch reads of rests ``rests`` (n, 15) of the wild ranks ``wild`` (n,):
    :func:`wild_rest_features` where it reads the wild cards (``reads_wild``), else the card
    encoding of the rests."""
    if reads_wild:
        return wild_rest_features(rests, wild, deck)
    return encode_cards(rests, deck=deck)


class Scorer(Protocol):
    """What the scoring of plays needs of one role's networks (the Hard agent's NumPy model,
    :class:`ModelScorer`, and the trainer's torch networks alike)."""

    #: whether the networks read the rest of the hand (without that branch a play's value is
    #: its state and move alone, and nothing is read again)
    has_rest: bool
    #: whether the rest branch reads the wild cards kept and the wild rank
    #: (:func:`wild_rest_features`): it values a kept wild card itself, and nothing is read
    #: again
    reads_wild: bool

    def score(
        self, joint: np.ndarray, at: np.ndarray, counts: np.ndarray, wild: np.ndarray
    ) -> np.ndarray:
        """(n,) float32: the ranking value of the sums ``joint[at] + rest(counts)``
        (``joint`` (m, J) the sums ``state + move`` of the plays, ``counts`` (n, 15) rests,
        ``wild`` (n,) their wild ranks, which only a branch that :attr:`reads_wild` reads)."""

    def rank(self, sums: np.ndarray) -> np.ndarray:
        """(n,) float32: the ranking value of sums (n, J) (a model without the rest branch)."""


class ModelScorer:
    """:class:`Scorer` of the role ``role`` of a :class:`ddz.agents.hard.HardModel`."""

    def __init__(self, model, role: int):
        self.model, self.role = model, role
        self.has_rest = model.has_rest
        self.reads_wild = model.rest_reads_wild
        self.deck = model.ruleset.deck

    def score(
        self, joint: np.ndarray, at: np.ndarray, counts: np.ndarray, wild: np.ndarray
    ) -> np.ndarray:
        sums = self.model.encode_rest(
            self.role, rest_inputs(self.reads_wild, counts, wild, self.deck)
        )
        sums += joint[at]
        return self.rank(sums)

    def rank(self, sums: np.ndarray) -> np.ndarray:
        return self.model.rank(*self.model.values(self.role, sums))


def score_rests(
    scorer: Scorer, joint: np.ndarray, at: np.ndarray, counts: np.ndarray, wild: np.ndarray
):
    """(n,) float32: the value of each play (its state-and-move sum, row ``at`` of ``joint``)
    with the rest of the hand ``counts`` (n, 15) of the wild rank ``wild`` (n,)
    (:meth:`Scorer.score`), :data:`CHUNK` rows at a time."""
    out = np.empty(len(at), np.float32)
    for s in range(0, len(at), CHUNK):
        part = slice(s, s + CHUNK)
        out[part] = scorer.score(joint, at[part], counts[part], wild[part])
    return out


def play_values(
    scorer: Scorer,
    joint: np.ndarray,
    hands: np.ndarray,
    spent: np.ndarray,
    wild: np.ndarray,
    groups: np.ndarray | None = None,
    left_out: np.ndarray | None = None,
    rounds: int | None = None,
    bonus: float | None = None,
    together: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(values, rests) of plays for the networks of one role, as Hard ranks them and
    ``ddz train`` plays: ``joint`` (m, J) the sums ``state + move`` of each play scored (the
    plays not ``left_out``, in order), ``hands``
    (n, 15) the hand it is played from, ``spent`` (n, 15) the real cards it takes, ``wild``
    (n,) the wild rank of its game (-1: none, the classic game) and ``groups`` (n,) the
    decision each play belongs to. A play's value is the networks' score of the rest of the
    hand (``hands - spent``); where that rest keeps wild cards, the best reading of them at
    other ranks (:func:`read_again`; a rest branch that reads the wild cards itself,
    :attr:`Scorer.reads_wild`, scores each play once, as it is) plus ``bonus`` per wild card
    kept. Plays ``left_out``
    (n,) bool (:func:`spends_wild_for_natural`) are not scored: -inf. Returns the values and
    the rests (n, 15) int16 they were scored with; without the rest branch, the plain
    scores of ``joint`` (nothing read again, no bonus)."""
    bonus = WILD_BONUS if bonus is None else bonus
    n = len(hands)
    rest = np.asarray(hands, np.int16) - np.asarray(spent, np.int16)
    scored = np.arange(n) if left_out is None else np.flatnonzero(~np.asarray(left_out, bool))
    q = np.full(n, -np.inf, np.float32)
    if not scorer.has_rest:
        q[scored] = scorer.rank(np.array(joint, np.float32))
        return q, rest
    wild = np.broadcast_to(np.asarray(wild, np.int64), (n,))
    q[scored] = score_rests(scorer, joint, np.arange(len(scored)), rest[scored], wild[scored])
    at = np.flatnonzero(wild[scored] >= 0)  # rows of ``joint`` whose rests may keep wild cards
    rows = scored[at]
    if not len(rows):
        return q, rest
    groups = np.zeros(n, np.int64) if groups is None else np.asarray(groups, np.int64)
    kept = rest[rows, wild[rows]].astype(np.float32)  # the wild cards each play keeps

    def score(at_rows, counts):
        return score_rests(scorer, joint, at[at_rows], counts, wild[rows[at_rows]])

    if not scorer.reads_wild:
        q[rows], rest[rows] = read_again(
            score, rest[rows], q[rows], wild[rows], bonus, rounds, together, groups[rows]
        )
    q[rows] += bonus * kept
    return q, rest


def wild_scores(
    model,
    info: InfoSet,
    rounds: int | None = None,
    bonus: float | None = None,
    together: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(legal actions, the model's ranking value of each) for the seat to act in the wildcard
    game's play (see the module docstring): :func:`batch_scores` of the one decision."""
    moves = info.legal_moves()
    codes = play_codes(info, moves)
    hand = np.asarray(info.hand, np.int16)[None]
    q, _, _ = batch_scores(
        model,
        info.role,
        observe_infoset(info)[None],
        info.ruleset,
        codes,
        np.zeros(len(codes), np.int64),
        hand,
        rounds=rounds,
        bonus=bonus,
        together=together,
    )
    return moves, q


def batch_scores(
    model,
    role: int,
    obs: np.ndarray,
    ruleset: Ruleset,
    codes: np.ndarray,
    groups: np.ndarray,
    hands: np.ndarray,
    **options,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, rests, sums) of the plays of several decisions of the role ``role`` in the
    wildcard game ``ruleset``, as Hard ranks them: ``obs`` (g, …) the decisions' observations
    (:func:`ddz_env.observation.observe`; their wild ranks read from them, :func:`wild_ranks`)
    and ``hands`` (g, 15) the hands they are played from; ``codes`` (n,) the play codes (0 the pass) and
    ``groups`` (n,) the decision of each. Each play is shown as the combination it stands for
    and scored by :func:`play_values` (``options``: its ``rounds``, ``bonus``, ``together``),
    all of them in one batch; the plays :func:`spends_wild_for_natural` are -inf. ``sums``
    (n, J): each play's ``state + move`` (zeros for those left out), to which a rest's
    encoding adds (:meth:`ModelScorer.score`)."""
    codes = np.asarray(codes, np.int64)
    groups = np.asarray(groups, np.int64)
    wilds = wild_ranks(obs, ruleset)[groups]
    consumed = play_consumed(codes)
    shown = represented(codes, wilds, consumed)
    left_out = spends_wild_for_natural(codes, wilds, groups, shown, consumed)
    kept = ~left_out
    state = model.encode_state(role, represented_observation(obs, ruleset, model_ruleset(model)))
    joint = state[groups[kept]] + model.encode_moves(role, encode_cards(shown[kept]))
    q, rests = play_values(
        ModelScorer(model, role),
        joint,
        np.asarray(hands, np.int16)[groups],
        consumed,
        wilds,
        groups=groups,
        left_out=left_out,
        **options,
    )
    sums = np.zeros((len(codes), joint.shape[1]), joint.dtype)
    sums[kept] = joint
    return q, rests, sums


def read_again(score, rest, q, wild, bonus, rounds=None, together=None, groups=None):
    """The values ``q`` (n,) of plays whose rests ``rest`` (n, 15) keep wild cards (of rank
    ``wild``, (n,)), with those wild cards read at other ranks, one step at a time (``rounds``
    steps, each reading up to ``together`` of them at one rank of which the rest holds
    :data:`HELD` cards or more), each step kept only where it
    raises the value, for the :data:`TOP_PLAYS` best plays by ``q + bonus · wild cards kept``
    (of each group of rows with the same ``groups`` number: a decision's plays); ``score(rows,
    rest counts)`` scores rows (indices into ``q``) with other rests. Returns the new values
    and rests."""
    rounds = ASSIGN_ROUNDS if rounds is None else rounds
    together = TOGETHER if together is None else together
    n = len(q)
    q, rest = q.copy(), rest.copy()
    at = np.arange(n)
    kept = rest[at, wild].astype(np.float32)
    groups = np.zeros(n, np.int64) if groups is None else np.asarray(groups, np.int64)
    # the best TOP_PLAYS plays of each group: rank within the group by the first value (the
    # groups of TOP_PLAYS plays or fewer keep them all)
    _, inverse, sizes = np.unique(groups, return_inverse=True, return_counts=True)
    live = sizes[inverse] <= TOP_PLAYS
    big = np.flatnonzero(~live)
    if len(big):
        order = big[np.lexsort((-(q[big] + bonus * kept[big]), groups[big]))]
        first = np.searchsorted(groups[order], groups[order], side="left")
        live[order[np.arange(len(big)) - first < TOP_PLAYS]] = True
    k = np.repeat(np.arange(1, together + 1), 13).astype(np.int16)
    r = np.tile(np.arange(13), together)
    for _ in range(rounds):
        rows = np.flatnonzero(live & (rest[at, wild] > 0))
        if not len(rows):
            break
        # candidates: k of the wild cards (k = 1 .. ``together``) read at rank r, where the
        # rest holds HELD cards of rank r or more (and at most 4 - k), and k wild cards
        w = wild[rows]
        held = rest[rows][:, r]  # (rows, candidates)
        valid = (r[None] != w[:, None]) & (held + k[None] <= 4) & (held >= HELD)
        valid &= rest[rows, w][:, None] >= k[None]
        row, slot = np.nonzero(valid)  # only the valid candidates are built and scored
        cand = rest[rows[row]]
        cand[np.arange(len(row)), w[row]] -= k[slot]
        cand[np.arange(len(row)), r[slot]] += k[slot]
        scored = score(rows[row], cand)
        qs = np.full(valid.shape, -np.inf, scored.dtype)
        qs[row, slot] = scored
        best = qs.argmax(1)
        better = qs[np.arange(len(rows)), best] > q[rows]
        live[rows[~better]] = False
        up = np.flatnonzero(better)
        q[rows[up]] = qs[up, best[up]]
        # the candidate each improved row took: its place among the valid ones
        place = np.full(valid.shape, -1, np.int64)
        place[row, slot] = np.arange(len(row))
        rest[rows[up]] = cand[place[up, best[up]]]
    return q, rest


def wild_move_values(model, info: InfoSet, **options) -> tuple[np.ndarray, np.ndarray]:
    """(legal actions, values) whose argmax is the agent's play on the wildcard game:
    :func:`wild_scores` with the module's settings (``options`` override them), for the
    classic model and a model of the wildcard game alike (``ddz train --wild`` plays and
    learns with the same reading), the values :meth:`ddz.agents.hard.HardAgent.move_values`
    gives there."""
    return wild_scores(model, info, **options)


def model_actions(model, game, games: np.ndarray, value: str = "score"):
    """(greedy actions, their values) of ``model`` for the players to act in ``games`` of a
    wildcard game in its play phase (:func:`ddz.agents.hard.model_actions` there): every
    decision of a role scored in one batch (:func:`batch_scores`), each game's best play taken.
    ``value``: ``"score"`` the value that ranks the plays, ``"wp"`` the WP head's of the play
    taken with the rest it was scored with (the points head's clipped to [-1, 1] for a model
    without a WP head)."""
    games = np.asarray(games, np.int64)
    out = np.zeros(len(games), np.int64)
    best = np.zeros(len(games), np.float32)
    obs = observe(game, games=games)
    seats = game.current_player[games]
    roles = game.role(seats, games).astype(np.int64)
    hands = game.hands[games, seats]
    gb, actions = legal_pairs(game.legal_action_words()[games])
    codes = np.zeros(len(actions), np.int64)
    codes[actions > 0] = game.encoding.legal_plays_of(game, games)
    for r in range(len(model.role_names)):
        rows = np.flatnonzero(roles == r)
        if not len(rows):
            continue
        loc = np.full(len(games), -1)
        loc[rows] = np.arange(len(rows))
        ps = np.flatnonzero(roles[gb] == r)
        groups = loc[gb[ps]]
        q, rests, sums = batch_scores(
            model,
            r,
            obs[rows],
            game.ruleset,
            codes[ps],
            groups,
            hands[rows],
        )
        order = np.lexsort((-q, groups))
        first = order[np.unique(groups[order], return_index=True)[1]]
        out[rows] = actions[ps[first]]
        if value == "score":
            best[rows] = q[first]
        else:
            wild = wild_ranks(obs[rows], game.ruleset)[groups[first]]
            rest = rest_inputs(model.rest_reads_wild, rests[first], wild, model.ruleset.deck)
            adp, wp = model.values(r, sums[first] + model.encode_rest(r, rest))
            best[rows] = np.clip(adp, -1, 1) if wp is None else wp
    return out, best
