"""exactdp.analysis.engines.sparse: the sparse engine against the dense one, its unit-interval
sign against root isolation."""


import itertools

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.analysis.check import check_dp
from exactdp.analysis.loss import privacy_loss

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational


def _same(a, b) -> bool:
    return sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=2, max_size=3),
    st.data(),
    st.sampled_from(["pf", "em", "rnm"]),
)
def test_sparse_engine_agrees_with_dense_engine(q, data, which):
    """Force the sparse engine on small gaps (limit 0) and compare with the dense one."""
    from exactdp.analysis.common import score_vector
    from exactdp.analysis.engines import select as select_mod
    from exactdp.analysis.engines import sparse as sparse_mod
    from exactdp.analysis.engines.select import make_engine

    eps = R(2, 3)
    mech = {
        "pf": exactdp.PermuteAndFlip(eps),
        "em": exactdp.ExponentialMechanism(eps),
        "rnm": exactdp.ReportNoisyMax(eps, noise="exponential"),
    }[which]
    moves = data.draw(st.lists(st.integers(-1, 1), min_size=len(q), max_size=len(q)))
    q2 = [a + b for a, b in zip(q, moves, strict=True)]
    dense = privacy_loss(mech, q, q2)
    dense_check = check_dp(mech, q)
    saved = select_mod.DENSE_DEGREE_LIMIT
    select_mod.DENSE_DEGREE_LIMIT = sparse_mod.DENSE_DEGREE_LIMIT = 0
    try:
        if max(q) != min(q):
            engine = make_engine(mech, [score_vector(q, "scores", "test")], "test")
            assert isinstance(engine, sparse_mod.SparseXEngine)
        sparse = privacy_loss(mech, q, q2)
        sparse_check = check_dp(mech, q)
        try:
            sym = privacy_loss(mech.with_epsilon(EPS), q, q2)
        except ValueError as exc:  # not decided by Descartes' rule: said, not guessed
            assert "Descartes" in str(exc)
            sym = None
    finally:
        select_mod.DENSE_DEGREE_LIMIT = sparse_mod.DENSE_DEGREE_LIMIT = saved
    # the sparse engine cancels only monomial factors, so compare values at 60 digits
    assert _close(dense.value, sparse.value)
    assert dense.output == sparse.output or _same(dense.value, 0)
    for a, b in zip(dense.ratios, sparse.ratios, strict=True):
        assert _close(a, b)
    assert dense_check.holds == sparse_check.holds
    assert _close(dense_check.loss, sparse_check.loss)
    if sym is not None and sym.output is not None:
        assert _close(sym.value.subs(EPS, eps), dense.value)


def _close(a, b) -> bool:
    a, b = sympy.sympify(a), sympy.sympify(b)
    if a.has(sympy.oo, sympy.nan) or b.has(sympy.oo, sympy.nan):
        return a == b
    return _same(a, b) or abs(sympy.N(a - b, 60)) < sympy.Float(10) ** -45


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(-4, 4)), min_size=1, max_size=6))
def test_sparse_unit_sign_agrees_with_root_isolation(terms):
    """Descartes / partial-sum rules vs exact root isolation (algebra.sign_on_unit_interval)."""
    import flint

    from exactdp.analysis.engines.sparse import sparse_unit_sign as _sparse_unit_sign
    from exactdp.exact.unit_interval import sign_on_unit_interval

    coeffs: dict[int, int] = {}
    for e, c in terms:
        coeffs[e] = coeffs.get(e, 0) + c
    items = sorted((e, sympy.Integer(c)) for e, c in coeffs.items() if c)
    if not items:
        return
    dense = flint.fmpq_poly([coeffs.get(k, 0) for k in range(max(coeffs) + 1)])
    truth = sign_on_unit_interval(dense).constant_sign
    try:
        got = _sparse_unit_sign(items)
    except ValueError as exc:
        # undecided is allowed only beyond the rules' scope (docstring): at least two sign
        # variations of the coefficients, with f(1) of the sign at 0+ or f(1) = 0
        signs = [1 if c > 0 else -1 for _, c in items]
        assert sum(1 for u, v in itertools.pairwise(signs) if u != v) >= 2, items
        assert "not decided by Descartes' rule" in str(exc) and "\n" not in str(exc)
        return
    assert got == truth


def test_sparse_unit_sign_examples():
    from exactdp.analysis.engines.sparse import sparse_unit_sign as _sparse_unit_sign

    Z = sympy.Integer
    A = 10**300
    # (1 - y)(-2 + y^A (1 + y)) = -2 + 2y + y^A - y^(A+2): double root at 1, < 0 inside
    assert _sparse_unit_sign([(0, Z(-2)), (1, Z(2)), (A, Z(1)), (A + 2, Z(-1))]) == -1
    assert _sparse_unit_sign([(0, Z(1)), (A, Z(-1))]) == 1  # 1 - y^A
    assert _sparse_unit_sign([(0, Z(1)), (A, Z(-3))]) is None  # 1 - 3 y^A changes sign
    assert _sparse_unit_sign([(A, Z(2)), (A + 1, Z(1))]) == 1


