"""Properties every mechanism class must have, run over a registry (like scipy.stats'
``common_tests.py``): probabilities sum to 1, symmetry (permuting the scores permutes the
probabilities), shift invariance, the exact / mpmath / arb / float views agree, and the
sampler draws from the stated distribution (goodness of fit).

Every ``"selection"`` entry of ``exactdp.mechanisms.REGISTRY`` runs here (a mechanism joins
by being registered where it is defined), plus permute-and-flip with a monotonic score
function and sensitivity 2, and a user's exponential mechanism declared for integer scores
only. The tests read the declarations: a mechanism declaring ``score_domain="integer"`` is
fed the integer parts of the scores and shifts; every one declaring ``regular`` is checked
by ``is_symmetric``, ``is_shift_invariant`` and ``is_monotonic``.
"""

from __future__ import annotations

import functools
import zlib

import flint
import mpmath
import numpy as np
import pytest
import sympy

import exactdp
from exactdp.analysis.engines.ball import BallUndecided
from exactdp.audit import goodness_of_fit
from exactdp.numbers import ExactConversionWarning


def _factory(spec):
    return lambda e: spec.instance(e)


#: name -> (factory(epsilon) -> mechanism, has exact probabilities): the registry's selection
#: mechanisms (at epsilon, or at their example parameters when epsilon does not set them)
REGISTRY = {
    key: (_factory(spec), "exact" in spec.instance().capabilities)
    for key, spec in exactdp.mechanisms.REGISTRY.items() if spec.kind == "selection"
}
REGISTRY["pf-monotonic"] = (lambda e: exactdp.PermuteAndFlip(e, 2, True), True)


def _em(q, eps):
    w = [sympy.exp(eps * v / 2) for v in q]
    return [x / sum(w) for x in w]


REGISTRY["em-integer"] = (lambda e: exactdp.mechanism_from_function(
    _em, epsilon=e, score_domain="integer", regular=True, name="EM on integers"), True)
NAMES = sorted(REGISTRY)
SCORES = [(0, -1, -3), (2, 2, 0, "-1/2"), ("7/3", 0, 1)]
EPS = sympy.Rational(3, 4)
DPS = 30


def fed(mech, values):
    """The values as given, or their integer parts for a mechanism that declares
    ``score_domain="integer"`` (permutations and shifts of the scores stay so)."""
    if mech.score_domain == "integer":
        return [sympy.floor(sympy.Rational(v)) for v in values]
    return list(values)


def dist(name, scores, eps=EPS):
    mech = REGISTRY[name][0](eps)
    return mech.distribution(fed(mech, scores))


