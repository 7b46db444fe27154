"""The saved forms of games: one game as one line of text (``Game.to_text``,
``Game.from_text``) and a batch as a dict of arrays (``Game.to_arrays``, ``Game.from_arrays``);
loading replays every game's actions on its deal (:func:`replay`) and checks the result (see
:mod:`ddz_env.state`). The functions that build games take the engine class (``cls``), so this
module sits below ``ddz_env.game``, which imports it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from .actions import IllegalAction
from .codes import code_key, decode_deal, encode_deal
from .rules import Ruleset, house_rule_games, house_rule_names

FORMAT_VERSION = 1
TEXT_TAG = "ddz-state"


# ---------------------------------------------------------------------------- text form
def _rules_text(ruleset: Ruleset) -> str:
    """``bidding,redeal_limit,kickers,base_points``, then the fields the rules object adds
    (``ruleset.rules.text_extras()``: ``open``, ``players=4``, ``game=NAME``)."""
    limit = "none" if ruleset.redeal_limit is None else str(ruleset.redeal_limit)
    text = f"{ruleset.bidding},{limit},{ruleset.kickers},{ruleset.base_points}"
    return ",".join([text, *ruleset.rules.text_extras()])


#: the optional fields of a rules text that every game may write, in the order
#: :func:`_rules_text` writes them; the games' house rules follow (``NAME=VALUE``)
_RULES_EXTRAS = (("open", "open_hand"), ("players=", "players"), ("game=", "game"))


def _parse_rules(text: str) -> Ruleset:
    parts = text.split(",")
    bidding, limit, kickers, points, *extras = parts + [""] * (4 - len(parts))
    options = _parse_extras(extras)
    if len(parts) < 4 or options is None:
        house = ", ".join(house_rule_names())
        raise ValueError(
            "the ruleset has 4 fields: bidding,redeal_limit,kickers,base_points "
            "(and open for the open hand, players=N for another number of players, game=NAME "
            f"for another game, then a game's house rules as NAME=VALUE: {house})"
        )
    if not (limit == "none" or limit.isdigit()) or not points.isdigit():
        raise ValueError(f"bad ruleset {text!r}")
    return Ruleset(
        bidding=bidding,
        redeal_limit=None if limit == "none" else int(limit),
        kickers=kickers,
        base_points=int(points),
        **options,
    )


def _parse_extras(words: list[str]) -> dict | None:
    """The options of a rules text's fields after the first four: those of
    :data:`_RULES_EXTRAS` in their order, then the house rules (``NAME=VALUE``, a number
    where the rule's values are numbers), each once; ``None`` for any other field."""
    options: dict = {}
    at = 0
    # each house rule's name → whether its values are numbers
    house = {name: not house_rule_games(name)[0][1].words for name in house_rule_names()}
    for word in words:
        while at < len(_RULES_EXTRAS) and not word.startswith(_RULES_EXTRAS[at][0]):
            at += 1
        if at < len(_RULES_EXTRAS):
            if (word == "open") != (at == 0):
                return None
            prefix, name = _RULES_EXTRAS[at]
            value = word[len(prefix) :]
            options[name] = True if name == "open_hand" else value
            if name == "players":
                options[name] = int(value) if value.isdigit() else value
            at += 1
            continue
        name, _, value = word.partition("=")
        if name not in house or name in options or not value:
            return None
        options[name] = int(value) if house[name] and value.isdigit() else value
    return options


def to_text(game, b: int = 0) -> str:
    """Game ``b`` (an index already checked) as one line of text; ``Game.from_text`` reads
    it back exactly."""
    n = int(game.history_len[b])
    acts = ",".join(str(a) for a in game.history_action[b, :n].tolist())
    return ";".join(
        (
            f"{TEXT_TAG} {FORMAT_VERSION}",
            f"rules={_rules_text(game.ruleset)}",
            f"deal={game.deal_code(b)}",
            f"coded={int(game.codes[b] is not None)}",
            f"redeals={int(game.redeals[b])}",
            f"key={int(game.deal_key[b]):016x}",
            f"stream={game.deal_stream:016x}",
            f"actions={acts}",
        )
    )


_TEXT_KEYS = ("rules", "deal", "coded", "redeals", "key", "stream", "actions")
#: a whole number of the text form: ASCII digits, at most 10 (``str.isdigit`` takes "²")
_DIGITS = re.compile("[0-9]{1,10}")
#: an action of the text form: at most 18 digits (the wildcard game's play codes are 17)
_ACTION_DIGITS = re.compile("[0-9]{1,18}")


def _check_redeals(redeals, ruleset: Ruleset) -> None:
    """``ValueError`` unless every one of ``redeals`` is a count of redeals the rules allow:
    0 to the redeal limit (below 2**31 without one)."""
    redeals = np.asarray(redeals)
    limit = ruleset.redeal_limit
    most = 2**31 - 1 if limit is None else limit
    if redeals.size and not (0 <= redeals.min() and redeals.max() <= most):
        raise ValueError(f"the redeals of a game state must be from 0 to {most}")


def _parse_text(text: str) -> dict:
    if not isinstance(text, str):
        raise TypeError("a game state text is a str")
    parts = text.strip().split(";")
    if parts[0].split(" ")[0] != TEXT_TAG:
        raise ValueError(f"not a game state: it does not start with {TEXT_TAG!r}")
    if parts[0] != f"{TEXT_TAG} {FORMAT_VERSION}":
        raise ValueError(f"unknown game state version {parts[0][len(TEXT_TAG) :].strip()!r}")
    fields = {}
    for part in parts[1:]:
        key, sep, value = part.partition("=")
        if not sep or key not in _TEXT_KEYS or key in fields:
            raise ValueError(f"bad field {part[:40]!r} in the game state")
        fields[key] = value
    missing = [k for k in _TEXT_KEYS if k not in fields]
    if missing:
        raise ValueError(f"the game state lacks {', '.join(missing)}")
    ruleset = _parse_rules(fields["rules"])
    owner, first = decode_deal(fields["deal"], ruleset=ruleset)
    if fields["coded"] not in ("0", "1") or not _DIGITS.fullmatch(fields["redeals"]):
        raise ValueError("bad coded or redeals field in the game state")
    redeals = int(fields["redeals"])
    _check_redeals(redeals, ruleset)
    room = ruleset.rules.history_size
    given = fields["actions"].count(",") + 1 if fields["actions"] else 0
    if given > room:  # counted before the actions are read
        raise ValueError(f"the game state has {given} actions, more than {room}")
    try:
        key, stream = int(fields["key"], 16), int(fields["stream"], 16)
        acts = fields["actions"].split(",") if fields["actions"] else []
        if not all(_ACTION_DIGITS.fullmatch(a) for a in acts):
            raise ValueError
        acts = [int(a) for a in acts]
    except ValueError:
        raise ValueError("bad key, stream or actions field in the game state") from None
    if not (0 <= key < 2**64 and 0 <= stream < 2**64):
        raise ValueError("the deal key and the stream are 64-bit hexadecimal numbers")
    return dict(
        ruleset=ruleset,
        owner=owner,
        first=first,
        code=encode_deal(owner, first, ruleset=ruleset) if fields["coded"] == "1" else None,
        redeals=redeals,
        key=key,
        stream=stream,
        actions=acts,
    )


def from_text(text, cls):
    """The game of a line of ``to_text`` (a batch of one), or of a list of lines (a batch; the
    stream of future deals is the first line's), a ``cls`` (``Game``). ``ValueError`` if a line
    is not a valid state."""
    texts = [text] if isinstance(text, str) else list(text)
    if not texts:
        raise ValueError("no game state given")
    parsed = [_parse_text(t) for t in texts]
    ruleset = parsed[0]["ruleset"]
    if any(p["ruleset"] != ruleset for p in parsed):
        raise ValueError("the game states of one batch must share a ruleset")
    B = len(parsed)
    hist = np.full((B, ruleset.rules.history_size), -1, np.int64)
    for b, p in enumerate(parsed):
        hist[b, : len(p["actions"])] = p["actions"]
    return _replay(
        cls,
        ruleset,
        owner=np.stack([p["owner"] for p in parsed]),
        first=np.array([p["first"] for p in parsed], np.int8),
        redeals=np.array([p["redeals"] for p in parsed], np.int64),
        keys=np.array([p["key"] for p in parsed], np.uint64),
        codes=[p["code"] for p in parsed],
        history=hist,
        lengths=np.array([len(p["actions"]) for p in parsed], np.int64),
        stream=parsed[0]["stream"],
    )


def replay(game, visit=None):
    """``game``'s games rebuilt from their deals and the actions of their history, each action
    stepped with ``Game.step``; ``visit(rebuilt, t, idx)``, when given, is called before the
    ``t``-th action (from 0, the auction's included) is stepped in the games ``idx`` that have
    one, so a caller can read every position the games went through (e.g. what a policy would
    have played there). The result equals ``game`` (its deals, actions and state)."""
    return _replay(
        type(game),
        game.ruleset,
        owner=game.owner.copy(),
        first=game.first_bidder.copy(),
        redeals=game.redeals.copy(),
        keys=game.deal_key.copy(),
        codes=list(game.codes),
        history=game.history_action.astype(np.int64),
        lengths=game.history_len.astype(np.int64),
        stream=game.deal_stream,
        visit=visit,
    )


def _replay(cls, ruleset, owner, first, redeals, keys, codes, history, lengths, stream, visit=None):
    """Rebuild games from their deals and actions: each action is stepped with ``Game.step``
    (the games still playing at that point of the history), which checks it is legal;
    ``visit`` as in :func:`replay`."""
    B = len(owner)
    game = cls(B, ruleset, seed=0)  # its state is then overwritten (the deal is wasted)
    game.start_deals(owner, first, keys=keys, codes=codes, redeals=redeals)
    game.deal_stream = stream
    for t in range(int(lengths.max()) if B else 0):
        idx = np.flatnonzero(lengths > t)
        if visit is not None:
            visit(game, t, idx)
        over = game.done[idx]
        if over.any():
            raise ValueError(f"game {int(idx[over][0])}: actions continue after the game is over")
        try:
            game.step(history[idx, t], games=idx)
        except IllegalAction as err:
            raise ValueError(
                f"game {err.game}: action {err.action} (number {t + 1}) is illegal: {err.reason}"
            ) from None
        bad = game.history_len[idx] != t + 1
        if bad.any():
            raise ValueError(
                f"game {int(idx[bad][0])}: its actions redeal, which starts a new deal"
            )
    return game


# ---------------------------------------------------------------------------- arrays
def to_arrays(game, games=None) -> dict[str, np.ndarray]:
    """The state of all games (or of ``games``) as a dict of NumPy arrays (copies)."""
    src = game.clone(games)
    out = {name: getattr(src, name) for name in src.state_fields}
    out["codes"] = np.array(["" if c is None else c for c in src.codes], dtype="U80")
    out["stream"] = np.array([src.deal_stream], np.uint64)
    out["version"] = np.array(FORMAT_VERSION, np.int64)
    out["ruleset"] = np.array(_rules_text(game.ruleset))
    return out


def _field(arrays: Mapping, name: str) -> np.ndarray:
    if name not in arrays:
        raise ValueError(f"the game state arrays lack {name!r}")
    return np.asarray(arrays[name])


def from_arrays(arrays: Mapping, cls):
    """The games of ``to_arrays``, a ``cls`` (``Game``). Each game's actions are replayed on its deal and the result
    must equal the given arrays, else ``ValueError`` naming the array and the game."""
    if not isinstance(arrays, Mapping):
        raise TypeError("game state arrays are a dict of arrays (from Game.to_arrays)")
    version = _field(arrays, "version")
    if version.shape != () or version.dtype.kind not in "iu" or int(version) != FORMAT_VERSION:
        raise ValueError(f"unknown game state version {version!r}; this is version 1")
    rules = _field(arrays, "ruleset")
    if rules.shape != () or rules.dtype.kind != "U":
        raise ValueError("'ruleset' must be a string")
    ruleset = _parse_rules(str(rules))
    phase = _field(arrays, "phase")
    if phase.ndim != 1 or len(phase) < 1:
        raise ValueError("'phase' must be a 1-D array with one entry per game")
    B = len(phase)
    ref = cls(1, ruleset, seed=0)  # the fields' shapes, checked before any array of B games
    given = {}
    for name in ref.state_fields:
        if name in ("robs", "opened") and name not in arrays:  # saved before the variants
            arrays = {**arrays, name: np.zeros(B, np.int8)}
        arr = _field(arrays, name)
        want = getattr(ref, name)
        shape = (B, *want.shape[1:])
        if arr.shape != shape:
            raise ValueError(f"{name!r} has shape {arr.shape}, expected {shape}")
        if arr.dtype != want.dtype:
            raise ValueError(f"{name!r} has dtype {arr.dtype}, expected {want.dtype}")
        given[name] = arr
    _check_redeals(given["redeals"], ruleset)
    codes = _field(arrays, "codes")
    stream = _field(arrays, "stream")
    if codes.shape != (B,) or codes.dtype.kind != "U":
        raise ValueError(f"'codes' must be {B} strings")
    if stream.shape != (1,) or stream.dtype != np.uint64:
        raise ValueError("'stream' must be one uint64")
    owner = given["owner"]
    P, deck = ruleset.players, ruleset.deck
    sizes = deck.piles
    counts = (owner[:, :, None] == np.arange(len(sizes))).sum(axis=1)
    bad = ~(counts == sizes).all(axis=1)
    if bad.any():
        shape = "/".join(map(str, sizes))
        raise ValueError(f"game {int(np.argmax(bad))}: 'owner' is not a deal ({shape} cards)")
    first = given["first_bidder"]
    if ((first < 0) | (first > P - 1)).any():
        raise ValueError(f"'first_bidder' must be a seat 0 to {P - 1}")
    lengths = given["history_len"].astype(np.int64)
    room = ruleset.rules.history_size
    if ((lengths < 0) | (lengths > room)).any():
        raise ValueError(f"'history_len' must be in 0..{room}")
    code_list = [str(c) or None for c in codes]
    for b, code in enumerate(code_list):
        if code is not None:
            o, f = decode_deal(code, ruleset=ruleset)
            if not np.array_equal(o, owner[b]) or f != first[b]:
                raise ValueError(f"game {b}: its code is not the code of its deal")
            if given["deal_key"][b] != np.uint64(code_key(code)):
                raise ValueError(f"game {b}: its deal key is not the key of its code")
    game = _replay(
        cls,
        ruleset,
        owner=owner,
        first=first,
        redeals=given["redeals"],
        keys=given["deal_key"],
        codes=code_list,
        history=given["history_action"],
        lengths=lengths,
        stream=int(stream[0]),
    )
    for name in game.state_fields:
        diff = getattr(game, name) != given[name]
        if diff.any():
            b = int(np.flatnonzero(diff.reshape(B, -1).any(axis=1))[0])
            raise ValueError(f"game {b}: {name!r} does not match its deal and actions")
    return game
