"""``python -m ddz.bench.endgame_reach``: decisions within the endgame solver's bounds."""

import pytest

from ddz.agents.hard import DEFAULT_MODEL
from ddz.bench import endgame_reach

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no shipped Hard model")


@pytest.mark.heavy
def test_a_wider_bound_is_reached_at_least_as_often_and_every_entry_fits_it():
    decisions, found = endgame_reach.measure(games=1, seed=3, cards=[12, 54])
    assert decisions > 0
    # every decision with a choice fits 54 cards: the widest bound sees them all
    assert len(found[54]) == decisions
    assert len(found[12]) <= len(found[54])
    assert all(left <= 12 for left, _, _ in found[12])


def test_bad_cards_are_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        endgame_reach.main(["--cards", "twelve"])
    assert exc.value.code == 2
    assert "--cards takes whole numbers" in capsys.readouterr().err
