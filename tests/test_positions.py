"""The endgame solver (ddz/agents/endgame.py) on tiny endgames worked out by hand, and the
positions found in play where the bots threw the hand away, kept as regression tests."""

from ddz.agents.endgame import MAX_CARDS, bounds, endgame_choice, move_wins, solve
from ddz_env.moves import MoveType
from tests.positions import TABLE, counts, move_of, position


def single_rank(move: int) -> int | None:
    return int(TABLE.main[move]) if TABLE.type[move] == MoveType.SINGLE else None


# ------------------------------------------------------------------ the solver, by hand
def test_a_hand_that_goes_out_in_one_move_wins():
    hands = [counts("3 3"), counts("2"), counts("4")]
    assert solve(TABLE, hands, 0, 0, -1, 0) is True


def test_leading_the_pair_first_wins_and_the_single_first_loses():
    # landlord 3 3 5 leads; a peasant holds one 4: the single 5 first wins only if it is not
    # beaten; 4 beats 3 but not 5: lead 3 3 (nobody beats a pair with one card), then 5.
    hands = [counts("3 3 5"), counts("4"), counts("A 2")]
    pair = move_of("3 3")
    rest = [hands[0] - TABLE.counts[pair], hands[1], hands[2]]
    assert solve(TABLE, rest, 1, pair, 0, 0) is True  # after the pair the landlord wins
    single3 = move_of("3")
    rest = [hands[0] - TABLE.counts[single3], hands[1], hands[2]]
    assert solve(TABLE, rest, 1, single3, 0, 0) is False  # 4 goes out on the 3


def test_the_peasants_win_together():
    # peasant 1 leads 4, its partner (seat 2) goes out with the 2 over the landlord's nothing
    hands = [counts("3 3"), counts("4 5"), counts("2")]
    # seat 1 leads: 5 then partner beats with 2 and goes out (landlord can't beat 2 with 3)
    assert solve(TABLE, hands, 1, 0, -1, 0) is False


def test_the_endgame_choice_leads_the_pair_into_a_one_card_peasant():
    info = position(0, 0, ["3 3 5", "4", "A 2"])
    choice = endgame_choice(info)
    assert TABLE.type[choice] == MoveType.PAIR


def test_too_big_is_none():
    info = position(0, 0, ["3 4 5 6 7 8 9 10", "J Q K A", "2 2 BJ RJ"])
    assert move_wins(info, max_cards=12) is None


def test_the_wider_bounds_solve_an_endgame_of_sixteen_cards():
    # 16 cards in all: past the default bound. The landlord holds the pair 3 3 and the straight
    # 5..Q; the peasants hold six singles, one of them alone (4 Q K A 2 BJ between them: no
    # pair, no straight). The pair or the straight first wins wherever the cards lie (nothing
    # beats either, the other then empties the hand); a single 3 loses wherever they lie (the
    # peasant on one card beats it and is out)
    info = position(0, 0, ["3 3 5 6 7 8 9 10 J Q", "4", "Q K A 2 BJ"])
    assert move_wins(info) is None
    assert bounds(MAX_CARDS) == bounds() and bounds(16)["max_cards"] == 16
    moves, won, total = move_wins(info, **bounds(16))
    won = dict(zip(moves.tolist(), won))
    pair, straight = move_of("3 3"), move_of("5 6 7 8 9 10 J Q", MoveType.STRAIGHT)
    assert won[pair] == won[straight] == total
    assert won[move_of("3")] == 0
    assert endgame_choice(info, **bounds(16)) in (pair, straight)


# ------------------------------------------------------------------ positions found in play
def test_the_landlord_does_not_lead_a_single_into_a_one_card_peasant():
    # Expert's landlord held a trio of 7s, a pair of 6s, a pair of As and a Q while a peasant
    # held one card (A): a single Q is beaten by the A; the trio (with a kicker) is not.
    info = position(0, 0, ["7 7 7 6 6 A A Q", "A", "K K 2"])
    choice = endgame_choice(info)
    assert choice is not None
    rank = single_rank(choice)
    # no single that an A can beat (only the 2 and the jokers are above A; the hand has none)
    assert rank is None


