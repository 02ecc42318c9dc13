"""exactdp.scores: validation, laziness and exact gaps."""

import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp import (
    ExactConversionWarning,
    PermuteAndFlip,
    as_scores,
)


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ([], "empty"),
        (np.array([]), "empty"),
        ([1, float("nan"), 2], r"scores\[1\]"),
        (np.array([0.0, 1.0, np.inf]), r"scores\[2\]"),
        ([1, "abc"], r"scores\[1\]"),
        ([True, False], "boolean"),
        ("1,2,3", "str"),
        (np.zeros((2, 2)), "1-D"),
        ([1, 2j], "complex"),
        (5, "sequence"),
    ],
)
def test_bad_scores(bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        as_scores(bad)


def test_float_scores_stay_float_and_lazy():
    q = np.linspace(0.0, 1.0, 1000)
    sv = as_scores(q)
    assert sv.kind == "float"
    assert "exact" not in sv.__dict__
    assert sv.gaps_float[0] == 1.0
    with pytest.warns(ExactConversionWarning):
        ex = sv.exact
    assert ex[-1] == 1


def test_exact_gaps_and_ties():
    sv = as_scores(["1/2", 0, "1/2", "-3/4"])
    assert sv.argmax_set == (0, 2)
    assert sv.gaps_exact == (0, sympy.Rational(1, 2), 0, sympy.Rational(5, 4))
    assert sv.integer_gaps() == (4, (0, 2, 0, 5))


def test_irrational_scores_have_no_integer_gaps():
    sv = as_scores(["sqrt(2)", 1])
    assert not sv.is_rational
    assert sv.gaps_exact == (0, sympy.sqrt(2) - 1)
    with pytest.raises(ValueError, match="rational"):
        sv.integer_gaps()


def test_big_integers_are_exact():
    big = 10**30
    sv = as_scores([big, big - 1])
    assert sv.integer_gaps() == (1, (0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, forms = PermuteAndFlip(1).distribution([big, big - 1]).rational_form()
    assert forms == (1 - x / 2, x / 2)


# ---------------------------------------------------------------- vectorised input (issue 10)
@pytest.mark.parametrize(
    "q",
    [
        np.array([127, -128, 0], dtype=np.int8),  # int8 arithmetic would wrap; gaps 0, 255, 127
        np.array([2**62, -(2**62), 3]),  # max - min = 2**63 overflows int64: Python ints
        np.array([2**64 - 1, 0, 2**63 + 5], dtype=np.uint64),
        [2**53 + 1, 2**53, 0],  # beyond float64's integers
        [10**30, 10**30 - 1, 5],  # beyond int64: Python ints
        np.array([9007199254740993, 9007199254740992, -5]),
    ],
)
def test_integer_arrays_and_lists_keep_exact_gaps(q):
    # independent route: Python ints, one rounding to float64 per gap
    ints = [int(v) for v in (q.tolist() if isinstance(q, np.ndarray) else q)]
    top = max(ints)
    sv = as_scores(q)
    assert sv.kind == "int"
    assert sv.raw == tuple(ints) and all(type(v) is int for v in sv.raw)
    assert sv.integer_gaps() == (1, tuple(top - v for v in ints))
    assert sv.gaps_float.tolist() == [float(top - v) for v in ints]
    assert sv.floats.tolist() == [float(v) for v in ints]
    assert sv.argmax_set == tuple(i for i, v in enumerate(ints) if v == top)


def test_list_of_ints_matches_tuple_route():
    rng = np.random.default_rng(3)
    q = rng.integers(0, 40, 2000)
    a = PermuteAndFlip(1).distribution(q.tolist()).to_numpy()  # list of Python ints
    b = PermuteAndFlip(1).distribution(tuple(np.int64(v) for v in q)).to_numpy()  # loop route
    c = PermuteAndFlip(1).distribution(q.astype(float)).to_numpy()
    # the routes agree to 2 ulps (the maximizers' entry is formed from grouped gaps on one
    # route and from the vector on the others: the float view's error bound is ~1e-14)
    np.testing.assert_array_max_ulp(a, b, maxulp=2)
    np.testing.assert_array_max_ulp(a, c, maxulp=2)


def test_list_of_floats_is_float_kind_and_warns_on_exact():
    sv = as_scores([0.5, 0.25, 0.1])
    assert sv.kind == "float"
    with pytest.warns(ExactConversionWarning):
        ex = sv.exact
    assert ex[2] == sympy.Rational(*(0.1).as_integer_ratio())


@pytest.mark.parametrize("q", [[1, 2.5], [1, True], [1.0, np.float32(2.0)]])
def test_mixed_lists_take_the_general_route(q):
    if any(isinstance(v, bool) for v in q):
        with pytest.raises(ValueError, match="boolean"):
            as_scores(q)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactConversionWarning)  # 2.5 by its binary value
        sv = as_scores(q)
    assert sv.n == 2
    assert sv.gaps_float.tolist() == [float(max(q)) - float(v) for v in q]

S, R, Z = sympy.sqrt, sympy.Rational, sympy.Integer


# ---------------------------------------------------------------- hole 2: signs by float
def test_score_maximum_is_decided_exactly_not_at_60_digits():
    # b = ceil(sqrt(2) 10^80) / 10^80 exceeds sqrt(2) by less than 1e-80: the float
    # comparison N(diff, 60) cannot see it. Independent route: b^2 > 2 in integers.
    k = 10**80
    num = sympy.integer_nthroot(2 * k * k, 2)[0] + 1
    assert num * num > 2 * k * k and (num - 1) ** 2 < 2 * k * k
    b = R(num, k)
    sv = exactdp.as_scores([S(2), b, 0])
    assert sv.argmax_set == (1,)
    assert sv.gaps_exact[1] == 0 and sv.gaps_exact[0] == b - S(2)


def test_equal_irrational_scores_tie_exactly():
    # sqrt(8) and 2 sqrt(2) are the same number written differently (minimal polynomial)
    sv = exactdp.as_scores([S(8), 2 * S(2), 1])
    assert sv.argmax_set == (0, 1) and sv.gaps_exact[:2] == (0, 0)


def test_from_input_and_gaps_mp_against_exact_rationals():
    """Gaps q* - q_r computed by hand in exact rationals, then read at 30 digits."""
    sv = exactdp.ScoreVector.from_input(["1/3", 2, 0])
    assert sv.gaps_exact == (sympy.Rational(5, 3), 0, 2)
    with mpmath.workdps(40):
        want = [mpmath.mpf(5) / 3, mpmath.mpf(0), mpmath.mpf(2)]
    got = sv.gaps_mp(30)
    assert all(abs(g - w) < mpmath.mpf(10) ** -29 for g, w in zip(got, want, strict=True))
    assert exactdp.ScoreVector.from_input(sv) is sv
    ints = exactdp.ScoreVector.from_input([7, 3]).gaps_mp(20)
    assert ints == [0, 4]
    with pytest.raises(ValueError, match="weights must be a sequence of numbers"):
        exactdp.ScoreVector.from_input("12", name="weights")


def test_as_scores_func_prefixes_every_refusal():
    """``func`` names the public function in each refusal; without it there is no prefix."""
    with pytest.raises(ValueError, match=r"^f: scores\[1\] must be a finite real number"):
        as_scores([0.0, float("nan")], func="f")
    with pytest.raises(ValueError, match=r"^f: q must be non-empty"):
        as_scores(np.array([]), "q", func="f")
    with pytest.raises(ValueError, match=r"^f: scores\[0\] must be a finite real number"):
        as_scores(np.array([np.inf, 0.0]), func="f")
    with pytest.raises(ValueError, match=r"^scores\[0\] must be a finite real number"):
        as_scores([float("nan")])


def test_gap_groups_and_fresh_gaps_of_int64_scores():
    # 400 int64 scores taking the values 3, 1, 0: gaps 3 - q are 0 (x100), 2 (x200), 3 (x100)
    q = np.array([3, 1, 1, 0] * 100, dtype=np.int64)
    sv = exactdp.as_scores(q)
    groups = sv.gap_groups()
    by_gap = dict(zip(groups.gaps.tolist(), groups.counts.tolist(), strict=True))
    assert by_gap == {0.0: 100, 2.0: 200, 3.0: 100}
    values = {0.0: 10.0, 2.0: 20.0, 3.0: 30.0}
    spread = groups.gather(np.array([values[g] for g in groups.gaps.tolist()]))
    assert spread.tolist() == [values[3 - v] for v in q.tolist()]
    fresh = sv.fresh_gaps_float()
    assert fresh.tolist() == (3.0 - q).tolist() and fresh is not sv.gaps_float
    fresh[0] = -1.0  # the caller may overwrite it: the cached view is unchanged
    assert sv.gaps_float[0] == 0.0
    # few outputs, or a float vector: no grouping
    assert exactdp.as_scores(np.array([3, 1, 0], dtype=np.int64)).gap_groups() is None


def test_values_are_python_ints_or_exact_numbers():
    # integer scores of every holding (int64 array, Python ints beyond 64 bits) give Python ints
    for q in (np.array([3, -1, 7]), [2**70, 0, -(2**70)]):
        vals = as_scores(q).values
        assert all(type(v) is int for v in vals) and list(vals) == [int(v) for v in q]
    # floats by their binary value (against Fraction), exact input unchanged
    with pytest.warns(ExactConversionWarning):
        vals = as_scores([0.1, 2.0]).values
    assert [Fraction(int(v.p), int(v.q)) for v in vals] == [Fraction(0.1), Fraction(2)]
    assert as_scores([sympy.sqrt(2), sympy.Rational(1, 3)]).values == (
        sympy.sqrt(2), sympy.Rational(1, 3))


def test_distinct_gaps_regroup_to_the_exact_gaps():
    """values[inverse[r]] is output r's exact gap and counts are the multiplicities, for an
    int64 array, a tuple of big ints and exact (irrational) scores."""
    from collections import Counter

    from exactdp.scores import ScoreVector

    cases = [
        np.array([3, 1, 3, 0, 1, 1], dtype=np.int64),
        [10**30, 5, 10**30, -(10**40)],
        [sympy.sqrt(2), 1, sympy.sqrt(2), sympy.Rational(1, 3)],
    ]
    for scores in cases:
        sv = ScoreVector.from_input(scores, "scores")
        values, counts, inverse = sv.distinct_gaps()
        assert [values[k] for k in inverse] == list(sv.gaps_exact)
        assert dict(zip(values, counts, strict=True)) == dict(Counter(sv.gaps_exact))
        assert len(set(values)) == len(values)



def test_a_long_score_vector_repr_is_cut_to_its_size_and_first_scores():
    from exactdp import as_scores

    q = as_scores(list(range(50)))
    assert repr(q) == "ScoreVector(n=50, kind='int', name='scores', data=(0, 1, 2, 3, 4, 5, ...))"
    big = as_scores([str(10**60 + i) for i in range(40)])
    assert repr(big) == ("ScoreVector(n=40, kind='exact', name='scores', data=(~1.0e+60, "
                         "~1.0e+60, ~1.0e+60, ~1.0e+60, ~1.0e+60, ~1.0e+60, ...))")
    assert repr(as_scores([3, 1, 0])) == ("ScoreVector(data=array([3, 1, 0]), kind='int', "
                                          "name='scores')")
