"""The exact density of a run's released values: condition on them, then integrate the stars.

A run of ``@program(output="release")`` (:class:`~exactdp.programs.runs.Run` with
``released``) releases real values ``R_j = c_j + sum_i a_ji z_i``, affine in its
independent Laplace and exponential noises ``z_i``. The density of the released values at
``r`` on the run's event is obtained by *conditioning on them*, one at a time:

- pick a *pivot* noise ``z_p`` of ``R_j`` (a noise compared with the fewest others: a
  leaf of its star, or a noise no comparison uses; the centre when it is the only one);
- solve ``R_j = r_j`` for it, ``z_p = (r_j - c_j - sum_{i != p} a_ji z_i) / a_jp``: the
  change of variables gives the density factor ``f_p(z_p) / |a_jp|`` (``f_p`` the law of
  ``z_p``), affine in the remaining noises, and every comparison and later released value
  that used ``z_p`` is rewritten with it.

So a released leaf noise (``a + nu``) fixes that leaf: its comparisons with the centre
become bounds on the centre; a released centre (the argmax winner's value ``a_w + nu_w``)
fixes the centre: the leaves become independent with constant bounds; a released gap
``a + nu - (T + rho)`` fixes the leaf ``nu`` as a function of the centre ``rho``: its
comparison becomes a condition on ``r`` alone and its density a factor
``f_nu(r - a + T + rho)`` in the centre's integral; a sum of independent noises becomes a
convolution (the second noise is the centre of a star of its own, with the first's
density as its factor).

What remains must be in the exact class of :mod:`exactdp.programs.integrate_plan` (every
component a star), with every density factor a function of its component's centre only.
Then the centre integral of each component is ``int f_c(z) prod_factors g(z) prod_leaves
P(leaf in its interval | z) dz``: between the sorted breakpoints (where a leaf's end or a
factor's argument crosses 0, or two ends cross) the integrand is ``sum q exp(lam (s z +
w))``, integrated in closed form (:func:`exactdp.exact.piecewise_exp.integrate_piece`);
components without a released value go to the program integrator
(:func:`exactdp.programs.integrate.run_terms`). Rational released values give the exact
value ``sum q lam**e exp(lam W)`` (:data:`~exactdp.exact.piecewise_exp.Value`), ``lam``
the run's unit (``epsilon`` for scales ``k / epsilon``).

Refused with a one-line ``ValueError`` naming the line (before any integral): a released
value determined by the others (no density), a factor or comparison linking noises
outside a star, noise scales without one common unit, discrete noise beside a released
value's star.

References
----------
The change of variables for densities and the conditioning of independent noises: any
probability text (e.g. W. Feller, *An Introduction to Probability Theory and Its
Applications II*, 1971, sections I.2 and V.4 (convolutions)).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy

from ..exact.piecewise_exp import (
    ONE,
    ONE_PIECE,
    Piece,
    Value,
    add_term,
    integrate_piece,
    plus,
    times,
)
from .integrate import run_terms
from .integrate_plan import Bound
from .integrate_stars import Units, active_ends, leaf_cuts, units
from .release_integral import Scaled, integrate_times, scaled_piece, scaled_times, times_integers
from .runs import Constraint, Linear, Run

#: An affine form of the noises: ``({draw: coefficient}, constant)``, Fractions.
Affine = tuple[dict[int, Fraction], Fraction]


@dataclass(frozen=True)
class Factor:
    """The density factor ``f(arg) * scale`` of a solved noise: ``arg`` affine in the
    remaining noises, ``f`` the noise's law of rate ``rate * lam``."""

    law: str
    rate: Fraction
    arg: Affine
    scale: Fraction


def _fraction(x: sympy.Expr) -> Fraction:
    return Fraction(int(x.p), int(x.q))


def affine(lin: Linear) -> Affine:
    """A :class:`~exactdp.programs.runs.Linear` as an :data:`Affine`."""
    return {i: _fraction(c) for i, c in lin.coefficients}, _fraction(lin.constant)


