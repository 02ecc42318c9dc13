"""The x-form algebra of privacy-loss distributions (exact, python-flint polynomials).

For EM, permute-and-flip and RNM with exponential or Gumbel noise on rational scores, every
output probability is a rational function with rational coefficients of
``x = exp(-epsilon/(c*Delta*N))`` (McKenna & Sheldon 2020, section 2; ``N`` the common
denominator of the pair's score gaps, stored on :class:`XForm` beside the rate). A loss ratio
``p_r/q_r`` is then a rational function of ``x``; factoring it over Q (unique
factorisation) decides exactly when two products of ratios are the same function, which is
how composed atoms are merged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import sympy

from ...exact.arb import to_arb
from ...exact.signs import proved_equal

#: Largest x-exponent of a base probability kept as a polynomial (beyond: generic sympy route).
MAX_XFORM_DEGREE = 4096
#: Up to this many count vectors, atoms with provably equal loss are merged (x-form identity;
#: one integer matrix product keys them all, :func:`group_terms`). Equal to core's
#: ``MAX_SUPPORT``: every exact composition is merged.
MERGE_LIMIT = 200_000


@dataclass(frozen=True, eq=False)
class XForm:
    """Base outcomes as rational functions of ``x = exp(-rate/N)`` (fmpq_poly pairs).

    ``rate = epsilon/(c*Delta)`` and ``N`` are stored; ``num_p[r]/den_p[r]`` is ``P_r`` and
    ``num_q[r]/den_q[r]`` is ``Q_r`` as polynomials in ``x``.
    """

    rate: sympy.Expr
    N: int
    num_p: tuple
    den_p: tuple
    num_q: tuple
    den_q: tuple

    def same_variable(self, other: XForm) -> bool:
        return self.N == other.N and proved_equal(self.rate, other.rate)

    def x_ball(self, bits: int) -> flint.arb:
        """A rigorous ball around ``x = exp(-rate/N)`` at ``bits`` bits."""
        return to_arb(sympy.exp(-self.rate / self.N), bits)


def sympy_to_poly(expr: sympy.Expr, x: sympy.Symbol, spread: int) -> flint.fmpq_poly:
    """The polynomial ``expr`` in ``x`` as an ``fmpq_poly``, exponents multiplied by ``spread``."""
    coeffs = sympy.Poly(expr, x).all_coeffs()[::-1] if expr.has(x) else [expr]
    out = [flint.fmpq(0)] * ((len(coeffs) - 1) * spread + 1)
    for i, c in enumerate(coeffs):
        c = sympy.Rational(c)
        out[i * spread] = flint.fmpq(int(c.p), int(c.q))
    return flint.fmpq_poly(out)


def fraction_polys(form: sympy.Expr, x: sympy.Symbol, spread: int):
    """The cancelled numerator and denominator of ``form`` as spread ``fmpq_poly``."""
    num, den = sympy.fraction(sympy.cancel(sympy.together(form)))
    return sympy_to_poly(num, x, spread), sympy_to_poly(den, x, spread)


def eval_poly(p: flint.fmpq_poly, x: flint.arb) -> flint.arb:
    """``p(x)`` in ball arithmetic."""
    if p.degree() < 0:
        return flint.arb(0)
    return flint.arb_poly([flint.arb(c) for c in p.coeffs()])(x)


def ratio_key(a: flint.fmpq_poly, b: flint.fmpq_poly) -> tuple[str, str]:
    """A hashable key for the ratio ``a/b``: reduced, with ``b`` made monic."""
    g = a.gcd(b)
    a, b = a / g, b / g
    lead = b.coeffs()[-1]
    return (str(a / lead), str(b / lead))


def spread(p: flint.fmpq_poly, s: int) -> flint.fmpq_poly:
    """``p(x**s)``: the exponents of ``p`` multiplied by ``s``."""
    if s == 1:
        return p
    coeffs = p.coeffs()
    out = [flint.fmpq(0)] * ((len(coeffs) - 1) * s + 1) if coeffs else [flint.fmpq(0)]
    for i, c in enumerate(coeffs):
        out[i * s] = c
    return flint.fmpq_poly(out)


def ratio_polys(xf: XForm, counts: tuple) -> tuple[flint.fmpq_poly, flint.fmpq_poly]:
    """Numerator and denominator of the likelihood ratio for the output ``counts``."""
    a, b = flint.fmpq_poly([1]), flint.fmpq_poly([1])
    for i, c in enumerate(counts):
        if c:
            a *= (xf.num_p[i] * xf.den_q[i]) ** c
            b *= (xf.den_p[i] * xf.num_q[i]) ** c
    return a, b


def factor_ratios(xf: XForm) -> tuple[list[Fraction], list[dict[str, int]]]:
    """Each base ratio ``p_i/q_i`` as a rational constant times irreducible powers.

    Factorisation over Q is unique, so ``prod_i (p_i/q_i)^(c_i)`` is the same rational
    function of ``x`` for two count vectors iff the constants and the exponent sums agree.
    """
    cache = xf.__dict__.setdefault("_factor_cache", {})
    if "ratios" not in cache:
        cache["ratios"] = _factor_ratios(xf)
    consts, exps = cache["ratios"]
    return list(consts), [dict(e) for e in exps]


def _factor_ratios(xf: XForm) -> tuple[list[Fraction], list[dict[str, int]]]:
    consts, exps = [], []
    for i in range(len(xf.num_p)):
        ca, fa = (xf.num_p[i] * xf.den_q[i]).factor()
        cb, fb = (xf.den_p[i] * xf.num_q[i]).factor()
        e: dict[str, int] = {}
        for f, m in fa:
            e[str(f)] = e.get(str(f), 0) + int(m)
        for f, m in fb:
            e[str(f)] = e.get(str(f), 0) - int(m)
        ratio = flint.fmpq(ca) / flint.fmpq(cb)
        consts.append(Fraction(int(ratio.p), int(ratio.q)))
        exps.append({f: m for f, m in e.items() if m})
    return consts, exps


def coprime_basis(values: list[int]) -> list[int]:
    """Pairwise coprime integers ``> 1`` of which every ``values[i] >= 1`` is a product.

    Repeated gcd splitting (a gcd-free basis, Bach & Shallit, *Algorithmic Number Theory*
    I, section 4.8): pairwise coprime integers are multiplicatively independent, so two
    products of powers of the values are equal iff their exponent vectors over the basis are.
    """
    basis: list[int] = []
    todo = [v for v in values if v > 1]
    while todo:
        a = todo.pop()
        for j, b in enumerate(basis):
            g = math.gcd(a, b)
            if g > 1:
                del basis[j]
                todo.extend(v for v in (g, a // g, b // g) if v > 1)
                break
        else:
            basis.append(a)
    return sorted(basis)


def _valuation(n: int, b: int) -> int:
    v = 0
    while n % b == 0:
        n //= b
        v += 1
    return v


def exponent_matrix(xf: XForm) -> np.ndarray:
    """Integer matrix ``E`` (one row per base outcome) with: two count vectors ``c, c'``
    have the same likelihood ratio ``prod_i (p_i/q_i)^(c_i)`` iff ``c E`` and ``c' E`` agree,
    the last column read modulo 2.

    Columns: the irreducible factors over Q of the ratios (:func:`factor_ratios`), the
    elements of a coprime basis of the numerators and denominators of their rational
    constants (:func:`coprime_basis`), and the sign of the constant (1 if negative). When
    the losses are commensurable (:func:`commensurable_step`) the columns are the lattice
    index ``j_i``, 1 (the number of copies) and 0 (no sign), and nothing is factored.
    """
    cache = xf.__dict__.setdefault("_factor_cache", {})
    found = commensurable_step(xf)
    if "matrix" not in cache and found is not None:
        # r_i = r_0 x^(-g j_i): the key is (sum_i c_i j_i, sum_i c_i), no factorisation
        cache["matrix"] = np.array([[j, 1, 0] for j in found[1]], dtype=object)
    if "matrix" not in cache:
        consts, exps = factor_ratios(xf)
        names = sorted({f for e in exps for f in e})
        basis = coprime_basis([abs(c.numerator) for c in consts]
                              + [c.denominator for c in consts])
        rows = []
        for c, e in zip(consts, exps, strict=True):
            rows.append([e.get(f, 0) for f in names]
                        + [_valuation(abs(c.numerator), b) - _valuation(c.denominator, b)
                           for b in basis] + [int(c < 0)])
        cache["matrix"] = np.array(rows, dtype=object)
    return cache["matrix"]


def commensurable_step(xf: XForm) -> tuple[sympy.Expr, list[int]] | None:
    """``(h, j)`` with ``loss_i = loss_0 + j_i h`` exactly (``j_i`` integers, ``h > 0``), when
    every base ratio is the first one times an integer power of ``x``; else None.

    ``r_i = p_i/q_i = A_i/B_i`` (polynomials in ``x``); ``r_i / r_0 = x^(d_i)`` iff
    ``A_i B_0 = x^(d_i) B_i A_0``, an exact polynomial identity (the two products agree once
    their lowest powers of ``x`` are divided out; no factorisation). Then
    ``loss_i - loss_0 = d_i ln x = -d_i rate/N`` and ``h = g rate/N``, ``g`` the gcd of the
    ``d_i``. None when there is a single loss. Cached on ``xf``.
    """
    cache = xf.__dict__.setdefault("_factor_cache", {})
    if "step" not in cache:
        cache["step"] = _commensurable_step(xf)
    return cache["step"]


def _commensurable_step(xf: XForm) -> tuple[sympy.Expr, list[int]] | None:
    a0 = xf.num_p[0] * xf.den_q[0]
    b0 = xf.den_p[0] * xf.num_q[0]
    d = []
    for i in range(len(xf.num_p)):
        left = _strip_x(xf.num_p[i] * xf.den_q[i] * b0)
        right = _strip_x(xf.den_p[i] * xf.num_q[i] * a0)
        if left[0] != right[0]:
            return None
        d.append(left[1] - right[1])
    g = math.gcd(*d)
    if g == 0:
        return None
    return sympy.Integer(g) * xf.rate / xf.N, [-di // g for di in d]


def _strip_x(p: flint.fmpq_poly) -> tuple[flint.fmpq_poly, int]:
    """``(p / x^v, v)`` with ``v`` the lowest power of ``x`` in ``p`` (``p != 0``)."""
    coeffs = p.coeffs()
    v = next(i for i, c in enumerate(coeffs) if c != 0)
    return flint.fmpq_poly(coeffs[v:]), v


def group_terms(terms: dict, xf: XForm | None) -> tuple:
    """The terms ``{counts: mass}`` split into groups of equal likelihood ratio (one group
    per term if ``xf`` is None or there are too many terms).

    Each count vector is keyed by its integer exponent vector ``c E``
    (:func:`exponent_matrix`), computed for all terms at once as one integer matrix product;
    groups keep the order of their first term.
    """
    if xf is None or len(terms) > MERGE_LIMIT or not terms:
        return tuple({c: m} for c, m in terms.items())
    keys = _exponent_keys(np.array(list(terms), dtype=np.int64), exponent_matrix(xf))
    groups: dict[int, dict] = {}
    for (c, m), key in zip(terms.items(), keys, strict=True):
        group = groups.get(key)
        if group is None:
            groups[key] = {c: m}
        else:
            group[c] = m
    return tuple(groups.values())


def _exponent_keys(counts: np.ndarray, matrix: np.ndarray) -> list:
    """One hashable key per row of ``counts`` (equal iff the rows of ``counts @ matrix``
    agree, the last column modulo 2): int64 products packed into one integer per row when
    the entries are small enough, else Python integers."""
    bound = int(np.abs(counts).max(initial=0)) * sum(abs(int(v)) for v in matrix.flat)
    if bound >= 2**62:
        out = counts.astype(object) @ matrix
        out[:, -1] %= 2
        return [tuple(r) for r in out.tolist()]
    prod = counts @ matrix.astype(np.int64)
    prod[:, -1] %= 2
    lo = prod.min(axis=0)
    span = (prod.max(axis=0) - lo + 1).tolist()
    if math.prod(span) >= 2**62:
        return [tuple(r) for r in prod.tolist()]
    stride = np.cumprod([1] + span[:-1]).astype(np.int64)
    return ((prod - lo) @ stride).tolist()


def concat_xform(a: XForm | None, b: XForm | None) -> XForm | None:
    """The transform of the pair of ``a`` and ``b`` (outputs concatenated), or None if either
    is None or they use different variables.
    """
    if a is None or b is None or not a.same_variable(b):
        return None
    return XForm(a.rate, a.N, a.num_p + b.num_p, a.den_p + b.den_p,
                  a.num_q + b.num_q, a.den_q + b.den_q)


def sum_fractions(items: list) -> tuple[flint.fmpq_poly, flint.fmpq_poly]:
    """``(num, den)`` of the sum of the fractions ``items`` (pairs of ``fmpq_poly``)."""
    num, den = items[0]
    for n, d in items[1:]:
        num, den = num * d + n * den, den * d
    return num, den


def xform_pair(dp, dq):
    """x-forms of both distributions on a common ``x = exp(-rate/N)``, or None when either
    has no rational form in x (its capabilities: e.g. RNM-Laplace, irrational scores, a
    user's function mechanism, whose loss ratios are then grouped by their exact values)."""
    if not ("rational_form" in dp.capabilities and "rational_form" in dq.capabilities):
        return None
    fp, fq = dp.rational_form(), dq.rational_form()
    N = math.lcm(int(fp.L), int(fq.L))
    if max(_degree(fp) * (N // int(fp.L)), _degree(fq) * (N // int(fq.L))) > MAX_XFORM_DEGREE:
        return None  # huge integer gaps: polynomials of that degree are not worth building
    rate = dp.mechanism.rate
    x = sympy.exp(-rate / N)
    out = []
    for f in (fp, fq):
        if not proved_equal(f.value, x ** (N // int(f.L))):
            return None
        s = N // int(f.L)
        if f.polys is not None:  # flint polynomials already: no sympy forms built
            den = spread(flint.fmpq_poly(1 if f.denominator is None else f.denominator), s)
            pairs = [(spread(flint.fmpq_poly(p), s), den) for p in f.polys]
        else:
            pairs = [fraction_polys(form, f.x, s) for form in f.forms]
        out.append([a for a, _ in pairs])
        out.append([b for _, b in pairs])
    return (*out, rate, N)


def _degree(form) -> int:
    """The degree bound of a rational form: its largest gap, or (forms without gaps: the
    answer sequences of the sparse vector technique) its largest polynomial degree."""
    if form.gaps:
        return max(form.gaps)
    return max((p.degree() for p in form.polys or ()), default=0)
