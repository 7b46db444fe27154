"""The information-state tensor: layout, perfect recall of the whole public history (every word
of the auction and every move of the play, with who took it), batched and per-game paths, and
the slot bounds under every ruleset."""

import numpy as np
import pytest

import ddz_env
from ddz_env import Game, Ruleset, information_state, move_features
from ddz_env.game import BIDDING, OVER
from ddz_env.observation import (
    AUCTION_SLOTS,
    INFOSTATE_LAYOUT,
    INFOSTATE_SIZE,
    INFOSTATE_SLICES,
    PLAY_SLOTS,
    encode_cards,
)


def readings(ruleset: Ruleset) -> dict[bytes, list[int]]:
    """Card encoding → the moves with those cards."""
    out: dict[bytes, list[int]] = {}
    for a, row in enumerate(move_features(ruleset)):
        out.setdefault(row.tobytes(), []).append(a)
    return out


def decode_history(state: np.ndarray, seat: int, feats: dict, num_moves: int):
    """(auction, play) read back from one info state: (absolute seat, action) per word and
    (absolute seat, the moves with those cards) per move."""
    auction = []
    rows = state[INFOSTATE_SLICES["auction"]].reshape(AUCTION_SLOTS, 7)
    for row in rows:
        if not row.any():
            break
        who = (seat + int(np.flatnonzero(row[:3])[0])) % 3
        word = int(np.flatnonzero(row[3:])[0])
        auction.append((who, 0 if word == 0 else num_moves + word - 1))
    play = []
    for row in state[INFOSTATE_SLICES["play"]].reshape(PLAY_SLOTS, 57):
        if not row[:3].any():
            assert not row.any()
            break
        who = (seat + int(np.flatnonzero(row[:3])[0])) % 3
        play.append((who, feats[row[3:].tobytes()]))
    return auction, play


def test_layout():
    assert sum(size for _, size in INFOSTATE_LAYOUT) == INFOSTATE_SIZE == 9112
    assert INFOSTATE_SLICES["play"].stop == INFOSTATE_SIZE
    assert ddz_env.INFOSTATE_SIZE == INFOSTATE_SIZE and ddz_env.INFOSTATE_LAYOUT is INFOSTATE_LAYOUT


@pytest.mark.parametrize("bidding", ["once", "open"])
def test_the_whole_history_is_recalled(bidding):
    ruleset = Ruleset(bidding=bidding)
    game = Game(4, ruleset, seed=3)
    feats = readings(ruleset)
    rng = np.random.default_rng(3)
    longest = steps = 0
    while not game.done.all():
        live = game.phase != OVER
        game.step(np.where(live, game.sample_actions(rng), 0))
        steps += 1
        if steps % 7 and not game.done.all():
            continue  # check every seventh step and the end
        for seat in range(3):
            states = information_state(game, seats=seat)
            assert states.shape == (4, INFOSTATE_SIZE) and states.dtype == np.float32
            for b in range(4):
                state = states[b]
                np.testing.assert_array_equal(state, information_state(game, seat, [b])[0])
                auction, play = decode_history(state, seat, feats, game.num_moves)
                start, end = int(game.play_start[b]), int(game.history_len[b])
                if game.phase[b] == BIDDING:
                    start = end
                words = list(zip(game.history_player[b, :start], game.history_action[b, :start]))
                assert auction == [(int(s), int(a)) for s, a in words]
                moves = list(
                    zip(game.history_player[b, start:end], game.history_action[b, start:end])
                )
                assert len(play) == len(moves)
                for (who, matches), (s, a) in zip(play, moves):
                    # the card encoding names the move up to its reading (a plane or a plane
                    # with wings have the same cards)
                    assert who == s and a in matches
                longest = max(longest, len(moves))
                assert state[INFOSTATE_SLICES["seat"]].tolist() == np.eye(3)[seat].tolist()
                dealt = state[INFOSTATE_SLICES["dealt_hand"]]
                assert dealt.sum() == 17
                np.testing.assert_array_equal(
                    state[INFOSTATE_SLICES["hand"]], encode_cards(game.hands[b, seat])
                )
    assert longest > 15  # more than the observation's last-15 window


def test_slot_bounds_hold_under_every_ruleset():
    for options in (dict(bidding="open", kickers="any"), dict(bidding="none"), dict()):
        game = Game(256, Ruleset(**options), seed=11)
        rng = np.random.default_rng(11)
        most_words = most_moves = 0
        while not game.done.all():
            live = game.phase != OVER
            game.step(np.where(live, game.sample_actions(rng), 0))
            words = np.where(game.phase == BIDDING, game.history_len, game.play_start)
            most_words = max(most_words, int(words.max()))
            most_moves = max(most_moves, int((game.history_len - game.play_start)[live].max()))
        assert most_words <= AUCTION_SLOTS and most_moves <= PLAY_SLOTS


def test_the_aec_env_gives_the_acting_agents_information_state():
    env = ddz_env.env()
    env.reset(seed=1)
    for _ in range(30):
        agent = env.agent_selection
        seat = int(agent[-1])
        state = env.unwrapped.information_state(agent)
        np.testing.assert_array_equal(state, information_state(env.unwrapped.game, seat)[0])
        mask = env.observe(agent)["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))