def _substitute(form: Affine, p: int, value: Affine) -> Affine:
    """``form`` with the noise ``p`` replaced by the affine ``value``."""
    coef, const = form
    a = coef.get(p)
    if a is None:
        return form
    out = {i: c for i, c in coef.items() if i != p}
    for i, c in value[0].items():
        v = out.get(i, Fraction(0)) + a * c
        if v:
            out[i] = v
        else:
            out.pop(i, None)
    return out, const + a * value[1]


def _holds(value: Fraction, relation: str) -> bool:
    return {">": value > 0, ">=": value >= 0, "==": value == 0, "!=": value != 0}[relation]


def _density_at(law: str, rate: Fraction, x: Fraction) -> Value:
    """``f(x)`` of a law of rate ``rate * lam``, as a value (one power of ``lam``)."""
    if law == "exponential":
        return {} if x < 0 else {(1, -rate * x): rate}
    return {(1, -rate * abs(x)): rate / 2}


@dataclass(frozen=True)
class Conditioned:
    """A run conditioned on its released values: the comparisons left, the density
    factors, and the constant factor (a value)."""

    constraints: tuple[tuple[dict[int, Fraction], Fraction, str, str], ...]
    factors: tuple[Factor, ...]
    constant: Value


def condition(run: Run, values: tuple[Fraction, ...], line: str) -> Conditioned | None:
    """Condition ``run`` on its released values ``values`` (None: the run's event is empty
    there, density 0).

    Raises
    ------
    ValueError
        A released value determined by the earlier ones (no density).
    """
    laws = [d.law for d in run.draws]
    u = units(run)
    cons = [(*affine(c.expr), c.relation, c.line) for c in run.constraints]
    forms = [affine(r) for r in run.released]
    factors: list[Factor] = []
    for j, r in enumerate(values):
        coef, const = forms[j]
        if not coef:
            raise ValueError(f"{line}: released value {j} is determined by the values "
                             "released before it: the output has no density")
        degree = {i: sum(1 for c, *_ in cons if i in c and len(c) >= 2) for i in coef}
        p = min(coef, key=lambda i: (degree[i], -i))
        a = coef[p]
        solved = ({i: -c / a for i, c in coef.items() if i != p}, (r - const) / a)
        factors = [Factor(f.law, f.rate, _substitute(f.arg, p, solved), f.scale)
                   for f in factors]
        factors.append(Factor(laws[p], u.rates[p], solved, 1 / abs(a)))
        cons = [(*_substitute((c, k), p, solved), rel, ln) for c, k, rel, ln in cons]
        forms = [_substitute(f, p, solved) for f in forms]
    constant: Value = dict(ONE)
    kept_factors = []
    for f in factors:
        if f.arg[0]:
            kept_factors.append(f)
            continue
        v = _density_at(f.law, f.rate, f.arg[1])
        if not v:
            return None
        constant = times(constant, {k: q * f.scale for k, q in v.items()})
    kept = []
    for c, k, rel, ln in cons:
        if not c:
            if not _holds(k, rel):
                return None
            continue
        if rel in ("==", "!=") and all(laws[i] in ("laplace", "exponential") for i in c):
            if rel == "==":
                return None
            continue
        kept.append((c, k, rel, ln))
    return Conditioned(tuple(kept), tuple(kept_factors), constant)


# ---------------------------------------------------------------------- the centre integral
def _cdf_piece(law: str, rho: Fraction, b: Bound, t: Fraction) -> Piece:
    """The CDF of a leaf of rate ``rho`` at its end ``b`` near the centre value ``t``."""
    s, o = b.slope, b.offset
    if b.at(t) < 0:
        return {(rho * s, rho * o): Fraction(1, 2)} if law == "laplace" else {}
    # plus(): at a constant end 0 (slope and offset 0) both terms have the key (0, 0)
    return plus({(Fraction(0), Fraction(0)): Fraction(1)},
                {(-rho * s, -rho * o): Fraction(-1, 2) if law == "laplace" else Fraction(-1)})