def mp_vals(d, dps=DPS):
    with mpmath.workdps(dps):
        return [mpmath.mpf(v) for v in d.evalf(dps)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scores", SCORES, ids=str)
def test_sums_to_one(name, scores):
    d = dist(name, scores)
    if REGISTRY[name][1]:
        assert sympy.simplify(sympy.Add(*d.probabilities) - 1) == 0
    with mpmath.workdps(DPS):
        assert abs(mpmath.fsum(mp_vals(d)) - 1) < mpmath.mpf(10) ** (2 - DPS)
    assert abs(float(np.sum(d.to_numpy())) - 1) < 1e-12
    assert np.all(d.to_numpy() >= 0)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scores", SCORES, ids=str)
def test_symmetry(name, scores):
    perm = list(range(len(scores)))[::-1]
    a = mp_vals(dist(name, scores))
    b = mp_vals(dist(name, [scores[i] for i in perm]))
    with mpmath.workdps(DPS):
        for j, i in enumerate(perm):
            assert abs(a[i] - b[j]) <= mpmath.mpf(10) ** (3 - DPS) * max(a[i], 1e-300)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shift", [5, "-1/3"])
def test_shift_invariance(name, shift):
    mech = REGISTRY[name][0](EPS)
    scores = fed(mech, SCORES[0])
    (step,) = fed(mech, [shift])
    moved = [sympy.Rational(s) + sympy.Rational(step) for s in scores]
    d, e = dist(name, scores), dist(name, moved)
    if REGISTRY[name][1]:
        for p, q in zip(d.probabilities, e.probabilities, strict=True):
            assert sympy.simplify(p - q) == 0
    with mpmath.workdps(DPS):
        for p, q in zip(mp_vals(d), mp_vals(e), strict=True):
            assert abs(p - q) <= mpmath.mpf(10) ** (3 - DPS) * p


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scores", SCORES, ids=str)
def test_views_agree(name, scores):
    """exact (50 digits) vs mpmath (30) vs arb balls (30) vs float64."""
    d = dist(name, scores)
    mp = mp_vals(d)
    balls = d.evalf_balls(DPS)
    flt = d.to_numpy()
    with mpmath.workdps(60):
        exact = [mpmath.mpf(str(sympy.N(p, 50))) for p in d.probabilities] if REGISTRY[name][1] \
            else None
        for r, (m, b, f) in enumerate(zip(mp, balls, flt, strict=True)):
            mid = mpmath.mpf(b.mid().str(40, radius=False))
            rad = mpmath.mpf(b.rad().str(5, radius=False))
            ref = exact[r] if exact is not None else m
            assert abs(mid - ref) <= rad + mpmath.mpf(10) ** (2 - DPS) * ref, (name, r)
            assert rad <= mpmath.mpf(10) ** (2 - DPS) * ref, (name, r)
            assert abs(m - ref) <= mpmath.mpf(10) ** (2 - DPS) * ref, (name, r)
            assert abs(f - float(ref)) <= 1e-13 * float(ref) + 1e-300, (name, r)
    assert isinstance(balls[0], flint.arb)


@pytest.mark.parametrize("algorithm", ["pmf", "mechanism"])
@pytest.mark.parametrize("name", NAMES)
def test_sampler_consistent(name, algorithm):
    d = dist(name, SCORES[0])
    probs = [float(p) for p in mp_vals(d, 20)]
    sampler = functools.partial(d.sample, algorithm=algorithm)
    res = goodness_of_fit(sampler, probs, 4000, rng=zlib.crc32(name.encode()), alpha=1e-4)
    assert res.verdict == "consistent", res.summary()


def test_registry_covers_every_mechanism_class_of_the_package():
    """Every public Mechanism class defined in exactdp.mechanisms is registered (the two
    wrappers of other mechanisms excepted), and the registry holds the entries it must."""
    import importlib
    import pkgutil

    classes = set()
    for info in pkgutil.iter_modules(exactdp.mechanisms.__path__):
        module = importlib.import_module(f"exactdp.mechanisms.{info.name}")
        classes |= {v for k, v in vars(module).items() if not k.startswith("_")
                    and isinstance(v, type) and issubclass(v, exactdp.Mechanism)
                    and v.__module__ == module.__name__}
    registered = {spec.cls for spec in exactdp.mechanisms.REGISTRY.values()}
    wrappers = {"Mechanism", "FunctionMechanism", "MisdeclaredMechanism"}
    assert {c.__name__ for c in classes - registered} == wrappers
    assert {"pf", "em", "rnm-exp", "rnm-gumbel", "rnm-laplace", "gaussian", "optimal",
            "top-k"} <= set(exactdp.mechanisms.REGISTRY)
    assert {"pf", "em", "gaussian", "optimal"} <= set(REGISTRY)


# ----------------------------------------------------------------- declarations
REGULAR = [name for name in NAMES if REGISTRY[name][0](EPS).regular]


def test_the_regular_declarations():
    """Declared where McKenna & Sheldon's Def. 3 holds: EM, PF, RNM returning the index
    (every noise), Gaussian noisy max, the optimal mechanism, base-2 EM; not top-k, the
    answer sequences or the released values."""
    assert {"em", "pf", "rnm-exp", "rnm-gumbel", "rnm-laplace", "gaussian", "optimal",
            "em-base2", "pf-monotonic", "em-integer"} == set(REGULAR)
    for key in ("rnm-laplace-value", "rnm-exp-value", "rnm-gumbel-value", "top-k"):
        assert not exactdp.mechanisms.REGISTRY[key].instance().regular
    assert not exactdp.SparseVector(1, 1, variant=6).regular
    assert not exactdp.mechanism_from_function(_em, epsilon=1).regular  # undeclared


def _holds(check, exact: bool) -> bool:
    """The check's verdict; without exact probabilities an equality is undecided by the
    balls (equal to 10^-120: never a counterexample), which counts as holding."""
    try:
        return check().holds
    except BallUndecided:
        if exact:
            raise
        return True


@pytest.mark.parametrize("name", REGULAR)
def test_declared_regular_mechanisms_are_symmetric_shift_invariant_and_monotone(name):
    """Exact checks (regularity.py) of every registered declaration: on the lattice
    {0,1,2}^3 for exact probabilities, on n = 2 for the balls of the Gaussian (each of its
    undecided equalities costs seconds)."""
    mech, exact = REGISTRY[name][0](EPS), REGISTRY[name][1]
    lattice = {} if exact else {"vectors": [(0, 1)]}
    shifts = (1, -1) if mech.score_domain == "integer" else (1, -1, "1/2")
    assert _holds(lambda: exactdp.is_symmetric(mech, **lattice), exact)
    assert _holds(lambda: exactdp.is_shift_invariant(mech, shifts=shifts, **lattice), exact)
    assert exactdp.is_monotonic(mech, **({} if exact else {"n": 2})).holds


def test_integer_only_mechanisms_refuse_fractions_in_one_line():
    mech = REGISTRY["em-integer"][0](EPS)
    with pytest.raises(ValueError, match=r"^FunctionMechanism.distribution: scores\[1\] must "
                       r"be an integer \(EM on integers declares score_domain='integer'\), "
                       r"got 1/2$"):
        mech.distribution([0, "1/2"])
    with pytest.warns(ExactConversionWarning):  # 2.0 is an integer: accepted
        assert mech.distribution([0, 2.0]).probabilities == tuple(_em([0, 2], EPS))
