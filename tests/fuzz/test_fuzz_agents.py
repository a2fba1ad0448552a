"""Hostile-input fuzz of the agents' engine queries (see test_fuzz_api.py for how the fuzz
works): ``best_move(fen)``, ``best_play(position_id, d1, d2)``, ``act_state(state)`` and
``act(observation, mask)`` of every registered agent that needs no torch (loaded with
``boardgym.agents.load``), ``agents.engine_query`` and ``load`` itself."""

import fuzz_runner
import fuzz_targets
import pytest


@pytest.mark.parametrize("name", [t.name for t in fuzz_targets.targets_of("agents")])
def test_agents(name):
    fuzz_runner.assert_clean("agents", name)