def _factor_piece(f: Factor, t: Fraction) -> Piece:
    """The density factor ``scale * f(s z + o)`` near the centre value ``t``."""
    ((_, s),) = f.arg[0].items()
    o = f.arg[1]
    x = s * t + o
    if f.law == "exponential":
        return {} if x < 0 else {(-f.rate * s, -f.rate * o): f.rate * f.scale}
    sg = 1 if x > 0 else -1
    return {(-sg * f.rate * s, -sg * f.rate * o): f.rate / 2 * f.scale}


@dataclass(frozen=True)
class CentreStar:
    """A component after conditioning: a centre, its own bounds, its leaves' bounds
    (affine in the centre) and the density factors on the centre."""

    centre: int
    centre_bounds: tuple[Bound, ...]
    leaves: tuple[tuple[int, tuple[Bound, ...]], ...]
    factors: tuple[Factor, ...]


def _cuts(star: CentreStar) -> set[Fraction]:
    cuts = leaf_cuts(star.leaves)
    for f in star.factors:
        ((_, s),) = f.arg[0].items()
        cuts.add(-f.arg[1] / s)
    return cuts


def _test_point(a: Fraction | None, b: Fraction | None) -> Fraction:
    if a is None:
        return (b if b is not None else Fraction(0)) - 1
    return a + 1 if b is None else (a + b) / 2


def centre_integral(star: CentreStar, laws: list[str], rates: tuple[Fraction, ...]) -> Value:
    """``int f_c(z) prod_factors g(z) prod_leaves P(leaf in its interval | z) dz`` over the
    centre's interval, exact (a value with ``lam**(1 + #factors)`` folded in); the leaves'
    product on each interval by :func:`leaves_product` (identical leaves as one power)."""
    los = [b.offset for b in star.centre_bounds if b.lower]
    his = [b.offset for b in star.centre_bounds if not b.lower]
    lo, hi = (max(los) if los else None), (min(his) if his else None)
    if laws[star.centre] == "exponential":
        lo = Fraction(0) if lo is None else max(lo, Fraction(0))
    if lo is not None and hi is not None and lo >= hi:
        return {}
    inner = sorted(c for c in _cuts(star) if (lo is None or c > lo) and (hi is None or c < hi))
    ends: list[Fraction | None] = [lo, *inner, hi]
    rho_c = rates[star.centre]
    groups = leaf_groups(star.leaves, laws, rates)
    out: Value = {}
    for a, b in zip(ends[:-1], ends[1:], strict=True):
        t = _test_point(a, b)
        coef = rho_c / 2 if laws[star.centre] == "laplace" else rho_c
        piece: Piece = {(-rho_c if t > 0 else rho_c, Fraction(0)): coef}
        for f in star.factors:
            piece = times(piece, _factor_piece(f, t))
        if piece and groups:
            _leaves_integral(out, piece, groups, t, a, b, 1 + len(star.factors))
        elif piece:
            integrate_piece(out, piece, a, b, 1 + len(star.factors))
    return out


#: :func:`_leaves_integral` by its interval, power of ``lam``, centre-and-factors piece and
#: the leaves' active ends (at most 4096, then cleared).
_INTEGRALS: dict[tuple, Value] = {}


def _leaves_integral(out: Value, piece: Piece, groups: list[LeafGroup], t: Fraction,
                     a: Fraction | None, b: Fraction | None, e: int) -> None:
    """Add ``int_a^b lam**e piece(z) prod_leaves(z) dz`` to ``out``, cached: the cells of
    a released value's density meet one interval with one integrand again (the released
    value moves one cut; the other intervals keep their ends, their sides and the
    factors' closed forms). Every comparison is decided before the look-up (the cells
    record their roots)."""
    active = _active_ends(groups, t)
    if active is None:
        return
    memo = (a, b, e, tuple(piece.items()), tuple(x[:4] for x in active))
    part = _INTEGRALS.get(memo)
    if part is None:
        part = {}
        integrate_times(part, piece, _product(active, t), a, b, e)
        if len(_INTEGRALS) > 4096:
            _INTEGRALS.clear()
        _INTEGRALS[memo] = part
    if not out:  # the same mapping and order as term by term
        out.update(part)
        return
    for k, q in part.items():
        add_term(out, k, q)


