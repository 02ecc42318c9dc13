"""The exact probability of one run (exactdp/programs/integrate.py), against independent
routes: the shipped mechanisms' closed forms, mpmath quadrature, direct summation."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import mpmath
import pytest
import sympy

import exactdp
from exactdp.programs.integrate import (
    run_cost,
    run_probability,
    run_terms,
    runs_cost,
    runs_probability,
    supplied_plan,
    supply_plan,
)
from exactdp.programs.integrate_plan import plan
from exactdp.programs.library_release import svt34_parallel
from exactdp.programs.runs import Constraint, Draw, Linear, Run
from exactdp.scores import as_scores

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational


def lin(constant, **coefs) -> Linear:
    """``constant + sum c * z_i`` from keywords ``z0=1, z3=-1``."""
    pairs = sorted((int(k[1:]), sympy.Rational(v)) for k, v in coefs.items() if v)
    return Linear(sympy.Rational(constant), tuple(pairs))


def con(expr: Linear, rel: str = ">", line: str = "prog.py:1") -> Constraint:
    return Constraint(expr, rel, line)


def neg(e: Linear) -> Linear:
    return Linear(-e.constant, tuple((i, -c) for i, c in e.coefficients))


def draw(i: int, law: str, scale, line: str = "prog.py:0") -> Draw:
    return Draw(i, law, sympy.sympify(scale), line)


def total(runs) -> dict:
    out: dict = {}
    for r in runs:
        out[r.output] = out.get(r.output, 0) + run_probability(r)
    return out


X = sympy.Symbol("X", positive=True)


def same(a, b) -> bool:
    """``a == b`` as functions of epsilon: every ``exp(k * epsilon + c)`` becomes ``X**(k *
    L) * exp(c)`` (``X`` standing for ``exp(epsilon / L)``), then exact cancellation. As
    ``epsilon`` and ``exp(epsilon / L)`` are algebraically independent functions, the
    difference vanishes identically iff the rational function in ``X`` and ``epsilon`` is 0."""
    d = sympy.sympify(a - b)
    exps = [e for e in d.atoms(sympy.exp) if e.args[0].has(EPS)]
    ks = [sympy.Poly(e.args[0], EPS) for e in exps]
    if any(k.degree() > 1 for k in ks):
        return sympy.simplify(d) == 0
    L = math.lcm(1, *[int(sympy.Rational(k.coeff_monomial(EPS)).q) for k in ks])
    sub = {e: X ** (k.coeff_monomial(EPS) * L) * sympy.exp(k.coeff_monomial(1))
           for e, k in zip(exps, ks, strict=True)}
    return sympy.cancel(sympy.expand(d.xreplace(sub))) == 0


# ---------------------------------------------------------------------- sparse vector
#: Lyu-Su-Li's scales (threshold, query) as functions of epsilon and c (the paper's
#: Figure 1 with Delta = 1), the cut-off and whether the threshold is redrawn.
SVT = {
    1: (lambda e, c: 2 / e, lambda e, c: 4 * c / e, True, False),
    2: (lambda e, c: 2 * c / e, lambda e, c: 4 * c / e, True, True),
    4: (lambda e, c: 4 / e, lambda e, c: 4 / (3 * e), True, False),
    6: (lambda e, c: 2 / e, lambda e, c: 2 / e, False, False),
}


def svt_runs(variant: int, eps, threshold, c: int, q, law: str = "laplace") -> list[Run]:
    """Every run of the sparse vector program on ``q``, built by hand (``law``: of every
    noise)."""
    tscale, qscale, stops, fresh = SVT[variant]
    runs: list[Run] = []

    def walk(i, draws, cons, out, count, rho):
        if i == len(q):
            runs.append(Run(tuple(draws), tuple(cons), sympy.Integer(1), tuple(out)))
            return
        if stops and count == c:
            walk(i + 1, draws, cons, out + [None], count, rho)
            return
        if rho is None:
            rho = len(draws)
            draws = draws + [draw(rho, law, tscale(eps, c), "svt.py:2")]
        nu = len(draws)
        draws = draws + [draw(nu, law, qscale(eps, c), "svt.py:5")]
        above = lin(sympy.Rational(q[i]) - threshold, **{f"z{nu}": 1, f"z{rho}": -1})
        walk(i + 1, draws, cons + [con(above, ">=", "svt.py:5")], out + [True], count + 1,
             None if fresh else rho)
        walk(i + 1, draws, cons + [con(neg(above), ">", "svt.py:5")], out + [False], count,
             rho)

    walk(0, [], [], [], 0, None)
    return runs


@pytest.mark.parametrize("variant,c,q,threshold", [
    (1, 1, [2, 0, 1], 1),
    (1, 2, [2, 0, 1, 3], 1),
    (2, 2, [2, 0, 1], R(1, 2)),
    (4, 1, [0, 1, 1], 0),
    (6, 1, [1, -1, R(1, 3)], 0),
])
@pytest.mark.parametrize("eps", [EPS, R(1, 2)])
def test_sparse_vector_runs_equal_the_class(variant, c, q, threshold, eps):
    sv = exactdp.SparseVector(eps, threshold, c, variant)
    assert sv.scale == SVT[variant][0](eps, c)
    d = sv.distribution(q)
    got = total(svt_runs(variant, eps, threshold, c, q))
    assert set(got) == set(d.outputs)
    for o, p in zip(d.outputs, d.probabilities, strict=True):
        assert same(got[o], p), (o, got[o], p)


def test_sparse_vector_runs_sum_to_one_and_terms_match():
    runs = svt_runs(1, EPS, 1, 2, [2, 0, 1, 3])
    assert same(sum(run_probability(r) for r in runs), 1)
    t = run_terms(runs[3])
    assert t is not None and t.unit == EPS
    assert same(t.expr(), run_probability(runs[3]))


@pytest.mark.parametrize("variant,q", [(1, [2, 0, 1, 3]), (2, [1, 1, 0]), (4, [0, R(1, 2), 1]),
                                       (6, [1, -1, 1])])
def test_general_engine_equals_the_sparse_vector_route_term_by_term(variant, q):
    """Two routes, one closed form: the general piecewise integral and the sparse
    vector's cached one give the same ``{(e, W): q}`` mappings."""
    for r in svt_runs(variant, EPS, 1, 2, q):
        fast, slow = run_terms(r), run_terms(r, algorithm="general")
        assert fast is not None and slow is not None
        assert fast.numerator == slow.numerator and fast.denominator == slow.denominator


