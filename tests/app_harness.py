"""Driving the full-screen table (:class:`ddz.play.tui.app.DdzApp`) in Textual's test
harness: build the app, run a script against it, wait for a question, answer every question by
keys. Imported by the tests that have Textual (they skip without it)."""

from __future__ import annotations

import asyncio

from ddz.play.tui.app import DdzApp
from ddz_env.rules import Ruleset


def make_app(rules=None, **options) -> DdzApp:
    """The app at Normal, without statistics or pauses, under ``rules`` (default the classic
    game); ``options`` as ``ddz play`` gives them."""
    color = options.pop("color", True)
    opts = {"level": "normal", "stats": False, "rules": rules or Ruleset(), "pause": 0.0}
    opts.update(options)
    return DdzApp(opts, color=color)


def drive(app: DdzApp, script, size=(100, 30)):
    """Run ``script(pilot, app)`` against the app in Textual's test harness."""

    async def main():
        async with app.run_test(size=size) as pilot:
            await script(pilot, app)

    asyncio.run(main())


async def until(pilot, app: DdzApp, *kinds: str, limit: float = 60.0) -> str:
    """Wait until the table asks one of ``kinds`` of question."""
    for _ in range(int(limit / 0.02)):
        if app.kind in kinds:
            kind = app.kind
            await pilot.pause()  # the buttons of the question shown and laid out before a click
            await pilot.wait_for_scheduled_animations()
            return kind
        await pilot.pause(0.02)
    raise AssertionError(f"still {app.kind!r}, waiting for {kinds}")


async def by_keys(pilot, app: DdzApp) -> None:
    """Answer each question with keys only: bid 3, take each word, play the hint."""
    while True:
        kind = await until(pilot, app, "bid", "word", "play", "result")
        if kind == "result":
            return
        if kind == "bid":
            await pilot.press("3" if not app.query_one("#bid3").disabled else "p")
        elif kind == "word":
            await pilot.press("y")
        else:
            await pilot.press("h", "enter")
        await pilot.pause(0.02)
