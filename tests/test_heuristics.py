"""The linear heuristics' look-ahead features and their weights per table size."""

from __future__ import annotations

import numpy as np
import pytest
from scenario import cur, make, random_positions, valid_player_counts

from uno_agents import LinearAgent, make_agent
from uno_agents.features import DYNAMIC, FEATURES, TableView, dynamic_features, feature_scores
from uno_agents.heuristics import DEFENDER_WEIGHTS, TUNED_WEIGHTS, nearest_size, weight_vector
from uno_env import NUM_ACTIONS, Engine, Rules, action_id, action_name


def features_of(eng, action: str) -> dict[str, float]:
    """The dynamic features of ``action`` for game 0's acting player."""
    table = TableView(eng.observe())
    values = dynamic_features(table, table.rows[:, None], np.arange(NUM_ACTIONS)[None, :])
    return {name: float(v[0, action_id(action)]) for name, v in zip(DYNAMIC, values, strict=True)}


def test_follow_up_sees_the_card_that_can_follow() -> None:
    stuck = features_of(make([["R2", "B7", "B8"], ["G3", "G4"]], top="R5"), "play R2")
    assert stuck["follow_up"] == 0 and stuck["last_of_color"] == 1
    by_color = features_of(make([["R2", "R7", "B8"], ["G3", "G4"]], top="R5"), "play R2")
    assert by_color["follow_up"] == 1 and by_color["last_of_color"] == 0
    by_symbol = features_of(make([["R2", "B2", "B8"], ["G3", "G4"]], top="R5"), "play R2")
    assert by_symbol["follow_up"] == 1 and by_symbol["symbol_twins"] == pytest.approx(1 / 3)
    by_wild = features_of(make([["R2", "W", "B8"], ["G3", "G4"]], top="R5"), "play R2")
    assert by_wild["follow_up"] == 1 and by_wild["symbol_twins"] == 0


def test_attack_follow_is_a_second_turn_heads_up() -> None:
    eng = make([["RS", "R7", "B8"], ["G3", "G4"]], top="R5")
    assert features_of(eng, "play RS")["attack_follow"] == 1
    assert features_of(eng, "play R7")["attack_follow"] == 0      # not an attack


def test_next_named_color_remembers_the_next_players_wild() -> None:
    eng = make([["R2", "G7", "B8"], ["W", "G4", "Y9"]], top="R5", current=1)
    eng.step_names("play W:G")
    assert features_of(eng, "play G7")["next_named_color"] == 1
    assert features_of(eng, "play B8")["next_named_color"] == 0


def test_three_player_features_watch_the_player_closest_to_out() -> None:
    # seat 1 (next) holds 2 cards, seat 2 (previous) holds 4
    eng = make([["RS", "RR", "R1"], ["G3", "G4"], ["Y1", "Y2", "Y3", "Y4"]], top="R5")
    assert features_of(eng, "play RS")["attacks_leader"] == 1
    assert features_of(eng, "play RR")["reverse_dodge"] == 1
    assert features_of(eng, "play R1")["attacks_leader"] == 0
    calm = make([["RS", "RR", "R1"], ["G3", "G4", "G5", "G6"], ["Y1", "Y2"]], top="R5")
    assert features_of(calm, "play RS")["attacks_leader"] == 0
    assert features_of(calm, "play RR")["reverse_dodge"] == 0
    heads_up = make([["RS", "RR", "R1"], ["G3"]], top="R5")
    assert features_of(heads_up, "play RR")["reverse_dodge"] == 0


def test_nearest_table_size_prefers_the_larger_on_a_tie() -> None:
    sizes = np.array([2, 4, 6])
    chosen = nearest_size(np.array([2, 3, 4, 5, 6, 7, 10]), sizes)
    assert sizes[chosen].tolist() == [2, 4, 4, 6, 6, 6, 6]


@pytest.mark.parametrize("players", [2, 3, 4, 6, 10])
def test_tuned_plays_with_the_weights_of_its_table_size(players: int) -> None:
    hands = [["R2", "RS", "W", "B8"]] + [[f"G{i}", f"Y{i}"] for i in range(1, players)]
    obs = make(hands, top="R5").observe()
    sizes = np.array(sorted(TUNED_WEIGHTS))
    size = int(sizes[nearest_size(np.array([players]), sizes)[0]])
    scores = make_agent("tuned").scores(obs)
    for other, weights in TUNED_WEIGHTS.items():
        same = np.array_equal(scores, LinearAgent(weights).scores(obs))
        assert same == (other == size)



