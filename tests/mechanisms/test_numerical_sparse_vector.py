"""The numerical sparse vector technique (exactdp/mechanisms/numerical_sparse_vector.py).

Independent routes: mpmath quadrature at 40 digits of the defining integrals (Laplace
density and CDF written here from their definitions), Monte Carlo of the algorithm itself
(goodness of fit of the pattern frequencies; a KS test of a released value against its
Laplace law), a dense numeric maximisation of the log density ratio, the old class's own
exact losses (frozen in tests/programs/release_closed_forms.json: the loss is now the
program engine's) and Wang et al.'s theorem (epsilon-DP: the loss is at most epsilon on
every neighbouring pair).
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import mpmath
import numpy as np
import pytest
import scipy.stats
import sympy

import exactdp
from exactdp import NumericalSparseVector
from exactdp.audit import goodness_of_fit
from exactdp.exact.signs import is_zero
from exactdp.mechanisms import REGISTRY
from exactdp.programs import library_release as L

from .test_sparse_vector_release import close, lap_pdf, quad_pattern


def pair_loss(mech, q, q2):
    """The pair's loss by the one public route, :func:`exactdp.privacy_loss` (the loss of
    any two inputs: some pairs here are not neighbours)."""
    return exactdp.privacy_loss(mech, q, q2, allow_non_neighbour=True)


#: DP-Sniper's input patterns (dpsniper/input/pattern_generator.py, after StatDP), m queries.
def dpsniper_pairs(m):
    h = m // 2
    one = [1] * m
    return [(one, [0] + [1] * (m - 1)), (one, [2] + [1] * (m - 1)), (one, [2] + [0] * (m - 1)),
            (one, [0] + [2] * (m - 1)), (one, [2] * h + [0] * (m - h)), (one, [2] * m),
            (one, [0] * m), ([1] * h + [0] * (m - h), [0] * h + [1] * (m - h))]


def scales(mech):
    """(b1, b2, b3) in mpmath: Lap(3D/eps), Lap(6cD/eps), Lap(3cD/eps)."""
    eps = mpmath.mpf(sympy.N(mech.epsilon, 60))
    D = mpmath.mpf(sympy.N(mech.sensitivity, 60))
    return 3 * D / eps, 6 * mech.c * D / eps, 3 * mech.c * D / eps


def mp(x):
    return mpmath.mpf(str(sympy.N(sympy.Rational(x), 60)))


# ---------------------------------------------------------------- distribution
@pytest.mark.parametrize("c", [1, 2])
def test_pattern_probabilities_and_densities_match_quadrature(c):
    mech = NumericalSparseVector("1/2", "1/2", c=c, sensitivity=2)
    a = [1, 0, "5/2"]
    d = mech.distribution(a)
    assert sympy.simplify(sum(d.probabilities) - 1) == 0
    with mpmath.workdps(50):
        b1, b2, b3 = scales(mech)
        av = [mp(x) for x in a]
        for pattern, p in zip(d.outputs, d.probabilities, strict=True):
            want = quad_pattern(b1, b2, mp("1/2"), av, pattern)
            assert close(p, want)
            vals = ["-7/3", "1/5", 4]
            out = tuple(vals[i] if x else x for i, x in enumerate(pattern))
            dens = want * mpmath.fprod(lap_pdf(mp(vals[i]) - av[i], b3)
                                       for i, x in enumerate(pattern) if x)
            assert close(d.density(out), dens)


def test_sampler_fits_and_the_released_value_is_laplace():
    mech = NumericalSparseVector(1, "1/2", c=2)
    d = mech.distribution([1, 0, 2])
    fit = goodness_of_fit(d.sample_index, d.to_numpy(), 100_000, rng=17)
    assert fit.verdict == "consistent", fit
    codes, values = d.sample(100_000, rng=2)
    released = values[codes[:, 0] == 1, 0]
    assert np.isnan(values[codes[:, 0] != 1, 0]).all()
    ks = scipy.stats.kstest(released, "laplace", args=(1, 3 * 2 / 1))
    assert ks.pvalue > 0.01
    # a KS test that can fail: the wrong scale is rejected
    assert scipy.stats.kstest(released, "laplace", args=(1, 3.0)).pvalue < 1e-6
    one = d.sample(rng=1)
    assert len(one) == 3


# ---------------------------------------------------------------- the privacy loss
def numeric_sup(mech, a, b, grid):
    """Dense maximisation of |ln f_a(o) / f_b(o)|: pattern probabilities by quadrature at 30
    digits, released values on a grid (every released value of an output at the same grid
    point: the supremum puts them all beyond both answers on one side)."""
    m = len(a)
    best = mpmath.mpf(0)
    with mpmath.workdps(35):
        b1, b2, b3 = scales(mech)
        T = mp(mech.threshold)
        av, bv = [mp(x) for x in a], [mp(x) for x in b]
        for pattern in exactdp.NumericalSparseVector(1, 0, mech.c).distribution(
                [0] * m).outputs:
            r = mpmath.log(quad_pattern(b1, b2, T, av, pattern, 30)
                           / quad_pattern(b1, b2, T, bv, pattern, 30))
            k = [i for i, x in enumerate(pattern) if x]
            for v in (grid if k else [0]):
                s = sum((mpmath.log(lap_pdf(mp(v) - av[i], b3) / lap_pdf(mp(v) - bv[i], b3))
                         for i in k), mpmath.mpf(0))
                best = max(best, abs(r + s))
    return best


@pytest.mark.parametrize("c", [1, 2])
@pytest.mark.parametrize("a,b", [([0, 0], [1, 1]), ([1, 1, 1], [2, 0, 0]),
                                 ([0, 1, 0], [1, 0, 1])])
def test_loss_matches_a_dense_numeric_maximisation(a, b, c):
    mech = NumericalSparseVector(1, "1/2", c=c)
    loss = pair_loss(mech, a, b)
    got = numeric_sup(mech, a, b, [-5, -1, 0, 1, 3, 6])
    with mpmath.workdps(35):  # quadrature at 30 digits: the supremum is attained on the grid
        assert abs(got - mpmath.mpf(str(sympy.N(loss.value, 40)))) < mpmath.mpf(10) ** -28
    assert loss.attained and loss.direction in (1, -1) and "pattern" in loss.output


# the old class's own values (tests/programs/release_closed_forms.json, epsilon 1, threshold
# 1, c = 2): the loss is now the program engine's, and must be the same exact number
FROZEN = json.loads((Path(__file__).parents[1] / "programs" / "release_closed_forms.json")
                    .read_text())["losses"]["numerical_svt"]


@pytest.mark.parametrize("row", FROZEN, ids=lambda r: f"{r['first']}-{r['second']}")
def test_the_engines_loss_is_the_old_class_value_exactly(row):
    """Equal as expressions (the engine builds ``ln P/P' +- s`` as the class did: the same
    printed form), equal as numbers exactly (``exp`` of both: exponential sums, equal term
    by term; Lindemann and Weierstrass), and the library program's loss: one engine."""
    loss = pair_loss(NumericalSparseVector(1, 1, c=2), row["first"], row["second"])
    want = sympy.sympify(row["loss"])
    assert str(loss.value) == row["loss"] and loss.attained == row["attained"]
    assert is_zero(sympy.expand(sympy.exp(loss.value) - sympy.exp(want)))
    prog = exactdp.privacy_loss(L.numerical_svt(epsilon=1, threshold=1, c=2), row["first"],
                                row["second"], allow_non_neighbour=True)
    assert prog.value == loss.value and prog.output == loss.output