def test_unknown_algorithm_is_refused():
    r = svt_runs(1, EPS, 0, 1, [0])[0]
    with pytest.raises(ValueError, match="run_probability: algorithm must be one of"):
        run_probability(r, algorithm="fast")


# ---------------------------------------------------------------------- noisy max
def rnm_runs(law: str, scale, q) -> list[Run]:
    n = len(q)
    draws = tuple(draw(i, law, scale, "rnm.py:3") for i in range(n))
    runs = []
    for w in range(n):
        cons = tuple(con(lin(R(q[w]) - R(q[j]), **{f"z{w}": 1, f"z{j}": -1}), ">",
                         "rnm.py:4") for j in range(n) if j != w)
        runs.append(Run(draws, cons, sympy.Integer(1), w))
    return runs


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
@pytest.mark.parametrize("eps", [EPS, R(1, 3)])
@pytest.mark.parametrize("q", [[0, -1], [2, 0, 1], [1, 1, 0, R(-1, 2)]])
def test_report_noisy_max_runs(noise, eps, q):
    d = exactdp.ReportNoisyMax(eps, noise=noise).distribution(q)
    got = total(rnm_runs(noise, 2 / eps, q))
    for w, p in enumerate(d.probabilities):
        assert same(got[w], p), (w, got[w], p)


@pytest.mark.parametrize("eps", [EPS, R(1, 3)])
@pytest.mark.parametrize("q", [[0, -1], [2, 0, 1], [1, 1, 0, R(-1, 2)]])
def test_gumbel_argmax_is_the_exponential_mechanism(eps, q):
    d = exactdp.ExponentialMechanism(eps).distribution(q)
    runs = rnm_runs("gumbel", 2 / eps, q)
    for w, p in enumerate(d.probabilities):
        assert same(run_probability(runs[w]), p)
        t = run_terms(runs[w])
        assert t is not None and same(t.expr(), p)


