"""The named codes both backends share (option values and decisions), and the twin modules.

Each numpy module of ``uno_env/engine`` and its compiled twin hold the same functions
with the same arguments, and read every choice option as the same ``IntEnum`` code
(see docs/engine.md, "The compiled twin").
"""

from __future__ import annotations

import ast
import dataclasses
import typing
from pathlib import Path

import pytest

from uno_env import PRESETS, Rules
from uno_env.actions import ACTION_NAMES
from uno_env.engine.codes import (
    CLOSES_CATCH,
    DECISION_OF_ACTION,
    OPTION_CODES,
    Decision,
    RuleCodes,
    Scoring,
    option_code,
    option_value,
    rule_codes,
)
from uno_env.rules import CHOICES

ENGINE = Path(__file__).resolve().parent.parent / "uno_env" / "engine"


def preset_rules() -> list[Rules]:
    return [Rules.preset(name, num_players=4) for name in sorted(PRESETS)]


# --- option codes -------------------------------------------------------------------------------

def test_every_choice_option_has_its_codes_in_order():
    assert set(OPTION_CODES) == set(CHOICES)
    for option, values in CHOICES.items():
        assert [m.name for m in OPTION_CODES[option]] == [v.upper() for v in values], option
        assert [option_code(option, v) for v in values] == list(range(len(values)))


@pytest.mark.parametrize("option", sorted(CHOICES))
def test_every_option_value_round_trips_through_its_code(option):
    for value in CHOICES[option]:
        code = option_code(option, value)
        assert isinstance(code, OPTION_CODES[option])
        assert option_value(option, code) == value


@pytest.mark.parametrize("rules", preset_rules(), ids=sorted(PRESETS))
def test_rule_codes_hold_every_option_choices_as_codes(rules):
    codes = rule_codes(rules)
    assert codes._fields == tuple(f.name for f in dataclasses.fields(Rules))
    for name in codes._fields:
        value, code = getattr(rules, name), getattr(codes, name)
        if name in CHOICES:
            assert code is option_code(name, value), name
        else:
            assert code == value and type(code) is type(value), name


def test_rule_codes_declare_the_type_of_every_option():
    hints = typing.get_type_hints(RuleCodes)
    assert tuple(hints) == tuple(f.name for f in dataclasses.fields(Rules))
    rule_hints = typing.get_type_hints(Rules)
    for name, hint in hints.items():
        assert hint is (OPTION_CODES[name] if name in CHOICES else rule_hints[name]), name


def test_comparing_a_code_with_a_string_is_an_error():
    codes = rule_codes(Rules(scoring="zero_sum"))
    assert codes.scoring == Scoring.ZERO_SUM and codes.scoring != Scoring.RANK
    with pytest.raises(TypeError, match="Scoring.ZERO_SUM"):
        _ = codes.scoring == "zero_sum"
    with pytest.raises(TypeError):
        _ = "zero_sum" != codes.scoring  # noqa: SIM300 (the reflected comparison)


def test_the_compiled_rules_struct_holds_the_numpy_codes():
    numba = pytest.importorskip("numba")
    from uno_env.engine.compiled.layout import rules_struct

    names = sorted(CHOICES)
    source = f"def read(rules):\n    return ({', '.join(f'rules.{n}' for n in names)},)\n"
    scope: dict = {}
    exec(source, scope)   # one compiled function reading every choice option of the struct
    read = numba.njit(scope["read"])

    @numba.njit
    def is_rank(rules):
        return rules.scoring == Scoring.RANK

    for rules in preset_rules():
        codes = rule_codes(rules)
        assert read(rules_struct(rules)) == tuple(int(getattr(codes, n)) for n in names), rules
        assert is_rank(rules_struct(rules)) == (codes.scoring == Scoring.RANK), rules


