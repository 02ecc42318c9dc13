"""The one counterexample type (analysis/witness.py): what each check puts in it."""

from __future__ import annotations

import sympy

import exactdp


def test_regularity_witness_names_the_mechanisms_own_probabilities():
    from exactdp.analysis import Witness
    from exactdp.mechanisms.custom import mechanism_from_function

    m = mechanism_from_function(
        lambda q, e: [sympy.exp(-e * v / 2) / sum(sympy.exp(-e * u / 2) for u in q) for v in q],
        epsilon=1,
    )
    res = exactdp.is_monotonic(m, n=2, values=[0, 1])
    w = res.witness
    assert not res.holds and isinstance(w, Witness)
    # the exact probabilities it names are the mechanism's own (an independent evaluation)
    assert w.probability == m.distribution(list(w.scores)).probabilities[w.output]
    assert w.neighbour_probability == m.distribution(list(w.neighbour)).probabilities[w.output]
    assert sympy.N(w.probability - w.neighbour_probability) < 0
    assert w.neighbour_output == w.output


def test_sensitivity_witness_keeps_its_attribute_names():
    from exactdp.analysis import Witness
    from exactdp.analysis.score_function import ScoreFunction

    func = ScoreFunction(lambda db, r: 3 * sum(1 for x in db if x == r), (0, 1))
    res = exactdp.sensitivity(func, (0, 1), "replace", max_size=2)
    w = res.witness
    assert res.sensitivity == 3 and isinstance(w, Witness) and w.value == 3
    database, neighbour, output = w  # unpacks as (database, neighbour database, output)
    assert (database, neighbour, output) == (w.database, w.neighbour, w.output)
    r = func.range.index(output)
    assert w.scores == func.scores(database) and w.neighbour_scores == func.scores(neighbour)
    assert abs(w.scores[r] - w.neighbour_scores[r]) == 3


def test_check_dp_witness_defaults():
    from exactdp.analysis import Witness

    w = Witness((0, 0), (0, -1), 1)
    assert tuple(w) == ((0, 0), (0, -1), 1)
    assert w.neighbour_scores == (0, -1) and w.neighbour_output == 1 and w.database is None



def test_str_of_big_and_long_witnesses_names_the_changed_coordinates():
    from exactdp import PermuteAndFlip, check_dp
    from exactdp.analysis.witness import Witness

    q = [0] * 30
    q[3], q[7] = 1, 2
    r = list(q)
    r[3], r[7] = 0, 3
    assert str(Witness(tuple(q), tuple(r), 5)) == "q[3]: 1 -> 0, q[7]: 2 -> 3 at output 5"
    # two coordinates that print alike show their exact step
    assert str(Witness((10**300, 0), (10**300 + 1, 0), 1)) == (
        "q[0]: 1.0e+300 -> 1.0e+300 (+1) at output 1")
    assert str(Witness((10**300, 0), (10**300, 1), 1)) == "(1.0e+300,0)->(1.0e+300,1) at output 1"
    text = repr(check_dp(PermuteAndFlip(1), [10**300, 0]))
    assert "witness=" in text and "->" in text and "at output" in text and len(text) < 200
    c = check_dp(PermuteAndFlip(1), [0] * 3 + [1] + [0] * 26)
    w = c.witness
    changed = [i for i in range(30) if w.scores[i] != w.neighbour[i]]
    first = f"q[{changed[0]}]: {w.scores[changed[0]]} -> {w.neighbour[changed[0]]}"
    text = repr(c)
    assert first in text and f"at output {w.output}" in text and len(text) < 200


def test_rational_scores_print_exactly_in_the_witness():
    """Scores 1/7 and 1/3 print as themselves (not 0.142857): the printed pair, parsed as
    Fractions, is the witness's exact pair, a neighbour (every coordinate within 1)."""
    from fractions import Fraction

    import exactdp
    check = exactdp.check_dp(exactdp.PermuteAndFlip(1), [0, "1/7", "1/3"])
    w = check.witness
    text = str(w).split(" at ")[0]
    first, second = (tuple(Fraction(x) for x in part.strip("()").split(","))
                     for part in text.split("->"))
    assert first == tuple(Fraction(str(v)) for v in w.scores) == (0, Fraction(1, 7),
                                                                   Fraction(1, 3))
    assert second == tuple(Fraction(str(v)) for v in w.neighbour)
    assert all(abs(a - b) <= 1 for a, b in zip(first, second, strict=True))
    assert "witness=(0,1/7,1/3)->" in repr(check)


def test_a_programs_output_none_is_named_and_no_output_is_a_sentinel():
    """A program returning None when no try passes (three tries of AboveThreshold with one
    threshold draw): check_dp's witness names ``at output None`` and its loss's repr
    ``output=None`` (the output itself, not its index 0); the loss equals the largest log
    ratio of the program's probabilities computed from its own exact distribution on both
    vectors (an independent route: the distributions, not the loss engine). A quantity
    not attained at one output (composition) has the output NO_OUTPUT, printed without
    an output."""
    import pickle

    from exactdp.analysis.witness import NO_OUTPUT, Witness
    from tests.example_programs import tries

    m = tries(epsilon=1, k=3)
    res = exactdp.check_dp(m, [0])
    assert str(res.witness).endswith(" at output None") and res.witness.output is None
    loss = exactdp.privacy_loss(m, [0], [1])
    assert "output=None" in repr(loss)
    p0, p1 = (dict(zip(d.outputs, d.probabilities, strict=True))
              for d in (m.distribution([0]), m.distribution([1])))
    ratios = [abs(sympy.N(sympy.log(p0[o] / p1[o]), 30)) for o in p0]
    assert abs(sympy.N(loss.value, 30) - max(ratios)) < 1e-25
    w = Witness((0,), (1,), NO_OUTPUT)
    assert str(w) == "(0)->(1)" and w.neighbour_output is NO_OUTPUT and not NO_OUTPUT
    assert pickle.loads(pickle.dumps(NO_OUTPUT)) is NO_OUTPUT