def test_gumbel_lower_bounds_by_inclusion_exclusion():
    """argmin with Gumbel noise (leaves bounded below) and a two-sided leaf, against
    quadrature of ``int f(z) prod (F(z + kU) - F(z + kL)) dz``."""
    b = R(3, 2)
    d = tuple(draw(i, "gumbel", b) for i in range(3))
    cons = (con(lin(1, z1=1, z0=-1)),              # z1 > z0 - 1
            con(lin(R(1, 2), z0=1, z2=-1)),        # z2 < z0 + 1/2
            con(lin(1, z2=1, z0=-1)))              # z2 > z0 - 1
    got = run_probability(Run(d, cons, 1, 0))
    mpmath.mp.dps = 30
    bb = mpmath.mpf(3) / 2

    def F(x):
        return mpmath.exp(-mpmath.exp(-x / bb))

    def f(z):
        return mpmath.exp(-z / bb) * F(z) / bb

    ref = mpmath.quad(lambda z: f(z) * (1 - F(z - 1)) * (F(z + mpmath.mpf(1) / 2) - F(z - 1)),
                      [-20, -5, 0, 5, 20, 60, 120, 200])  # the tails are below 1e-50
    assert abs(sympy.N(got, 30) - sympy.Float(ref, 30)) < sympy.Float("1e-25")


# ---------------------------------------------------------------------- quadrature
def _cdf(law, b, x):
    if law == "laplace":
        return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2
    return mpmath.mpf(0) if x < 0 else 1 - mpmath.exp(-x / b)


def _pdf(law, b, x):
    if law == "laplace":
        return mpmath.exp(-abs(x) / b) / (2 * b)
    return mpmath.mpf(0) if x < 0 else mpmath.exp(-x / b) / b


def _random_star(rng: random.Random):
    laws = [rng.choice(["laplace", "exponential"]) for _ in range(rng.randint(2, 4))]
    scales = [R(rng.choice([1, 2, 3, 4]), rng.choice([1, 2, 3])) for _ in laws]
    draws = tuple(draw(i, law, s) for i, (law, s) in enumerate(zip(laws, scales, strict=True)))
    cons = []
    for leaf in range(1, len(laws)):
        for _ in range(rng.randint(1, 2)):
            cl = rng.choice([1, -1, 2, R(-1, 2)])
            cc = rng.choice([-1, 1, R(3, 2)])
            k = R(rng.randint(-4, 4), rng.choice([1, 2]))
            cons.append(con(lin(k, **{f"z{leaf}": cl, "z0": cc}), rng.choice([">", ">="])))
    if rng.random() < 0.5:
        cons.append(con(lin(R(rng.randint(-2, 2)), z0=1), ">"))   # the centre's own bound
    return draws, tuple(cons)


def _quadrature(draws, cons) -> mpmath.mpf:
    """``int pdf_0(z) prod_leaves P(leaf's comparisons hold | z0 = z) dz`` by mpmath, each
    leaf's probability from its interval ``(max lower, min upper)``."""
    def leaf_prob(leaf, z):
        lo, hi = -mpmath.inf, mpmath.inf
        for c in cons:
            co = dict(c.expr.coefficients)
            if leaf not in co:
                continue
            val = (mpmath.mpf(c.expr.constant.p) / c.expr.constant.q
                   + sum(mpmath.mpf(v.p) / v.q * z for i, v in co.items() if i != leaf))
            a = mpmath.mpf(co[leaf].p) / co[leaf].q
            if a > 0:
                lo = max(lo, -val / a)
            else:
                hi = min(hi, -val / a)
        if hi <= lo:
            return mpmath.mpf(0)
        d = draws[leaf]
        b = mpmath.mpf(d.scale.p) / d.scale.q
        return _cdf(d.law, b, hi) - _cdf(d.law, b, lo)

    def centre_ok(z):
        return all(c.expr.constant + z * dict(c.expr.coefficients)[0] > 0 for c in cons
                   if len(c.expr.coefficients) == 1 and c.expr.coefficients[0][0] == 0)

    b0 = mpmath.mpf(draws[0].scale.p) / draws[0].scale.q

    def integrand(z):
        if not centre_ok(z):
            return mpmath.mpf(0)
        out = _pdf(draws[0].law, b0, z)
        for leaf in range(1, len(draws)):
            out *= leaf_prob(leaf, z)
        return out

    # where the integrand is not smooth: a leaf's end (affine in z) crosses 0 or another
    # end of the same leaf, the centre's own bounds, 0
    kinks = {sympy.Integer(0)}
    zs = sympy.Symbol("zs")
    for leaf in range(1, len(draws)):
        ends = []
        for c in cons:
            co = dict(c.expr.coefficients)
            if leaf in co:
                ends.append(-(c.expr.constant + co.get(0, 0) * zs) / co[leaf])
        for i, e in enumerate(ends):
            kinks.update(sympy.solve(e, zs))
            for e2 in ends[:i]:
                kinks.update(sympy.solve(e - e2, zs))
    for c in cons:
        if len(c.expr.coefficients) == 1 and c.expr.coefficients[0][0] == 0:
            kinks.add(-c.expr.constant / c.expr.coefficients[0][1])
    pts = sorted(mpmath.mpf(k.p) / k.q for k in kinks)
    grid = [-mpmath.inf, pts[0] - 20, *pts, pts[-1] + 20, mpmath.inf]
    return mpmath.quad(integrand, grid)