def test_skips_and_reverses_that_hand_the_turn_to_a_player_about_to_go_out() -> None:
    # four players: seat 2 (after the next) and seat 3 (previous) hold two cards
    eng = make([["RS", "RR", "RD2", "R1"], ["G3", "G4", "G5"], ["Y1", "Y2"], ["B1", "B2"]],
               top="R5")
    for play in ("play RS", "play RD2"):
        assert features_of(eng, play)["skips_to_threat"] == 1
    assert features_of(eng, "play RR")["reverse_to_threat"] == 1
    assert features_of(eng, "play R1")["skips_to_threat"] == 0
    calm = make([["RS", "RR", "R1"], ["G3", "G4"], ["Y1", "Y2", "Y3"], ["B1", "B2", "B3"]],
                top="R5")
    assert features_of(calm, "play RS")["skips_to_threat"] == 0
    assert features_of(calm, "play RR")["reverse_to_threat"] == 0
    counter = make([["RS", "R1"], ["G3", "G4"], ["Y1", "Y2", "Y3"], ["B1", "B2", "B3"]],
                   top="R5", direction=-1)        # next is seat 3, then seat 2
    assert features_of(counter, "play RS")["skips_to_threat"] == 0
    counter_threat = make([["RS", "R1"], ["G3", "G4", "G5"], ["Y1", "Y2"], ["B1", "B2", "B3"]],
                          top="R5", direction=-1)
    assert features_of(counter_threat, "play RS")["skips_to_threat"] == 1


def test_threat_lacks_color_needs_a_next_player_close_to_out_that_drew_on_it() -> None:
    def after_a_draw_on_red(hand: list[str]) -> dict[str, float]:
        eng = make([["R2", "B7", "B8"], hand], top="R5", current=1, pile=["Y1"])
        eng.step_names("draw")              # seat 1 draws on red, cannot play the card
        return features_of(eng, "play R2")

    close = after_a_draw_on_red(["G3"])
    assert close["next_lacks_color"] == 1 and close["threat_lacks_color"] == 1
    far = after_a_draw_on_red(["G3", "G4", "G5"])
    assert far["next_lacks_color"] == 1 and far["threat_lacks_color"] == 0


def test_symbol_scarce_counts_the_copies_nobody_has_shown() -> None:
    # the deck has eight 5s: the hand holds three, the discards show three
    eng = make([["R5", "G5", "B5", "R9"], ["G3", "G4"]], top="R1", discard=["Y5", "Y5", "B5"])
    assert features_of(eng, "play R5")["symbol_scarce"] == pytest.approx(1 - 2 / 8)
    assert features_of(eng, "play R9")["symbol_scarce"] == pytest.approx(1 - 7 / 8)


def test_attack_big_hand_grows_with_the_hand() -> None:
    small = features_of(make([["RS", "R1"], ["G3", "G4"]], top="R5"), "play RS")
    big_hand = ["RS", "B1", "B2", "B3", "B4", "B6", "B7", "B8"]
    big = features_of(make([big_hand, ["G3", "G4"]], top="R5"), "play RS")
    assert small["attack_big_hand"] == pytest.approx(2 / 8) and big["attack_big_hand"] == 1


def test_tuning_starts_from_named_weights(tmp_path) -> None:
    from experiments.tune_heuristic import start_weights

    assert np.array_equal(start_weights("tuned:2", 4), weight_vector(TUNED_WEIGHTS[2]))
    assert np.array_equal(start_weights("defender", 4), weight_vector(DEFENDER_WEIGHTS))
    path = tmp_path / "start.json"
    path.write_text('{"wild": -30, "follow_up": 5}')
    start = dict(zip(FEATURES, start_weights(str(path), 2), strict=True))
    assert start["wild"] == -30 and start["follow_up"] == 5 and start["draw"] == 0
    path.write_text('{"wilds": -30}')
    with pytest.raises(ValueError, match="unknown \\['wilds'\\]"):
        start_weights(str(path), 2)


def test_table_colors_count_the_opponents_that_drew_on_or_named_them() -> None:
    # seat 1 draws on red (cannot play), seat 2 names green with a wild
    eng = make([["R2", "G7", "B8"], ["Y3", "Y4", "Y6"], ["W", "B4", "B6"]], top="R5",
               current=1, pile=["Y1"])
    eng.step_names("draw")
    eng.step_names("play W:G")
    red, green = features_of(eng, "play R2"), features_of(eng, "play G7")
    assert red["table_lacks_color"] == pytest.approx(1 / 2) and red["table_named_color"] == 0
    assert green["table_lacks_color"] == 0 and green["table_named_color"] == pytest.approx(1 / 2)