def test_the_landlord_plays_its_joker_before_a_peasant_goes_out():
    # the landlord kept RJ while a peasant on two cards went out: here the landlord holds RJ 3
    # on a peasant's single K, the other peasant 2 2. Passing lets the 2 2 go out; RJ (nothing
    # is above it, the BJ is gone) takes the lead and the 3 goes out: it wins in every world.
    info = position(0, 0, ["RJ 3", "2 2", "5 6"], to_beat=move_of("K"), by=2)
    moves, won, total = move_wins(info)
    rj = move_of("RJ")
    assert endgame_choice(info) == rj
    assert won[list(moves).index(rj)] == total
    assert won[list(moves).index(0)] < total


def test_a_peasant_does_not_lead_a_single_king_into_2_rj_k():
    # Hard's peasant led a single K into the landlord's 2 RJ K: the landlord beats it, then
    # plays out. A pair lead (the landlord holds no pair) keeps the hand.
    info = position(1, 0, ["2 RJ K", "Q Q 3", "5 6 7 8"])
    choice = endgame_choice(info)
    assert choice is not None
    assert single_rank(choice) is None or single_rank(choice) > 12


def test_the_bots_themselves_avoid_the_blunders():
    from ddz.agents.expert import ExpertAgent
    from ddz.agents.hard import HardAgent

    expert = ExpertAgent(seed=21, worlds=4)
    info = position(0, 0, ["7 7 7 6 6 A A Q", "A", "K K 2"])
    assert single_rank(expert.play(info)) is None
    info = position(0, 0, ["RJ 3", "2 2", "5 6"], to_beat=move_of("K"), by=2)
    assert expert.play(info) == move_of("RJ")
    info = position(1, 0, ["2 RJ K", "Q Q 3", "5 6 7 8"])
    rank = single_rank(HardAgent().play(info))
    assert rank is None or rank > 12


def test_hard_leads_the_pair_that_cannot_be_beaten_before_its_last_single():
    # A peasant on 7 9 9 leads into the landlord's 2 RJ K (the other peasant on J Q). Hard's
    # networks alone lead the single 7 (the landlord takes it and plays on); by hand, 9 9 can't
    # be beaten (the five hidden cards J Q K 2 RJ hold no pair and the BJ is gone), and then
    # the 7 goes out: it wins in every world. The guard must find it.
    from ddz.agents.hard import HardAgent

    info = position(2, 0, ["2 RJ K", "J Q", "7 9 9"])
    assert HardAgent().play(info) == move_of("9 9")
    moves, won, total = move_wins(info)
    assert won[list(moves).index(move_of("9 9"))] == total


def test_the_landlord_keeps_its_low_single_for_last_against_a_one_card_peasant():
    # The landlord on 7 7 6 6 Q 3 leads; a peasant holds one card, the other two (the hidden
    # 4 8 Q). Any hidden card beats the 3: leading it loses in every world. By hand, Q (nothing
    # hidden is above it), the pairs (no hidden pair) and then the 3 go out: every other lead
    # wins in every world. Hard's networks alone lead the 3; Expert and Hard must not.
    from ddz.agents.expert import ExpertAgent
    from ddz.agents.hard import HardAgent

    info = position(0, 0, ["7 7 6 6 Q 3", "4", "8 Q"])
    for bot in (ExpertAgent(seed=21, worlds=4), HardAgent()):
        choice = bot.play(info)
        assert choice != move_of("3")
        assert TABLE.type[choice] in (MoveType.SINGLE, MoveType.PAIR)


def test_the_expert_plays_rj_on_a_single_before_the_two_card_peasant_wins():
    # The landlord on 5 7 9 RJ, a peasant's single J to beat, the peasants on two cards and
    # one (the hidden 5 6 3). Hard's networks pass, keeping RJ. By hand, RJ (the BJ is gone)
    # takes the lead, then 9 and 7 (nothing hidden reaches 7) and the 5 goes out: it wins in
    # every world. The Expert must play it.
    from ddz.agents.expert import ExpertAgent

    info = position(0, 0, ["5 7 9 RJ", "5 6", "3"], to_beat=move_of("J"), by=2)
    assert ExpertAgent(seed=21, worlds=4).play(info) == move_of("RJ")
    moves, won, total = move_wins(info)
    assert won[list(moves).index(move_of("RJ"))] == total