@pytest.mark.parametrize("seed", range(8))
def test_random_stars_against_quadrature(seed):
    rng = random.Random(seed)
    draws, cons = _random_star(rng)
    got = run_probability(Run(draws, cons, sympy.Integer(1), None))
    mpmath.mp.dps = 30
    ref = _quadrature(draws, cons)
    assert abs(sympy.N(got, 30) - sympy.Float(ref, 30)) < sympy.Float("1e-20"), (got, ref)


def test_symbolic_rates_without_a_common_unit():
    """Scales ``1/epsilon`` and ``sqrt(2)/epsilon``: the sympy route, checked at a value."""
    d = (draw(0, "laplace", 1 / EPS), draw(1, "laplace", sympy.sqrt(2) / EPS))
    r = Run(d, (con(lin(1, z1=1, z0=-1)),), 1, "x")
    assert run_terms(r) is None
    got = run_probability(r).subs(EPS, 1)
    mpmath.mp.dps = 30
    ref = mpmath.quad(lambda z: _pdf("laplace", 1, z) * (1 - _cdf("laplace", mpmath.sqrt(2),
                                                                    z - 1)),
                      [-mpmath.inf, 0, 1, mpmath.inf])
    assert abs(sympy.N(got, 30) - sympy.Float(ref, 30)) < sympy.Float("1e-25")


def test_symbolic_rates_discrete():
    """Discrete Laplace of scales ``1/epsilon`` and ``sqrt(2)/epsilon``: the sympy route,
    against direct summation at epsilon = 4."""
    mpmath.mp.dps = 30
    d = (draw(0, "discrete_laplace", 1 / EPS), draw(1, "discrete_laplace", sympy.sqrt(2) / EPS))
    r = Run(d, (con(lin(1, z1=1, z0=-1), ">="), con(lin(3, z0=1), ">")), 1, "x")
    assert run_terms(r) is None
    got = run_probability(r).subs(EPS, 4)
    ref = _brute(tuple(draw(i, x.law, x.scale.subs(EPS, 4)) for i, x in enumerate(d)),
                 r.constraints, 40)
    assert abs(sympy.N(got, 30) - sympy.Float(ref, 30)) < sympy.Float("1e-25")


# ---------------------------------------------------------------------- discrete
def _dl_pmf(b, k):
    p = mpmath.exp(-1 / mpmath.mpf(sympy.N(b, 40)))
    return (1 - p) / (1 + p) * p ** abs(k)


def _brute(draws, cons, K=80) -> mpmath.mpf:
    """Direct summation over the centre z0 and each leaf in [-K, K]."""
    def holds(c, vals):
        v = c.expr.constant + sum(a * vals[i] for i, a in c.expr.coefficients)
        return {">": v > 0, ">=": v >= 0, "==": v == 0, "!=": v != 0}[c.relation]

    tot = mpmath.mpf(0)
    for z in range(-K, K + 1):
        vals = {0: z}
        if not all(holds(c, vals) for c in cons if {i for i, _ in c.expr.coefficients} == {0}):
            continue
        term = _dl_pmf(draws[0].scale, z)
        for leaf in range(1, len(draws)):
            s = mpmath.mpf(0)
            for k in range(-K, K + 1):
                vals[leaf] = k
                if all(holds(c, vals) for c in cons
                       if leaf in {i for i, _ in c.expr.coefficients}):
                    s += _dl_pmf(draws[leaf].scale, k)
            term *= s
        tot += term
    return tot


