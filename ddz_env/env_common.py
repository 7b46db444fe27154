"""Pieces shared by the environments (:mod:`ddz_env.aec`, :mod:`ddz_env.vector`,
:mod:`ddz_env.single`): option checking, reward modes, action names, error messages, text
rendering and the observation bounds. NumPy only; no gymnasium or pettingzoo import here.

Reward modes (the result of a finished game, per seat; zero on every step before the end):

=============  ==============================================================================
mode           landlord / each peasant
=============  ==============================================================================
``wp``         ±1 / ∓1: +1 to the winning side, -1 to the losing side (win percentage)
``stake``      ±2^bombs / ∓2^bombs, DouZero's ``adp`` reward: bombs counts the bombs *and
               rockets* played by anyone; spring is ignored and the bid is ignored
``log_stake``  ±(bombs + 1) / ∓(bombs + 1): DouZero's ``logadp``
``score``      the settlement of docs/RULES.md, :attr:`Game.payoffs`: the landlord gets
               ±2 × base × multiplier × base_points and each peasant ∓base × multiplier ×
               base_points (bid, bombs, rockets and spring all count; zero-sum)
=============  ==============================================================================

``wp``, ``stake`` and ``log_stake`` give each peasant the negative of the landlord's reward,
exactly as DouZero's training targets do (so they do not sum to zero); ``score`` is zero-sum.
DouZero's names ``"adp"`` and ``"logadp"`` are accepted as deprecated aliases of ``"stake"``
and ``"log_stake"`` (same rewards, a ``DeprecationWarning``): "ADP" names the arena's score,
the average difference in points, not a reward.
"""

from __future__ import annotations

import warnings
from dataclasses import fields
from typing import Any

import numpy as np

from . import actions, moves
from .cards import format_counts
from .encoding import encoding_of
from .game import BIDDING, OVER, Game
from .observation import infostate_layout, obs_size, obs_slices
from .rules import Ruleset

REWARD_MODES = ("wp", "stake", "log_stake", "score")
#: Deprecated names of reward modes (DouZero's), each giving the same rewards as its mode.
REWARD_ALIASES = {"adp": "stake", "logadp": "log_stake"}
RULESET_OPTIONS = tuple(f.name for f in fields(Ruleset))


def ruleset_from_options(
    options: dict, env_options: tuple[str, ...], owner: str = "the environment"
) -> Ruleset:
    """The :class:`Ruleset` named by ``options`` (every Ruleset field, or ``ruleset=Ruleset(...)``).

    Unknown keys are a ``TypeError`` worded as Python words it for a bad keyword argument
    (``"DouDizhuEnv() got an unexpected keyword argument 'frameskip'"``, so callers that retry
    without an optional keyword, as TorchRL's ``GymEnv`` does, recognise it), followed by every
    option the environment knows, including the environment's own ``env_options``. A bad value
    of a known option is a ``ValueError``.
    """
    options = dict(options)
    ruleset = options.pop("ruleset", None)
    unknown = sorted(set(options) - set(RULESET_OPTIONS))
    if unknown:
        known = sorted((*RULESET_OPTIONS, "ruleset", *env_options))
        words = (
            f"an unexpected keyword argument {unknown[0]!r}"
            if len(unknown) == 1
            else "unexpected keyword arguments " + ", ".join(map(repr, unknown))
        )
        raise TypeError(f"{owner}() got {words}; known options: {', '.join(known)}")
    if ruleset is not None:
        if not isinstance(ruleset, Ruleset):
            raise ValueError(f"ruleset must be a ddz_env.Ruleset, not {type(ruleset).__name__}")
        if options:
            raise ValueError(
                f"give either ruleset=... or ruleset fields ({', '.join(sorted(options))}), not both"
            )
        return ruleset
    return Ruleset(**options)


