"""Properties every mechanism class must have, run over a registry (like scipy.stats'
``common_tests.py``): probabilities sum to 1, symmetry (permuting the scores permutes the
probabilities), shift invariance, the exact / mpmath / arb / float views agree, and the
sampler draws from the stated distribution (goodness of fit).

Every ``"selection"`` entry of ``exactdp.mechanisms.REGISTRY`` runs here (a mechanism joins
by being registered where it is defined), plus permute-and-flip with a monotonic score
function and sensitivity 2.
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
from exactdp.audit import goodness_of_fit


def _factory(spec):
    return lambda e: spec.instance(e)


#: name -> (factory(epsilon) -> mechanism, has exact probabilities): the registry's selection
#: mechanisms (at epsilon, or at their example parameters when epsilon does not set them)
REGISTRY = {
    key: (_factory(spec), "exact" in spec.instance().capabilities)
    for key, spec in exactdp.mechanisms.REGISTRY.items() if spec.kind == "selection"
}
REGISTRY["pf-monotonic"] = (lambda e: exactdp.PermuteAndFlip(e, 2, True), True)
NAMES = sorted(REGISTRY)
SCORES = [(0, -1, -3), (2, 2, 0, "-1/2"), ("7/3", 0, 1)]
EPS = sympy.Rational(3, 4)
DPS = 30


def dist(name, scores, eps=EPS):
    factory, _ = REGISTRY[name]
    return factory(eps).distribution(list(scores))


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
    scores = SCORES[0]
    moved = [sympy.Rational(s) + sympy.Rational(shift) for s in scores]
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