def test_tuning_meets_every_candidate_with_the_same_opponents_choices() -> None:
    from experiments.tune_heuristic import PairedRandomPlay, fitness
    from uno_agents.random_play import RANDOM_PLAY_TIERS, RandomPlayAgent
    from uno_env.evaluation import play_rotated

    rules = Rules.preset("official", num_players=3)
    tuned, defender = weight_vector(TUNED_WEIGHTS[4]), weight_vector(DEFENDER_WEIGHTS)
    # identical candidates play identical games: their win rates are equal, not just close
    same = fitness(rules, np.stack([tuned, tuned, defender, defender]), 40, seed=5)
    assert same[0] == same[1] and same[2] == same[3]
    # the paired opponent is random_play: same tiers, choices uniform within the best one
    eng = Engine(rules, 400, 7)
    obs, masks = eng.observe(), eng.legal_action_mask()
    paired = PairedRandomPlay(100, 400, seed=0).act_in(eng, np.arange(400), obs, masks, None)
    plain = RandomPlayAgent().act(obs, masks, np.random.default_rng(0))
    assert masks[np.arange(400), paired].all()
    assert np.array_equal(RANDOM_PLAY_TIERS[paired], RANDOM_PLAY_TIERS[plain])
    assert (paired != plain).mean() > 0
    # and it is a fair random player: against it the heuristic wins what it wins against
    # the plain one, within the noise
    winners = play_rotated(rules, [make_agent("tuned"), RandomPlayAgent(), RandomPlayAgent()],
                           100 + np.arange(300))
    plain_rate = (winners == 0).mean()
    assert abs(fitness(rules, tuned[None], 300, seed=100)[0] - plain_rate) < 0.08


@pytest.mark.parametrize(("preset", "players"), valid_player_counts((2, 4, 10)))
def test_scoring_only_the_legal_actions_gives_the_same_numbers(preset: str, players: int
                                                               ) -> None:
    eng = random_positions(preset, players, games=48, seed=players)
    live = np.flatnonzero(~eng.state.done)
    obs, masks = eng.observe(games=live), eng.legal_action_mask(live)
    rng = np.random.default_rng(players)
    per_row = rng.normal(0, 10, (live.size, len(FEATURES)))
    for weights in (weight_vector(TUNED_WEIGHTS[2]), per_row):
        full, legal = feature_scores(obs, weights), feature_scores(obs, weights, masks)
        assert np.array_equal(legal[masks], full[masks])     # bit for bit: same choices
        assert np.isneginf(legal[~masks]).all()


def test_tuning_against_a_fixed_heuristic() -> None:
    from experiments.tune_heuristic import fitness, paired_opponent

    rules = Rules.preset("official", num_players=2)
    tuned = weight_vector(TUNED_WEIGHTS[2])
    rates = fitness(rules, np.stack([tuned, tuned, weight_vector(DEFENDER_WEIGHTS)]), 30,
                    seed=3, opponent_name="tuned")
    # against itself on seat-rotated duplicate deals the deterministic heuristic wins
    # exactly half: each deal's winner is the same seat under both rotations
    assert rates[0] == rates[1] == 0.5 and rates[2] != 0.5
    with pytest.raises(ValueError, match="'random' draws random numbers"):
        paired_opponent("random", 10, 30, 0)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_tuned_stacks_a_draw_card_rather_than_take_the_penalty(players: int) -> None:
    """A draw card played in answer to a pending penalty passes it on: its draw value,
    which the weights hold back for attacks, does not count against stacking."""
    others = [["G1", "G2", "B3"], ["Y1", "Y2", "B4"], ["G7", "Y7", "B5"], ["G8", "Y6", "B6"]]
    hands = [["G3", "WD10", "B7", "Y1"], *others[:players - 2], ["RD4", "G6", "B1", "Y8"]]
    eng = make(hands, top="R5", preset="no_mercy", current=players - 1)
    eng.step_names("play RD4")
    assert eng.phase_name() == "respond" and cur(eng) == 0
    chosen = make_agent("tuned").act(eng.observe(), eng.legal_action_mask(), None)
    assert action_name(int(chosen[0])).startswith("play WD10")


def test_tuned_for_a_preset_uses_its_own_weights_only_where_it_was_re_tuned() -> None:
    from uno_agents.heuristics import PRESET_TUNED_WEIGHTS

    for preset, sizes in PRESET_TUNED_WEIGHTS.items():
        agent = make_agent(f"tuned:preset={preset}")
        general = make_agent("tuned")
        for size, row in zip(agent.sizes.tolist(), agent.table, strict=True):
            expected = sizes.get(size, TUNED_WEIGHTS[size])
            np.testing.assert_array_equal(row, weight_vector(expected))
            if size not in sizes:
                np.testing.assert_array_equal(row, general.table[list(general.sizes).index(size)])
        # the re-tuned weights change the play on that preset
        rules = Rules.preset(preset, num_players=min(sizes))
        eng = Engine(rules, 256, 5)
        obs, masks = eng.observe(), eng.legal_action_mask()
        rng = np.random.default_rng(0)
        assert (agent.act(obs, masks, rng) != general.act(obs, masks, rng)).any()


def test_tuned_refuses_a_preset_it_was_not_re_tuned_for() -> None:
    with pytest.raises(ValueError, match="no weights were tuned for preset 'official'"):
        make_agent("tuned:preset=official")