@pytest.mark.parametrize("rels", [(">", ">="), (">=", "=="), ("!=", ">"), ("==", "!=")])
def test_discrete_laplace_against_direct_summation(rels):
    mpmath.mp.dps = 30
    d = (draw(0, "discrete_laplace", 2), draw(1, "discrete_laplace", 1),
         draw(2, "discrete_laplace", R(3, 2)))
    cons = (con(lin(R(1, 2), z1=1, z0=-1), rels[0]),
            con(lin(-1, z2=1, z0=-1), rels[1]),
            con(lin(3, z2=-1), ">="),
            con(lin(2, z0=1), ">"))
    got = run_probability(Run(d, cons, 1, None))
    ref = _brute(d, cons)
    assert abs(sympy.N(got, 30) - sympy.Float(ref, 30)) < sympy.Float("1e-25"), (got, ref)


def test_discrete_three_way_comparison_sums_to_one_symbolically():
    """``z0 > z1 + 1``, ``z0 == z1 + 1``, ``z0 < z1 + 1`` with scales ``1/eps`` and
    ``2/eps``: the three runs sum to 1 for every epsilon, and ``!=`` is the complement of
    ``==``."""
    d = (draw(0, "discrete_laplace", 1 / EPS), draw(1, "discrete_laplace", 2 / EPS))
    e = lin(-1, z0=1, z1=-1)
    probs = [run_probability(Run(d, (con(x, rel),), 1, k))
             for k, (x, rel) in enumerate([(e, ">"), (e, "=="), (neg(e), ">")])]
    assert same(sum(probs), 1)
    ne = run_probability(Run(d, (con(e, "!="),), 1, 0))
    assert same(ne + probs[1], 1)
    t = run_terms(Run(d, (con(e, "=="),), 1, 0))
    assert t is not None and same(t.expr(), probs[1])


@pytest.mark.parametrize("law", ["discrete_laplace", "exponential"])
def test_above_threshold_with_other_noise_sums_to_one(law):
    """AboveThreshold (Algorithm 1, c = 1) with discrete Laplace or exponential noise:
    its runs' probabilities sum to 1 for every epsilon, and one run matches direct
    summation (discrete) at epsilon = 4 (scales 1/2 and 1: the truncation at 60 is
    below 1e-25)."""
    runs = svt_runs(1, EPS, R(1, 2), 1, [1, 0, 2], law=law)
    assert same(sum(run_probability(r) for r in runs), 1)
    if law == "discrete_laplace":
        mpmath.mp.dps = 30
        r = next(r for r in runs if r.output == (False, True, None))
        one = Run(tuple(draw(d.index, d.law, d.scale.subs(EPS, 4)) for d in r.draws),
                  r.constraints, 1, r.output)
        got = run_probability(r).subs(EPS, 4)
        assert abs(sympy.N(got, 30) - sympy.Float(_brute(one.draws, one.constraints, 60), 30)
                   ) < sympy.Float("1e-25")


def test_discrete_strict_and_non_strict_differ_on_integers_only():
    d = (draw(0, "discrete_laplace", 1),)
    p = {rel: run_probability(Run(d, (con(lin(-2, z0=1), rel),), 1, 0)) for rel in (">", ">=")}
    x = sympy.exp(-1)
    assert same(p[">="], x**2 / (1 + x))     # P(z >= 2) = p^2 / (1 + p)
    assert same(p[">"], x**3 / (1 + x))
    half = {rel: run_probability(Run(d, (con(lin(R(-3, 2), z0=1), rel),), 1, 0))
            for rel in (">", ">=")}
    assert same(half[">"], half[">="]) and same(half[">"], p[">="])


# ---------------------------------------------------------------------- semantics
def test_continuous_point_constraints_and_weights():
    d = (draw(0, "laplace", 1 / EPS), draw(1, "exponential", 2 / EPS))
    e = lin(R(1, 3), z0=1, z1=-1)
    assert run_probability(Run(d, (con(e, "=="),), 1, 0)) == 0
    assert same(run_probability(Run(d, (con(e, "!="),), R(1, 3), 0)), R(1, 3))
    assert run_probability(Run(d, (con(lin(-1), ">="),), 1, 0)) == 0    # constant, false
    w = 1 / (sympy.exp(EPS) + 1)
    p = run_probability(Run(d, (con(e, ">"),), w, 0))
    q = run_probability(Run(d, (con(neg(e), ">"),), 1 - w, 0))
    assert same(p / w + q / (1 - w), 1)