def test_the_witness_attains_the_value():
    mech = NumericalSparseVector(1, 0)
    a, b = [0, 0], [1, 1]
    loss = pair_loss(mech, a, b)
    assert loss.direction == -1  # the neighbour (the larger answers) is the more likely
    o = (10, None)  # pattern (True, None), released value beyond both answers upwards
    da, db = mech.distribution(a), mech.distribution(b)
    ratio = sympy.N(sympy.log(db.density(o) / da.density(o)), 30)
    assert abs(ratio - sympy.N(loss.value, 30)) < sympy.Float(10) ** -28


@pytest.mark.parametrize("eps", ["1/10", 1, 3])
@pytest.mark.parametrize("c", [1, 2])
def test_the_papers_theorem_loss_at_most_epsilon_on_every_neighbour(eps, c):
    """Wang et al.: epsilon-DP. Every vertex neighbour of a 3-query vector (3^3 - 1) and
    DP-Sniper's patterns at m = 4: the exact loss is at most epsilon."""
    mech = NumericalSparseVector(eps, 1, c=c)
    base = [1, 0, 2]
    pairs = [(base, [x + s for x, s in zip(base, shift, strict=True)])
             for shift in itertools.product((-1, 0, 1), repeat=3) if any(shift)]
    pairs += dpsniper_pairs(4) if c == 1 else []
    worst = max((pair_loss(mech, a, b).value for a, b in pairs),
                key=lambda v: float(v))
    assert exactdp.exact.compare(worst, mech.epsilon) < 0
    assert float(worst) > float(mech.epsilon) / 3  # far from trivial: the release alone


