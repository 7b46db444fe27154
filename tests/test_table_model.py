"""The game at the table (:mod:`ddz.play.table_model`) driven by method calls, without a
front-end: a hand to its result, the events in their order, the same hands from the same seed,
undo, the hint cycle, and the choices the rules refuse, with the reason."""

from __future__ import annotations

import json

import pytest

from ddz.play import i18n
from ddz.play.session import hint_order, load_bots
from ddz.play.table_model import (
    Asked,
    BotFailed,
    Called,
    Dealt,
    Decided,
    Hinted,
    LandlordMade,
    Played,
    Recorded,
    Refused,
    Result,
    Table,
    Thinking,
    Undone,
)
from ddz_env.cards import parse_counts
from ddz_env.infoset import infoset
from ddz_env.rules import Ruleset
from tests.play_harness import CODE

#: A deal of the wildcard game: seat 0 bids first; after bidding 3, with the queens wild, its
#: 3 3 3 Q read as a soft bomb of 3s or a trio of 3s with a kicker.
WILD_CODE = "88R7-7R6F-VZ3C-DPFT-33VT-1FD"
#: With seed 0 the first deal's auction reaches you after Right has bid 1.
BID_TAKEN_SEED = 0


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    i18n.set_language("en")


def table_of(rules=None, **options) -> tuple[Table, list]:
    """A table of Normal bots, and the list its events are put in."""
    rules = rules or Ruleset()
    bots, level = load_bots("normal", [], rules)
    options = {"stats_on": False, **options}
    table = Table(rules, bots, level, hint_order, **options)
    events: list = []
    table.watch(events.append)
    return table, events


def play_out(table: Table) -> None:
    """Bid 3 (or pass once the bid is taken), take each word, play each first hint, until the
    hand is over."""
    table.advance()
    while table.asked.kind != "result":
        asked = table.asked
        if asked.kind == "bid":
            table.bid(3) if 3 in asked.bids else table.pass_()
        elif asked.kind == "word":
            table.pass_()
        else:
            table.play_move(table.hint().move)
        table.advance()


def test_a_hand_played_by_method_calls_reaches_its_result():
    table, events = table_of()
    table.start(CODE)
    assert events == [Dealt(CODE, False, 1)]
    table.advance()
    assert events[-1] == Asked(table.asked) and table.asked.kind == "bid"
    assert table.asked.bids == (1, 2, 3)
    play_out(table)
    kinds = [type(e) for e in events]
    assert kinds[:4] == [Dealt, Asked, Called, LandlordMade]
    assert events[2] == Called(0, 3)
    lord = events[3]
    assert (lord.seat, lord.base, lord.forced, lord.wild) == (0, 3, False, -1)
    assert sorted(lord.kitty) == sorted(table.model.kitty_ids)
    assert kinds[-3:] == [Result, Recorded, Asked] or kinds[-2:] == [Result, Asked]
    result = next(e for e in events if isinstance(e, Result))
    g = table.game
    assert result.points == int(g.payoffs[0][0]) and result.winner == int(g.winner[0])
    assert table.model.over() and table.asked.kind == "result"
    # each bot's move: thinking, decided, then its play, in that order
    for k, event in enumerate(events):
        if isinstance(event, Played) and event.seat != 0:
            assert type(events[k - 1]) is Decided and events[k - 1].seat == event.seat
            assert type(events[k - 2]) in (Thinking, BotFailed)
    last = [e for e in events if isinstance(e, Played)][-1]
    assert last.last and last.left == 0


def test_the_same_seed_plays_the_same_hands():
    runs = []
    for _ in range(2):
        table, events = table_of(seed=42)
        table.start()
        play_out(table)
        table.new_deal()
        play_out(table)
        runs.append([e for e in events if not isinstance(e, Asked)])
    assert runs[0] == runs[1]
    assert sum(isinstance(e, Dealt) for e in runs[0]) == 2