def check_reward_mode(reward: str) -> str:
    """``reward`` as one of :data:`REWARD_MODES`; a deprecated alias (:data:`REWARD_ALIASES`)
    gives its mode with a ``DeprecationWarning``; anything else is a ``ValueError``."""
    if isinstance(reward, str) and reward in REWARD_ALIASES:
        mode = REWARD_ALIASES[reward]
        warnings.warn(
            f"reward={reward!r} is deprecated: use reward={mode!r} (the same rewards)",
            DeprecationWarning,
            stacklevel=3,
        )
        return mode
    if reward not in REWARD_MODES:
        raise ValueError(
            f"reward must be one of {', '.join(map(repr, REWARD_MODES))}, not {reward!r}"
        )
    return reward


def check_render_mode(
    render_mode: str | None, modes: tuple[str, ...] = ("ansi", "human")
) -> str | None:
    if render_mode is not None and render_mode not in modes:
        raise ValueError(
            f"render_mode must be None or one of {', '.join(map(repr, modes))}, not {render_mode!r}"
        )
    return render_mode


def seat_rewards(game: Game, mode: str, games=None) -> np.ndarray:
    """(n, P) float64 reward of each seat (P = 3, or 4 players) in finished ``games`` under
    ``mode`` (see module doc; the deprecated aliases give the same rewards)."""
    mode = REWARD_ALIASES.get(mode, mode)
    idx = np.arange(game.batch_size) if games is None else np.asarray(games, dtype=np.int64)
    if mode == "score":
        return game.payoffs[idx].astype(np.float64)
    landlord = game.landlord[idx].astype(np.int64)
    sign = np.where(game.winner[idx] == landlord, 1.0, -1.0)
    bombs = game.bombs[idx].astype(np.float64)
    if mode == "wp":
        value = sign
    elif mode == "stake":
        value = sign * 2.0**bombs
    elif mode == "log_stake":
        value = sign * (bombs + 1.0)
    else:
        raise ValueError(f"unknown reward mode {mode!r}")
    out = np.repeat(-value[:, None], game.num_players, axis=1)
    out[np.arange(len(idx)), landlord] = value
    return out


def observation_high(ruleset: Ruleset | None = None) -> np.ndarray:
    """Upper bounds of the observation vector under ``ruleset`` (default: classic): 1
    everywhere except ``log2_multiplier`` ((bombs + rockets + spring) / 10, at most 1.5; the
    robs, up to 3, and the open hand add up to 0.4 more)."""
    ruleset = Ruleset() if ruleset is None else ruleset
    high = np.ones(obs_size(ruleset), np.float32)
    extra = ruleset.rules.extra_doublings
    high[obs_slices(ruleset)["log2_multiplier"]] = 1.5 + extra / 10
    return high


def infostate_high(ruleset: Ruleset | None = None) -> np.ndarray:
    """Upper bounds of the information state (:func:`ddz_env.observation.information_state`)
    under ``ruleset``: 1 everywhere except ``redeals`` (the redeal limit; unbounded without one)
    and ``actions`` (action id + 1: the action count, unbounded where the actions are play codes,
    the wildcard game's)."""
    ruleset = Ruleset() if ruleset is None else ruleset
    layout = infostate_layout(ruleset)
    high = np.ones(sum(size for _, size in layout), np.float32)
    limit = ruleset.redeal_limit
    if encoding_of(ruleset).lists_plays:
        most = np.inf
    else:
        most = float(actions.num_actions(len(moves.move_table(ruleset).counts), ruleset))
    bounds = {"redeals": np.inf if limit is None else float(limit), "actions": most}
    start = 0
    for name, size in layout:
        if name in bounds:
            high[start : start + size] = bounds[name]
        start += size
    return high


def action_name(game: Game, action: int) -> str:
    """:func:`ddz_env.moves.action_name` of ``action`` under ``game``'s ruleset."""
    return moves.action_name(action, game.ruleset)