def test_more_than_the_sensitivity_exceeds_epsilon():
    """A test that can fail: answers moved by 3 D are not neighbours, and the loss exceeds
    epsilon there."""
    mech = NumericalSparseVector(1, 0)
    assert float(pair_loss(mech, [0, 0], [3, 3]).value) > 1


@pytest.mark.slow
def test_ten_queries_on_dpsnipers_pairs():
    mech = NumericalSparseVector("1/10", 1)
    losses = [pair_loss(mech, a, b).value for a, b in dpsniper_pairs(10)]
    assert all(exactdp.exact.compare(v, sympy.Rational(1, 10)) < 0 for v in losses)


# ---------------------------------------------------------------- parameters and input
def test_parameters_registry_and_capabilities():
    mech = NumericalSparseVector(2, "1/2", c=3, sensitivity=4)
    assert mech.rate == sympy.Rational(1, 2) and not mech.monotonic and mech.optimize == "max"
    assert mech.capabilities == frozenset({"density", "sample"})
    e = sympy.Symbol("e", positive=True)
    sym = NumericalSparseVector(e, 0)
    assert sym.capabilities_on(exactdp.as_scores([0])) == frozenset({"density"})
    assert sym.distribution([0]).probabilities == (sympy.Rational(1, 2),) * 2
    with pytest.raises(ValueError, match="epsilon is symbolic"):
        pair_loss(sym, [0], [1])
    spec = REGISTRY["numerical-svt"]
    assert spec.kind == "release" and spec.cls is NumericalSparseVector
    assert spec.label == "NumSVT"


@pytest.mark.parametrize("kwargs,match", [
    ({"c": 0}, "NumericalSparseVector: c must be a positive integer, got 0"),
    ({"threshold": float("inf")}, "NumericalSparseVector: threshold must be"),
    ({"threshold": "nan"}, "NumericalSparseVector: threshold must be"),
    ({"epsilon": 0}, "NumericalSparseVector: epsilon must be > 0"),
])
def test_bad_input_is_one_line_error(kwargs, match):
    with pytest.raises(ValueError, match=match) as info:
        NumericalSparseVector(**{"epsilon": 1, "threshold": 0, **kwargs})
    assert "\n" not in str(info.value)


def test_bad_pair_and_irrational_answers():
    mech = NumericalSparseVector(1, 0)
    with pytest.raises(ValueError, match=r"len\(neighbour\) must be 2"):
        pair_loss(mech, [0, 0], [1])
    with pytest.raises(ValueError, match="rational answers"):
        mech.distribution([sympy.sqrt(2)])


def test_too_many_queries_refuse_quickly_naming_the_call():
    mech = NumericalSparseVector(1, 0)
    for call, name in [(lambda: mech.distribution(list(range(100))),
                        "NumericalSparseVector.distribution"),
                       (lambda: pair_loss(mech, list(range(100)), list(range(1, 101))),
                        "privacy_loss")]:
        t0 = time.process_time()
        with pytest.raises(exactdp.cost.TooCostly, match=name):
            call()
        assert time.process_time() - t0 < 2
    with pytest.raises(exactdp.cost.TooCostly, match="answer patterns"):
        NumericalSparseVector(1, 0, c=20).distribution([0] * 20)


def test_loss_supremum_refuses_a_neighbour_of_another_length_in_one_line():
    d = NumericalSparseVector(1, 0).distribution([0, 1])
    with pytest.raises(ValueError, match=r"^privacy_loss: neighbour must be a vector of 2 "
                       r"query answers, got 3$"):
        d.loss_supremum([0, 1, 2])
