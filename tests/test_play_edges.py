"""The terminal game at its edges: signals while a bot decides, closed or endless input, long
lines, terminals that can't show the language, and what the closing lines say."""

from __future__ import annotations

import os
import signal

import pytest

from tests.play_harness import CODE, run_lines


@pytest.mark.parametrize(
    "name, status, word", [("SIGTERM", 143, "Terminated"), ("SIGHUP", 129, "Hangup")]
)
def test_a_signal_while_a_bot_decides_ends_the_game(monkeypatch, name, status, word):
    """The signal is not a bot failure: no random move, the game ends with 128 + its number."""
    from ddz.agents import base

    class Signalled(base.Agent):
        name = "signalled"

        def bid(self, info):
            os.kill(os.getpid(), getattr(signal, name))
            return 0

        def play(self, info):
            return 0

    monkeypatch.setitem(base._REGISTRY, "normal", lambda **kw: Signalled())
    rc, out = run_lines(["--level", "normal", "--code", CODE, "--fast"], ["pass", "quit"])
    assert rc == status
    assert "bot failed" not in out and "random legal move" not in out
    assert out.endswith(f"{word}. Bye. (Nothing was saved for this hand.)\n")