def test_replay_deals_the_hand_again_uncounted():
    table, events = table_of()
    table.start(CODE)
    play_out(table)
    table.replay()
    assert events[-1] == Dealt(CODE, False, 2) and not table.counted
    with pytest.raises(ValueError):
        table.replay()  # only once the hand is over


def test_undo_takes_back_your_play_and_the_bots_replies():
    table, events = table_of(undo=True)
    table.start(CODE)
    table.advance()
    with pytest.raises(Refused, match="nothing to undo yet"):
        table.undo()
    table.bid(3)
    table.advance()
    table.play(counts=parse_counts("3"))
    table.advance()
    assert len(table.model.cards[0]) == 19
    mark = len(events)
    table.undo()
    assert [type(e) for e in events[mark:]] == [Undone, Asked]
    assert len(table.model.cards[0]) == 20 and table.model.undos_used == 1
    assert table.asked.kind == "play" and table.asked.info.leading
    table.play(counts=parse_counts("3"))  # the bots answer the same position the same way
    replies = [e for e in events[mark:] if isinstance(e, Played)]
    table.advance()
    again = [e for e in events[mark:] if isinstance(e, Played)]
    first = [e for e in events[:mark] if isinstance(e, Played)]
    assert replies == first[:1] and again == first


def test_the_hint_cycle_goes_round_the_hint_order():
    table, events = table_of()
    table.start(CODE)
    table.advance()
    table.bid(3)
    table.advance()
    order = hint_order(infoset(table.game, 0, 0))
    assert table.plays() == order and order[-1] != 0  # you lead: no pass
    shown = [table.hint() for _ in range(len(order) + 1)]
    assert [h.move for h in shown] == [*order, order[0]]
    assert [h.k for h in shown] == [*range(1, len(order) + 1), 1]
    assert all(h.n == len(order) for h in shown)
    assert events[-len(shown) :] == shown and all(isinstance(h, Hinted) for h in shown)
    assert table.model.hints_used == 1  # the hints of one decision count once
    table.play_move(shown[0].move)
    table.advance()
    assert table.hint().k == 1  # a new turn starts the cycle again
    table.hint()
    assert table.model.hints_used == 2


def test_choices_the_rules_refuse_say_why():
    table, _events = table_of(seed=BID_TAKEN_SEED)
    table.start()
    table.advance()
    assert table.asked.kind == "bid" and table.asked.high_bid == 1
    with pytest.raises(Refused, match=r"a bid must be higher than 1, the highest so far"):
        table.bid(1)
    with pytest.raises(Refused, match="is not a bid"):
        table.bid(4)
    with pytest.raises(Refused, match="undo is off in this game"):
        table.undo()
    with pytest.raises(ValueError):
        table.claim()  # a word of the rob-the-landlord auction: not asked here
    with pytest.raises(ValueError):
        table.play(counts=parse_counts("3"))  # not your turn to play
    table, _events = table_of()
    table.start(CODE)
    table.advance()
    table.bid(3)
    table.advance()
    with pytest.raises(Refused, match="you can't pass when you lead"):
        table.pass_()
    with pytest.raises(Refused, match="not a combination"):
        table.play(counts=parse_counts("3 4"))
    with pytest.raises(Refused, match="you don't have"):
        table.play(counts=parse_counts("8"))
    hand = table.model.cards[0]
    assert len(hand) == 20 and table.asked.kind == "play"  # nothing was played
    table.play([hand[0]])  # a card of your hand, by its id
    assert hand[0] not in table.model.cards[0] and table.model.last_cards[0] == [hand[0]]


def test_the_rob_auction_and_the_open_hand_are_method_calls():
    table, events = table_of(Ruleset(bidding="rob", open_hand=True), seed=3)
    table.start()
    words = set()
    table.advance()
    while table.asked.kind != "play" and table.asked.kind != "result":
        asked = table.asked
        words.add(asked.word)
        call = {"claim": table.claim, "rob": table.rob, "open": table.open_hand}[asked.word]
        with pytest.raises(Refused, match="is not an answer here"):
            (table.rob if asked.word != "rob" else table.claim)()
        call()
        table.advance()
    assert words and any(isinstance(e, LandlordMade) for e in events)