def test_exponential_centre_with_own_interval_sums_to_one():
    """A centre confined to [1, 3] or outside, with two leaves: all eight runs sum to 1."""
    d = (draw(0, "exponential", 1 / EPS), draw(1, "laplace", 2 / EPS),
         draw(2, "exponential", R(1, 2) / EPS))
    inside = [con(lin(-1, z0=1), ">="), con(lin(3, z0=-1), ">")]
    runs = []
    for where, a, b in itertools.product(range(3), (True, False), (True, False)):
        own = [inside] if where == 0 else [[con(neg(inside[0].expr), ">")],
                                            [con(neg(inside[1].expr), ">=")]][where - 1:where]
        e1 = lin(R(1, 2), z1=1, z0=-1)
        e2 = lin(-1, z2=2, z0=-1)
        cons = [*own[0], con(e1 if a else neg(e1)), con(e2 if b else neg(e2))]
        runs.append(Run(d, tuple(cons), 1, (where, a, b)))
    assert same(sum(run_probability(r) for r in runs), 1)


def test_cost_grows_with_the_leaves():
    small = svt_runs(6, EPS, 0, 1, [0, 1])[0]
    big = svt_runs(6, EPS, 0, 1, [0, 1, 2, 3, 4, 5, 6, 7])[0]
    assert 0 < run_cost(small) < run_cost(big)
    gum = rnm_runs("gumbel", 2, [0, 1, 2])[0]
    assert run_cost(gum) > 0


def test_run_terms_are_fractions_of_one_unit():
    """Algorithm 4 (rates 1/4 and 3/4) keeps no epsilon power: rational in x, as
    SparseVector.rational_obstruction says; Algorithm 6 on unequal answers keeps one."""
    runs = svt_runs(4, EPS, 0, 1, [0, 1, 1])
    assert exactdp.SparseVector(EPS, 0, 1, 4).rational_obstruction(
        exactdp.scores.as_scores([0, 1, 1])) is None
    six = [run_terms(r) for r in svt_runs(6, EPS, 0, 1, [0, 1])]
    assert not all(t is not None and t.rational_in_x for t in six)
    for r in runs:
        t = run_terms(r)
        assert t is not None and t.rational_in_x
        assert t.denominator == {(0, Fraction(0)): Fraction(1)}
        assert all(isinstance(q, Fraction) and isinstance(w, Fraction)
                   for (_, w), q in t.numerator.items())


def test_discrete_leaf_between_two_bounds_listed_upper_first():
    """A discrete Laplace leaf with its upper bound listed before its lower one,
    ``z0 <= z1 < 2 z0 + 2`` (empty for z0 < -1, so the piece ends must include the point
    where the lower bound passes the upper), against direct summation."""
    mpmath.mp.dps = 30
    d = (draw(0, "discrete_laplace", 2), draw(1, "discrete_laplace", 1))
    cons = (con(lin(2, z1=-1, z0=2), ">"),      # z1 < 2 z0 + 2
            con(lin(0, z1=1, z0=-1), ">="),     # z1 >= z0
            con(lin(5, z0=1), ">="), con(lin(5, z0=-1), ">="))
    got = run_probability(Run(d, cons, 1, None))
    ref = _brute(d, cons)
    assert abs(sympy.N(got, 30) - sympy.Float(ref, 30)) < sympy.Float("1e-25"), (got, ref)


def test_cost_of_symbolic_rates_is_a_hundred_times_the_rational_route():
    """run_cost's stated factor: scales with no common rational unit (1/eps, sqrt(2)/eps)
    cost 100 times the same run with a common unit (1/eps, 2/eps), on the same route (an
    exponential centre: not the sparse vector's integer-keyed one)."""
    c = (con(lin(1, z1=1, z0=-1)),)
    sym = Run((draw(0, "exponential", 1 / EPS), draw(1, "laplace", sympy.sqrt(2) / EPS)), c,
              1, "x")
    rat = Run((draw(0, "exponential", 1 / EPS), draw(1, "laplace", 2 / EPS)), c, 1, "x")
    assert run_terms(sym) is None and run_terms(rat) is not None
    assert run_cost(sym) == pytest.approx(100 * run_cost(rat), rel=1e-12)