def option_literal_comparisons(path: Path) -> list[str]:
    """``rules.<choice option>`` compared with a string (or tested with ``startswith``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            option = any(isinstance(n, ast.Attribute) and n.attr in CHOICES for n in sides)
            text = any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in sides)
            if option and text:
                found.append(f"{path.name}:{node.lineno}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith")
              and isinstance(node.func.value, ast.Attribute) and node.func.value.attr in CHOICES):
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_engine_module_compares_an_option_with_a_string():
    modules = sorted(ENGINE.glob("*.py")) + sorted((ENGINE / "compiled").glob("*.py"))
    assert [hit for path in modules for hit in option_literal_comparisons(path)] == []


def test_the_string_check_finds_a_string_comparison(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('if rules.scoring == "rank" or rules.draw_rule.startswith("until"):\n'
                   '    pass\n')
    assert option_literal_comparisons(bad) == ["bad.py:1", "bad.py:1"]


# --- decisions ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("prefix", "decision"), [
    ("play ", Decision.PLAY), ("draw", Decision.DRAW), ("pass", Decision.PASS),
    ("challenge", Decision.CHALLENGE), ("catch", Decision.CATCH), ("dobon", Decision.DOBON),
    ("color:", Decision.CHOOSE_COLOR), ("target:", Decision.CHOOSE_TARGET),
    ("uno", Decision.CALL_UNO)])
def test_every_action_makes_the_decision_its_name_says(prefix, decision):
    actions = [a for a, name in enumerate(ACTION_NAMES) if name.startswith(prefix)]
    assert actions and all(DECISION_OF_ACTION[a] == decision for a in actions)


def test_every_action_has_a_decision_and_accept_comes_only_from_the_phase():
    assert len(DECISION_OF_ACTION) == len(ACTION_NAMES)
    assert Decision.ACCEPT not in set(DECISION_OF_ACTION.tolist())


def test_cards_played_or_taken_close_the_catch_window():
    closing = {Decision(d) for d in range(len(Decision)) if CLOSES_CATCH[d]}
    assert closing == {Decision.PLAY, Decision.DRAW, Decision.ACCEPT, Decision.CHALLENGE}


def test_both_backends_dispatch_every_decision_to_the_same_named_function():
    from uno_env.engine.step import HANDLERS

    assert set(HANDLERS) == set(Decision)
    compiled = ast.parse((ENGINE / "compiled" / "step.py").read_text())
    apply = next(n for n in compiled.body
                 if isinstance(n, ast.FunctionDef) and n.name == "apply_action")
    branches = {}   # decision -> the function its branch calls
    for node in ast.walk(apply):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            test = node.test
            if isinstance(test.left, ast.Name) and test.left.id == "decision":
                member = test.comparators[0].attr
                call = node.body[0].value
                branches[Decision[member]] = call.func.id
    numpy = ast.parse((ENGINE / "step.py").read_text())
    table = next(n.value for n in numpy.body
                 if isinstance(n, ast.Assign) and n.targets[0].id == "HANDLERS")
    handlers = {Decision[k.attr]: v.body.func.id for k, v in zip(table.keys, table.values,
                                                                   strict=True)}
    # the compiled chain ends in ``else: call_uno(...)``
    assert branches == {d: f for d, f in handlers.items() if d != Decision.CALL_UNO}
    assert handlers[Decision.CALL_UNO] == "call_uno"


# --- the twin modules ---------------------------------------------------------------------------

#: Functions one side has and the other does not, per module pair (docs/engine.md says why).
ONE_SIDED = {
    "deal": ({"add_to_hands", "deck_counts", "drawable", "pile_counts"},
             {"mix64", "next_random", "random_below", "shuffle_order"}),
    "effects": (set(), {"seat_toward"}),
    "legal": ({"holds_color", "legal_mask", "tables"},
              {"can_answer", "legal_row", "may_finish_on"}),
    "rounds": (set(), set()),
    "step": ({"apply_actions"}, {"apply_action"}),
    "observe": ({"observation_bounds", "rules_vector", "seat_view"},
                {"observe_row", "observe_memory"}),
    "scoring": ({"num_players", "static_scores"},
                {"first_max", "legal_words", "rules_deck", "table_view", "random_play_choice",
                 "scores_state", "spread_scores", "choose_state"}),
}
#: Twins whose functions read other inputs: the numpy scores read a batch of
#: observations, the compiled ones a game's state.
OTHER_INPUTS = {"scoring"}
#: How a numpy argument over many games is named where the compiled one is one game.
SINGULAR = {"games": "g", "hands": "hand", "sizes": "size", "actions": "action",
            "players": "player"}
#: Arrays a compiled function writes its result into, where the numpy one returns it.
OUTPUTS = {"out", "points", "rewards"}


def functions(path: Path) -> dict[str, list[str]]:
    """The public module-level functions of a module, in order, with their arguments."""
    tree = ast.parse(path.read_text())
    return {n.name: [a.arg for a in n.args.args] for n in tree.body
            if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}


@pytest.mark.parametrize("module", sorted(ONE_SIDED))
def test_twin_modules_hold_the_same_functions_in_the_same_order(module):
    numpy_only, compiled_only = ONE_SIDED[module]
    numpy = functions(ENGINE / f"{module}.py")
    compiled = functions(ENGINE / "compiled" / f"{module}.py")
    assert numpy_only <= set(numpy) and compiled_only <= set(compiled)
    shared = [name for name in numpy if name not in numpy_only]
    assert shared == [name for name in compiled if name not in compiled_only]


@pytest.mark.parametrize("module", sorted(set(ONE_SIDED) - OTHER_INPUTS))
def test_twin_functions_take_the_same_arguments_in_the_same_order(module):
    numpy = functions(ENGINE / f"{module}.py")
    compiled = functions(ENGINE / "compiled" / f"{module}.py")
    for name in set(numpy) & set(compiled):
        args = [SINGULAR.get(a, a) for a in numpy[name]]
        assert compiled[name][:len(args)] == args, name
        assert set(compiled[name][len(args):]) <= OUTPUTS, name