def test_a_hand_left_after_the_bidding_is_recorded_as_a_loss(tmp_path):
    table, events = table_of(stats_on=True)
    table.start()  # a new shuffle: counted
    play_to_your_play(table)
    points = table.stake_lost()
    assert table.leave_counts() and points < 0
    table.new_deal()  # the hand in play is left first
    bye, note = table.abandon()  # a new hand: nothing left yet
    assert "You left the hand" not in note
    saved = json.loads((tmp_path / "ddz" / "stats.json").read_text())
    assert saved["games"] == 1 and saved["points"] == points
    assert sum(isinstance(e, Dealt) for e in events) == 2


def test_quit_leaves_the_hand_in_play_and_asks_nothing_more(tmp_path):
    table, _events = table_of(stats_on=True)
    table.start()
    play_to_your_play(table)
    assert table.quit().startswith("Bye. You left the hand, so it counts as a loss:")
    assert table.asked is None
    with pytest.raises(ValueError):
        table.pass_()
    saved = json.loads((tmp_path / "ddz" / "stats.json").read_text())
    assert saved["games"] == 1 and saved["points"] < 0
    table, _events = table_of()
    table.start(CODE)
    play_out(table)
    assert table.quit() == ""  # after the result: nothing more to say


def play_to_your_play(table: Table) -> None:
    table.advance()
    while table.asked.kind in ("bid", "word"):
        asked = table.asked
        table.bid(3) if 3 in asked.bids else table.pass_()
        table.advance()


def test_a_finished_counted_hand_is_recorded():
    table, events = table_of(stats_on=True)
    table.start()
    play_out(table)
    recorded = [e for e in events if isinstance(e, Recorded)]
    assert len(recorded) == 1 and recorded[0].counted and recorded[0].stats is not None
    assert recorded[0].stats.games == 1
    table.replay()
    play_out(table)
    assert [e for e in events if isinstance(e, Recorded)][-1] == Recorded(False)


def test_the_wildcard_game_plays_by_readings():
    table, events = table_of(Ruleset(game="wild"))
    table.start(WILD_CODE)
    table.advance()
    table.bid(3)
    table.advance()
    assert any(isinstance(e, LandlordMade) and e.wild >= 0 for e in events)
    counts = parse_counts("333q")  # the queens are wild: a soft bomb, or a trio and a kicker
    verdict, readings = table.judge(counts)
    assert verdict.ok and len(readings) == 2
    with pytest.raises(Refused, match="2 readings of these cards"):
        table.play(counts=counts)
    table.play(counts=counts, reading=readings[1])
    played = [e for e in events if isinstance(e, Played)][-1]
    assert (played.seat, played.move, len(played.cards)) == (0, readings[1], 4)
    play_out(table)
    assert table.model.over() and isinstance(events[-1], Asked)


def test_an_undo_takes_back_the_log_and_the_events_it_was_written_from():
    """The log is written again from the position's events after an undo (as a change of
    language does): the lines taken back are not written again."""
    from ddz.play import transcript
    from ddz.play.render import Renderer
    from ddz.play.web.views import TextTerm

    table, _events = table_of(undo=True)
    render = Renderer(TextTerm(table.rules.deck), table.model, table.level)
    table.watch(lambda event: transcript.write(render, event))
    table.start(CODE)
    table.advance()
    table.bid(3)
    table.advance()
    kept = list(table.model.log)
    table.play(counts=parse_counts("3"))
    table.advance()
    assert len(table.model.log) > len(kept)
    table.undo()
    assert table.model.log[: len(kept)] == kept
    undone = list(table.model.log)
    transcript.rewrite(render)
    assert table.model.log == undone
    i18n.set_language("it")
    transcript.rewrite(render)
    assert len(table.model.log) == len(undone) and table.model.log != undone