def _pf_probabilities(q, eps):
    """Permute-and-flip by enumeration: over the n! orders, the first item whose coin
    (heads with probability exp(eps (q_i - max q) / 2)) comes up heads is released."""
    import itertools
    import math

    import mpmath

    top = max(q)
    heads = [mpmath.exp(eps * (qi - top) / 2) for qi in q]
    out = [mpmath.mpf(0)] * len(q)
    for order in itertools.permutations(range(len(q))):
        stay = mpmath.mpf(1) / math.factorial(len(q))
        for i in order:
            out[i] += stay * heads[i]
            stay *= 1 - heads[i]
    return out


def test_sparse_engine_compares_the_loss_with_rational_and_irrational_epsilons(monkeypatch):
    """PF(2/3) on [0, 3, 1] vs [1, 2, 1]: the exact loss (0.5814528775..., the largest
    log ratio of PF's probabilities by enumeration); with the sparse engine forced, check_dp
    decides ``loss <= epsilon`` exactly both for epsilon a multiple of its unit eps/2 (a
    monomial in x) and for an irrational epsilon (an exact sign of the difference)."""
    import mpmath

    from exactdp.analysis.engines import select as select_mod
    from exactdp.analysis.engines import sparse as sparse_mod

    eps = R(2, 3)
    mech = exactdp.PermuteAndFlip(eps)
    q, q2 = [0, 3, 1], [1, 2, 1]
    loss = privacy_loss(mech, q, q2).value
    with mpmath.workdps(40):
        third = mpmath.mpf(2) / 3
        ref = max(abs(mpmath.log(a / b)) for a, b in
                  zip(_pf_probabilities(q, third), _pf_probabilities(q2, third), strict=True))
        assert abs(sympy.N(loss, 40) - sympy.Float(ref, 40)) < 1e-30
    monkeypatch.setattr(select_mod, "DENSE_DEGREE_LIMIT", 0)
    monkeypatch.setattr(sparse_mod, "DENSE_DEGREE_LIMIT", 0)
    for claim in (eps / 2, eps / 4, eps, 3 * eps / 4, sympy.log(2) / 2, sympy.log(2)):
        res = check_dp(mech, q, q2, epsilon=claim)
        assert res.holds == bool(sympy.N(loss - claim, 30) <= 0), claim
        assert _close(res.loss, loss)


def test_expands_powers_and_its_refusal():
    """sympy turns exp(-3*log(3)/N) into a power of 3 (expanded for a sparse exponent near
    1e20), not exp(-3/N) nor exp(-3*sqrt(2)/N) nor a symbolic epsilon."""
    import pytest

    from exactdp.analysis.engines.sparse import check_sparse_epsilon, expands_powers

    log3 = sympy.log(3)
    assert expands_powers(log3, 7) and expands_powers(2 * sympy.log(2), 1)
    assert not expands_powers(sympy.Integer(1), 7)
    assert not expands_powers(sympy.sqrt(2), 7)
    assert not expands_powers(sympy.Symbol("epsilon", positive=True), 7)
    check_sparse_epsilon(sympy.Rational(1, 2), 4, sympy.exp(-sympy.Rational(1, 8)))
    with pytest.raises(ValueError, match=r"^epsilon = log\(3\): sympy rewrites x\*\*k = "
                       r"exp\(-k\*epsilon/7\) as a power .*use a rational epsilon"):
        check_sparse_epsilon(log3, 7, sympy.exp(-log3 / 7))


def test_a_sparse_sign_converts_epsilon_once_per_precision(monkeypatch):
    """The sign of a sparse polynomial at x = exp(-eps/N) converts -eps/N to a ball once per
    working precision, not once per term (PF at 1e-300 on 7 scores: 220,000 conversions,
    11 s CPU); the sign agrees with the exact value's."""
    import mpmath
    from sympy.polys.domains import QQ
    from sympy.polys.rings import ring

    from exactdp.analysis.engines import sparse as sparse_mod

    _, x = ring("x", QQ)
    eps, N = R(1, 3), 5
    f = sum((QQ(k + 1, 7) * (-1) ** k) * x ** (10**6 * k) for k in range(40)) + x ** (10**9)
    engine = sparse_mod.SparseXEngine(eps, N, [[(f, f)]])
    calls = []
    to_arb = sparse_mod.to_arb
    monkeypatch.setattr(sparse_mod, "to_arb", lambda *a: calls.append(1) or to_arb(*a))
    got = engine.sign(f)
    with mpmath.workdps(60):
        y = mpmath.exp(-mpmath.mpf(1) / 15)
        value = sum(mpmath.mpf(k + 1) / 7 * (-1) ** k * y ** (10**6 * k) for k in range(40))
    assert got == (1 if value + y ** (10**9) > 0 else -1)
    assert len(calls) == 2  # the top precision, then one for the 41 powers at 96 bits