#: Leaves of one law, rate and bounds, and how many: ``(law, rate, bounds, count)``.
LeafGroup = tuple[str, Fraction, tuple[Bound, ...], int]


def leaf_groups(leaves: tuple[tuple[int, tuple[Bound, ...]], ...], laws: list[str],
                rates: tuple[Fraction, ...]) -> list[LeafGroup]:
    """The leaves of a star grouped by law, rate and bounds (their ``slope``, ``offset``
    and side; the source line aside), in the order of each group's first leaf: identical
    leaves have one conditional probability, so their product is its power (the sparse
    vector's ``False`` answers to equal queries).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.integrate_plan import Bound
    >>> from exactdp.programs.release_density import leaf_groups
    >>> b = (Bound(F(1), F(2), False, True, "a.py:1"),)
    >>> c = (Bound(F(1), F(2), False, True, "a.py:2"),)
    >>> [(law, r, n) for law, r, _, n in leaf_groups(((1, b), (2, c)), ["laplace"] * 3,
    ...                                              (F(1),) * 3)]
    [('laplace', Fraction(1, 1), 2)]
    """
    found: dict[tuple, list] = {}
    for leaf, bounds in leaves:
        key = (laws[leaf], rates[leaf], tuple((b.slope, b.offset, b.lower) for b in bounds))
        if key in found:
            found[key][3] += 1
        else:
            found[key] = [laws[leaf], rates[leaf], bounds, 1]
    return [(law, r, bs, n) for law, r, bs, n in found.values()]


#: :func:`leaves_product` by its groups' active ends (at most 4096, then cleared).
_PRODUCTS: dict[tuple, Piece | Scaled] = {}


def leaves_product(groups: list[LeafGroup], t: Fraction) -> Piece:
    """``prod_leaves P(leaf in its interval | z)`` near the centre value ``t``: per group
    the active ends at ``t`` (every comparison decided as leaf by leaf: identical leaves
    decide identical ones), an empty interval ending the product (``{}``); then each
    group's probability to the power of its count (:func:`power`). Cached by the active
    ends: the cells of a released value's density and the patterns of one program meet
    the same products again.

    Examples
    --------
    Two leaves ``nu < z`` of rate 1 at ``z = 1``: ``(1 - exp(-lam z) / 2)**2``:

    >>> from fractions import Fraction as F
    >>> from exactdp.programs.integrate_plan import Bound
    >>> from exactdp.programs.release_density import leaves_product
    >>> g = [("laplace", F(1), (Bound(F(1), F(0), False, True, "a.py:1"),), 2)]
    >>> p = leaves_product(g, F(1))
    >>> [(float(r), float(w), q) for (r, w), q in sorted(p.items())]
    [(-2.0, 0.0, Fraction(1, 4)), (-1.0, 0.0, Fraction(-1, 1)), (0.0, 0.0, Fraction(1, 1))]
    """
    active = _active_ends(groups, t)
    return {} if active is None else scaled_piece(_product(active, t))


def _active_ends(groups: list[LeafGroup], t: Fraction) -> list[tuple] | None:
    """Per group ``(law, rate, sides, count, low, up)``: its active ends at ``t`` (None:
    an empty interval, or a one-sided leaf below its support: probability 0)."""
    active = []
    for law, rho, bounds, n in groups:
        low, up = active_ends(bounds, t)
        if low is not None and up is not None and up.at(t) <= low.at(t):
            return None
        sides = tuple(None if x is None else (x.slope, x.offset, x.at(t) < 0)
                      for x in (low, up))
        if law != "laplace" and up is not None and sides[1][2]:  # type: ignore[index]
            return None  # below its support: probability 0, as leaf by leaf
        active.append((law, rho, sides, n, low, up))
    return active