def action_id(action) -> int | None:
    """``action`` as an ``int`` if it is an integer (Python or NumPy int, or an integer array
    holding one value), else ``None`` (floats, strings, bools and the like are not actions)."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        return int(action.reshape(-1)[0])
    return None


def end_info(game: Game, b: int, per_seat: np.ndarray) -> dict[str, Any]:
    """The end-of-game info of game ``b`` (see :data:`END_INFO_KEYS`), numbers only."""
    return {
        "payoffs": game.payoffs[b].astype(np.float64),
        "rewards": np.asarray(per_seat, np.float64).copy(),
        "winner": int(game.winner[b]),
        "landlord": int(game.landlord[b]),
        "bombs": int(game.bombs[b]),
        "spring": int(game.spring[b]),
        "multiplier": int(game.multiplier[b]),
    }


END_INFO_KEYS = ("payoffs", "rewards", "winner", "landlord", "bombs", "spring", "multiplier")


def illegal_message(game: Game, b: int, action, who: str) -> str | None:
    """Why ``action`` is illegal for ``who`` in game ``b``; ``None`` when it is legal.

    An action must be an integer (Python or NumPy, or a 0-d/one-element integer array); a
    float, string or bool is never read as one (``2.9`` and ``"2"`` are not action 2).
    """
    a = action_id(action)
    if a is None:
        return f"{who} gave {action!r}, which is not an action id (an integer 0..{game.num_actions - 1})"
    if game.is_legal(np.full(game.batch_size, a))[b]:
        return None
    return f"illegal action {a} ({game.move_name(a, b)}) by {who}: {game.explain_illegal(b, a)}"


def render_text(game: Game, b: int = 0, names=None) -> str:
    """A plain-text view of game ``b`` (all hands shown: this is an observer's view); ``names``
    of the seats default to ``player_0`` … ."""
    P = game.num_players
    names = tuple(f"player_{k}" for k in range(P)) if names is None else names
    lines = []
    landlord = int(game.landlord[b])
    phase = int(game.phase[b])
    header = {BIDDING: "auction", OVER: "game over"}.get(phase, "play")
    lines.append(f"Dou Dizhu — {header}")
    for seat in range(P):
        role = f" ({game.role_names[(seat - landlord) % P]})" if landlord >= 0 else ""
        marker = "→ " if phase != OVER and seat == game.current_player[b] else "  "
        hand = game.hands[b, seat]
        size = int(hand.sum())
        lines.append(
            f"{marker}{names[seat]}{role}, {size} card{'s' * (size != 1)}: {format_counts(hand) or '-'}"
        )
    if phase == BIDDING:
        calls = ["none" if c < 0 else actions.CALL_NAMES[c] for c in game.bids[b]]
        spoken = ", ".join(f"{names[s]} {calls[s]}" for s in range(P))
        lines.append(
            f"first bidder {names[game.first_bidder[b]]}; {spoken}; high bid {int(game.high_bid[b])}"
        )
        if game.landlord[b] >= 0:
            lines.append(f"{names[game.landlord[b]]} is the landlord and may open the hand")
    else:
        robs = f"   robs {int(game.robs[b])}" if game.ruleset.rules.claims else ""
        opened = "   hand opened" if game.opened[b] else ""
        lines.append(
            f"kitty: {format_counts(game.kitty[b])}   base {int(game.base[b])}   "
            f"bombs {int(game.bombs[b])}{robs}{opened}"
        )
        table = int(game.table_move[b])
        if table and phase != OVER:
            lines.append(f"to beat: {game.move_name(table, b)} from {names[game.table_player[b]]}")
        recent = game.moves_played(b)[-6:]
        if recent:
            lines.append(
                "last moves: "
                + " | ".join(f"{names[s]} {game.move_cards(a, b)}" for s, a in recent)
            )
    if phase == OVER:
        winner = int(game.winner[b])
        side = "the landlord wins" if winner == landlord else "the peasants win"
        spring = ", spring" if game.spring[b] else ""
        payoffs = ", ".join(f"{names[s]} {game.payoffs[b, s]:+g}" for s in range(P))
        lines.append(
            f"{names[winner]} went out: {side} (multiplier {int(game.multiplier[b])}{spring}); {payoffs}"
        )
    return "\n".join(lines)
