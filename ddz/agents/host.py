"""A user's Python bot in a process of its own: ``python -m ddz.agents.host SPEC``.

``ddz eval`` and ``ddz league`` run every bot named by a file path (``path/bot.py:Name``), an
import path (``package.module:Name``) or an entry point in this host, unless the run trusts
them (``--trust-bots``): the host loads the bot and speaks the JSON-lines protocol of
``docs/PROTOCOL.md`` on its standard input and output (the referee drives it as it drives any
program, :class:`ddz.agents.external.ExternalAgent`). So the bot's process holds what the
request says its seat may see, rebuilt as an :class:`~ddz_env.infoset.InfoSet`, and nothing
else: no game, no other hand, no referee to walk up to; and a bot that never returns is killed
at the time limit.

Before each decision the bot is reset with the request's seed (``reset(seed)``), so its
results depend only on the run's seed, whatever the number of workers. What the bot prints
goes to the standard error (the protocol's output is the host's own). When the bot raises
(``SystemExit`` included) or answers something that is not an action id, the host writes the
reason as its last line of standard error and exits with :data:`FORFEIT_EXIT`: the referee
counts that as the bot's forfeit and starts the host again for its next decision.

``python -m ddz.agents.host --check SPEC`` only loads the bot: it exits 0, or prints why it
can't be loaded (one line) and exits 2; :func:`hosted` checks every bot this way first.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile

import numpy as np

from ddz.agents.base import action_id
from ddz.agents.external import ExternalAgent
from ddz.agents.loader import build_agent, exception_line, is_user_bot
from ddz.agents.sandbox import bot_environment, wrap
from ddz_env.actions import BIDDING, CALL_NAMES, PLAY
from ddz_env.cards import parse_counts, parse_ranks
from ddz_env.infoset import InfoSet
from ddz_env.rules import Ruleset, house_rule_names

#: The host's exit status when the bot fails a decision (the referee's forfeit).
FORFEIT_EXIT = 3
#: Seconds :func:`hosted` waits for ``--check`` to load a bot.
CHECK_SECONDS = 60.0


def command(spec: str, check: bool = False) -> list[str]:
    """The command line of the host of ``spec`` (this Python, this ``ddz``)."""
    return [sys.executable, "-m", "ddz.agents.host", *(["--check"] if check else []), spec]


def hosted(spec: str) -> ExternalAgent:
    """The bot ``spec`` in a host process of its own (started when it first decides), once a
    ``--check`` run has loaded it; ``ValueError`` (one line) when it can't be loaded."""
    with tempfile.TemporaryFile() as errors:  # what the bot prints: only the tail is read
        try:
            done = subprocess.run(
                wrap(command(spec, check=True)),  # the bot's code runs here too: sandboxed
                env=bot_environment(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=errors,
                timeout=CHECK_SECONDS,
            )
        except subprocess.TimeoutExpired:
            raise ValueError(f"{spec}: took over {CHECK_SECONDS:g} s to load") from None
        errors.seek(max(0, errors.seek(0, os.SEEK_END) - 2000))
        lines = errors.read().decode("utf-8", "replace").strip().splitlines()
    if done.returncode != 0:
        why = lines[-1].strip() if lines else f"the bot's host exited with code {done.returncode}"
        raise ValueError(why if why.startswith(spec) else f"{spec}: {why}"[:400])
    return ExternalAgent(shlex.join(command(spec)), name=spec)


class HostedSpec:
    """A user's bot spec to run in a host process (:func:`hosted`) wherever the run's agents are
    built (a pool's workers build them from their specs: this travels as one)."""

    def __init__(self, spec: str):
        self.spec = self.name = spec

    def __call__(self) -> ExternalAgent:
        return hosted(self.spec)

    def __repr__(self) -> str:
        return f"HostedSpec({self.spec!r})"


def isolated(spec):
    """``spec`` as the referee builds it: a user's Python bot (:func:`is_user_bot`) as a
    :class:`HostedSpec`, anything else (a built-in name, a program, an agent) as it is."""
    return HostedSpec(spec) if isinstance(spec, str) and is_user_bot(spec) else spec


def _calls(entries: list, words: bool) -> tuple[tuple[int, int], ...]:
    """The protocol's auction calls (``words``: said as words, as under the variants and in
    the two-player game; else bids 0-3) as the InfoSet's (seat, call) pairs."""
    if words:
        return tuple((int(e["seat"]), CALL_NAMES.index(e["word"])) for e in entries)
    return tuple((int(e["seat"]), int(e["bid"])) for e in entries)


def infoset_of(request: dict) -> InfoSet:
    """The :class:`InfoSet` of a protocol request (the inverse of
    :func:`ddz.agents.external.request`; rules the protocol does not send keep their defaults)."""
    rules = request["rules"]
    extra = ("game", "redeal_limit", *house_rule_names())
    game = {k: rules[k] for k in extra if k in rules}
    ruleset = Ruleset(
        bidding=rules["bidding"],
        kickers=rules["kickers"],
        base_points=rules["base_points"],
        open_hand=bool(rules.get("open_hand", False)),
        players=len(request["cards_left"]),
        **game,
    )
    deck = ruleset.deck.counts
    table = ruleset.rules.move_table
    bidding = request["phase"] == "bid"
    words = bool(ruleset.variants) or ruleset.rules.claims  # calls as words (external.request)
    landlord = request["landlord"]
    shown = request.get("open_hand")
    on_table = request["table"]
    return InfoSet(
        ruleset=ruleset,
        table=table,
        seat=int(request["seat"]),
        phase=BIDDING if bidding else PLAY,
        hand=parse_counts(request["hand"], deck),
        legal_actions=np.array([int(e["id"]) for e in request["legal"]], np.int64),
        first_bidder=int(request["first_bidder"]),
        bids=_calls(request["bids"], words),
        high_bid=int(request["high_bid"]),
        landlord=-1 if landlord is None else int(landlord),
        base=int(request["base"]),
        kitty=None if request["kitty"] is None else parse_counts(request["kitty"], deck),
        moves=tuple((int(m["seat"]), _move_id(m)) for m in request["moves"]),
        table_move=0 if on_table is None else _move_id(on_table),
        table_seat=-1 if on_table is None else int(on_table["seat"]),
        played=np.array([parse_counts(p, deck) for p in request["played"]], np.uint8),
        cards_left=np.array(request["cards_left"], np.int64),
        bombs=int(request["bombs"]),
        redeals=int(request.get("redeals", 0)),
        robs=int(request.get("robs", 0)),
        opened=bool(request.get("opened", False)),
        open_hand=None if shown is None else parse_counts(shown, deck),
        **_wild_fields(request),
    )


def _move_id(entry: dict) -> int:
    """The InfoSet's id of a move of the request: its move id, or in the wildcard game its
    play code (``code``, a decimal string)."""
    return int(entry["code"] if "code" in entry else entry["id"])


def _wild_fields(request: dict) -> dict:
    """The wildcard game's fields of the InfoSet of ``request`` (none for the other games):
    the wild rank and the codes of the legal plays (``legal_plays``, in action order)."""
    if "wild_rank" not in request:
        return {}
    wild = request["wild_rank"]
    play = request["phase"] == "play"
    codes = [int(e["code"]) for e in request["legal"] if play and int(e["id"])]
    return {
        "wild_rank": -1 if wild is None else parse_ranks(wild)[0],
        "legal_plays": np.array(codes, np.int64),
    }


class _NotAnId(Exception):
    """The bot answered something that is not an action id (the message says what)."""


def _answer(bot, request: dict) -> int:
    """The bot's action id for ``request``; :class:`_NotAnId` naming what it answered instead."""
    bot.reset(int(request["seed"]))
    answer = bot.act(infoset_of(request))
    try:
        return action_id(answer)
    except TypeError as exc:
        raise _NotAnId(str(exc)) from None


def _streams():
    """The protocol's input and output, taken from fds 0 and 1, which then point at /dev/null
    and the standard error: what the bot reads or prints can't touch the protocol."""
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin, sys.stdout = open(os.devnull), sys.stderr
    return requests, answers


def _serve(bot) -> int:
    requests, answers = _streams()
    for line in requests:
        request = json.loads(line)
        try:
            action = _answer(bot, request)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: the bot's forfeit
            if isinstance(exc, _NotAnId):
                why = str(exc)
            else:
                why = f"raised {exception_line(exc)}"
            print(f"\nthe bot {why}", file=sys.__stderr__, flush=True)
            return FORFEIT_EXIT
        answers.write(json.dumps({"id": action}).encode() + b"\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    check = args[:1] == ["--check"]
    if len(args) != 1 + check:
        print("usage: python -m ddz.agents.host [--check] SPEC", file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the referee's to handle
    if sys.path and sys.path[0] == os.getcwd():
        del sys.path[0]  # like the referee: installed modules first, then the current directory
    try:
        bot = build_agent(args[-1])
    except (ValueError, TypeError, ImportError, OSError, RuntimeError) as exc:
        print(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, file=sys.stderr)
        return 2
    return 0 if check else _serve(bot)


if __name__ == "__main__":
    sys.exit(main())