def test_cost_of_gumbel_leaves_doubles_with_each_lower_bound():
    """Each Gumbel leaf bounded below doubles the inclusion-exclusion terms
    (``F(z + kU) - F(z + kL)``): with the same two leaves and 0, 1, 2 lower bounds the
    costs step by a factor 2 (the second differences)."""
    d = tuple(draw(i, "gumbel", R(3, 2)) for i in range(3))
    up1, up2 = con(lin(0, z0=1, z1=-1)), con(lin(R(1, 2), z0=1, z2=-1))
    low1, low2 = con(lin(1, z1=1, z0=-1)), con(lin(1, z2=1, z0=-1))
    c0 = run_cost(Run(d, (up1, up2), 1, 0))
    c1 = run_cost(Run(d, (low1, up2), 1, 0))
    c2 = run_cost(Run(d, (low1, up2, low2), 1, 0))
    assert 0 < c0 < c1 < c2
    assert (c2 - c1) / (c1 - c0) == pytest.approx(2, rel=1e-9)


def test_a_supplied_plan_is_read_for_that_run_object_only():
    eps = sympy.Integer(1)
    d = (Draw(0, "laplace", 1 / eps, "f.py:1"), Draw(1, "laplace", 1 / eps, "f.py:2"))
    c = Constraint(Linear(sympy.Integer(0), ((0, sympy.Integer(1)), (1, sympy.Integer(-1)))),
                   ">", "f.py:3")
    run, twin = Run(d, (c,), sympy.Integer(1), 0), Run(d, (c,), sympy.Integer(1), 0)
    supply_plan(run, plan(run))
    assert supplied_plan(run) == plan(run) and supplied_plan(twin) is None
    assert run_probability(run) == run_probability(twin) == sympy.Rational(1, 2)
    made = []  # a function: called on the first read only
    supply_plan(twin, lambda: made.append(1) or plan(twin))
    assert supplied_plan(twin) == plan(twin) and supplied_plan(twin) == plan(twin)
    assert made == [1]


def test_runs_probability_is_the_sum_of_the_runs():
    # SVT34Parallel's runs on 3 answers (one unit), each run integrated alone; the sum over
    # every run is 1
    runs = svt34_parallel(epsilon=sympy.Rational(1, 10), c=1).trace(as_scores([1, 0, 2])).runs
    alone = sympy.Add(*(run_probability(r) for r in runs[:7]))
    assert sympy.expand(runs_probability(runs[:7]) - alone) == 0
    assert sympy.expand(runs_probability(runs) - 1) == 0


def test_runs_cost_samples_first_and_sums_exactly_under_the_limit():
    """70 runs of an argmax over 70 answers: under the limit the exact sum of run_cost;
    with a limit far below it, the mean of a spread sample of 64 runs times 70, within
    a factor 2 of that sum."""
    runs = rnm_runs("laplace", 2, list(range(70)))
    exact = sum(run_cost(r) for r in runs)
    assert runs_cost(runs, 1e9) == exact
    sampled = runs_cost(runs, 1e-9)
    assert sampled != exact and exact / 2 < sampled < 2 * exact
    assert runs_cost(runs[:10], 1e-9) == sum(run_cost(r) for r in runs[:10])  # too few


def test_a_discrete_argmax_of_twenty_answers_is_priced_as_its_laurent_route():
    """A discrete-noise argmax of 20 answers was refused at about 436 s estimated (the
    dictionary route's price) for 0.3-0.4 s of CPU: the Laurent route's price lets it run.
    Its 20 exact probabilities sum to 1 (to 60 digits) and the largest answer's is the
    direct double sum over the noises' supports (truncated past exp(-100))."""
    from exactdp.programs import argmax, discrete_laplace, program

    @program(output="selection")
    def drnm(q, epsilon):
        return argmax([a + discrete_laplace(2 / epsilon) for a in q])

    q = list(range(20))
    probs = drnm(epsilon=1).distribution(q).probabilities
    assert abs(sympy.N(sum(probs) - 1, 60)) < 1e-55
    with mpmath.workdps(30):
        p = mpmath.exp(-mpmath.mpf(1) / 2)
        c = (1 - p) / (1 + p)
        pmf = {k: c * p ** abs(k) for k in range(-260, 261)}
        below: dict[int, mpmath.mpf] = {}
        acc = mpmath.mpf(0)
        for k in range(-260, 261):
            acc += pmf[k]
            below[k] = acc  # P(noise <= k)
        # index 19 wins: 19 + z > a + z_a for every a < 19 (ties go to the first index, so
        # a strict win over each earlier answer): z_a <= 18 - a + z
        want = mpmath.fsum(pmf[z] * mpmath.fprod(below[min(260, 18 - a + z)] for a in q[:-1])
                           for z in range(-200, 201))
    assert abs(sympy.N(probs[19], 30) - sympy.Float(want, 30)) < 1e-25