def _product(active: list[tuple], t: Fraction) -> Piece | Scaled:
    """The product of the groups' probabilities at their active ends, cached; kept over
    common denominators (:func:`~exactdp.programs.release_integral.scaled_times`) where
    its numbers are Fractions."""
    key = tuple(a[:4] for a in active)
    if key in _PRODUCTS:
        return _PRODUCTS[key]
    piece: Piece | Scaled = dict(ONE_PIECE)
    for law, rho, _, n, low, up in active:
        g = _cdf_piece(law, rho, up, t) if up is not None else dict(ONE_PIECE)
        if low is not None:
            g = plus(g, _cdf_piece(law, rho, low, t), -1)
        g = power(g, n)
        both = scaled_times(piece, g)
        piece = both if both is not None else times_integers(scaled_piece(piece), g)
        if not (piece.terms if isinstance(piece, Scaled) else piece):
            break
    if len(_PRODUCTS) > 4096:
        _PRODUCTS.clear()
    _PRODUCTS[key] = piece
    return piece


def power(g: Piece, n: int) -> Piece:
    """``g**n`` for ``n >= 1``: a two-term ``g`` by the binomial theorem (``n + 1`` terms at
    once, where ``n - 1`` products of growing pieces cost ``n**2 / 2`` term products),
    else by repeated squaring.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.release_density import power
    >>> p = power({(F(0), F(0)): F(1), (F(-1), F(2)): F(-1, 2)}, 2)
    >>> [(float(r), float(w), q) for (r, w), q in sorted(p.items())]
    [(-2.0, 4.0, Fraction(1, 4)), (-1.0, 2.0, Fraction(-1, 1)), (0.0, 0.0, Fraction(1, 1))]
    """
    if n == 1 or not g:
        return dict(g)
    if len(g) == 2:
        ((r1, w1), q1), ((r2, w2), q2) = g.items()
        out: Piece = {}
        c = 1
        for i in range(n + 1):  # q1**(n-i) q2**i exp(lam ((n-i) (r1 z + w1) + i (r2 z + w2)))
            add_term(out, ((n - i) * r1 + i * r2, (n - i) * w1 + i * w2),
                     c * q1 ** (n - i) * q2 ** i)
            c = c * (n - i) // (i + 1)
        return out
    half = power(g, n // 2)
    sq = times(half, half)
    return times(sq, g) if n % 2 else sq


def _bound(coef: dict[int, Fraction], k: Fraction, draw: int, centre: int | None,
           line: str) -> Bound:
    """The bound ``sum coef z + k > 0`` puts on ``draw`` (``>=`` alike: continuous)."""
    a = coef[draw]
    slope = -coef[centre] / a if centre is not None else Fraction(0)
    return Bound(slope, -k / a, a > 0, False, line)


def _components(cond: Conditioned, n: int, line: str) -> list[set[int]]:
    parent = list(range(n))

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for c, _, _, ln in cond.constraints:
        if len(c) >= 3:
            raise ValueError(f"{ln}: given the released values this comparison involves "
                             f"{len(c)} noises; outside the exact class of released values")
        if len(c) == 2:
            i, j = c
            parent[root(i)] = root(j)
    for f in cond.factors:
        if len(f.arg[0]) >= 2:
            raise ValueError(f"{line}: a released value's density links {len(f.arg[0])} "
                             "noises that no star connects (a sum of noises compared with "
                             "others); outside the exact class of released values")
    used = {i for c, *_ in cond.constraints for i in c} | {
        i for f in cond.factors for i in f.arg[0]}
    groups: dict[int, set[int]] = {}
    for v in used:
        groups.setdefault(root(v), set()).add(v)
    return list(groups.values())


def _centre_star(comp: set[int], cond: Conditioned, line: str) -> CentreStar:
    """The component ``comp`` (which carries density factors) as a :class:`CentreStar`."""
    factors = tuple(f for f in cond.factors if next(iter(f.arg[0])) in comp)
    carriers = {next(iter(f.arg[0])) for f in factors}
    cons = [c for c in cond.constraints if next(iter(c[0])) in comp]
    deg = {v: sum(1 for c in cons if len(c[0]) == 2 and v in c[0]) for v in comp}
    centres = [v for v in comp if deg[v] == len(comp) - 1 or len(comp) == 1]
    centres = [v for v in centres if carriers <= {v}]
    if not centres or any(deg[v] != 1 for v in comp if v != centres[0] and len(comp) > 2):
        raise ValueError(f"{line}: given the released values, the density of a released "
                         "value depends on a noise that is not the centre of its star; "
                         "outside the exact class of released values")
    c0 = centres[0]
    centre_bounds = []
    leaves: dict[int, list[Bound]] = {v: [] for v in sorted(comp - {c0})}
    for coef, k, _, ln in cons:
        others = [v for v in coef if v != c0]
        if not others:
            centre_bounds.append(_bound(coef, k, c0, None, ln))
            continue
        (leaf,) = others
        leaves[leaf].append(_bound(coef, k, leaf, c0 if c0 in coef else None, ln))
    return CentreStar(c0, tuple(centre_bounds), tuple((v, tuple(bs)) for v, bs in
                                                        leaves.items()), factors)


def run_density(run: Run, values: tuple[Fraction, ...], line: str) -> tuple[sympy.Expr, Value]:
    """``(lam, value)``: the density of ``run``'s released values at ``values`` on its
    event (before its weight), ``value = sum q lam**e exp(lam W)``.

    Raises
    ------
    ValueError
        Outside the exact class of released values (one line naming the line).
    """
    u: Units = units(run)
    if not u.exact:
        raise ValueError(f"{line}: the noise scales have no common unit (rational multiples "
                         "of one scale): no exact density here")
    laws = [d.law for d in run.draws]
    cond = condition(run, values, line)
    if cond is None:
        return u.unit, {}
    total: Value = dict(cond.constant)
    rest: list[Constraint] = []
    carriers = {next(iter(f.arg[0])) for f in cond.factors}
    for comp in _components(cond, len(laws), line):
        mine = [(c, k, rel, ln) for c, k, rel, ln in cond.constraints if next(iter(c)) in comp]
        if not comp & carriers and all(isinstance(k, Fraction) for _, k, _, _ in mine):
            rest += [Constraint(_linear(c, k), rel, ln) for c, k, rel, ln in mine]
            continue
        if any(laws[v] not in ("laplace", "exponential") for v in comp):
            raise ValueError(f"{line}: a released value's star holds discrete or Gumbel noise; "
                             "outside the exact class of released values")
        total = times(total, centre_integral(_centre_star(comp, cond, line), laws, u.rates))
        if not total:
            return u.unit, {}
    if rest:
        terms = run_terms(Run(run.draws, tuple(rest), sympy.Integer(1), None))
        if terms is None or terms.unit != u.unit or terms.denominator != ONE:
            raise ValueError(f"{line}: discrete or Gumbel noise beside released values: no "
                             "exact density in this version")
        total = times(total, terms.numerator)
    return u.unit, total


def _linear(c: dict[int, Fraction], k: Fraction) -> Linear:
    return Linear(sympy.Rational(k.numerator, k.denominator),
                  tuple((i, sympy.Rational(a.numerator, a.denominator))
                        for i, a in sorted(c.items())))


def clear_caches() -> None:
    """Forget the cached integrals and products. A route that ran the densities with
    polynomial released values calls it when done: a constant polynomial equals and hashes
    as its Fraction, so its entries (holding polynomials) would be read back for rational
    values.

    Returns
    -------
    None
    """
    _INTEGRALS.clear()
    _PRODUCTS.clear()
