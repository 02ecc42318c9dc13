"""A program's probabilities as flint rational functions of ``x`` when its runs have
denominators (discrete Laplace noise): the x-form the analyzer reads, without sympy.

A run of discrete Laplace noise integrates (sums) to ``num / den``
(:class:`~exactdp.programs.integrate.RunTerms`), both sums ``q exp(lam W)`` with rational
``q, W`` and one rational unit ``lam`` (no ``lam**e`` factor: the sums are geometric
series). With ``L`` the common denominator of every ``W``, ``exp(lam W) = x**(-L W)`` for
``x = exp(-lam / L)``, so each run's value is a quotient of polynomials in ``x`` over powers
of ``x``, and an output's probability (the sum over its runs) one such quotient, summed in
flint with exact gcds. The outputs then share the least common multiple of their
denominators (:class:`~exactdp.rational_form.RationalForm` has one). Before, these
probabilities went through sympy expressions and ``cancel`` to reach the same quotients
(:func:`~exactdp.exact.poly.xform_from_probabilities`): 0.1 s a vector for the discrete
above-threshold program at two queries, most of its suite row.

At a symbolic epsilon the unit is ``lam = r epsilon`` (``r`` rational: every noise scale a
rational multiple of ``1/epsilon``), the runs are the same for every epsilon and the
quotients the same polynomials, so the form in ``x = exp(-r epsilon / L)`` holds for every
epsilon: :func:`exactdp.certify_dp` reads it. :func:`x_form` builds the same polynomials for
continuous noise, whose runs sum without denominators.

A run's coin weight (the product of its :func:`~exactdp.programs.draws.bernoulli` branches)
multiplies its terms when it is itself such a sum (:func:`weight_value`): a rational (a fair
coin, ``1/2``) or rational multiples of ``exp(c lam)`` (a coin of probability
``exp(-epsilon)``: a polynomial in ``x``). A weight of another shape (``1 / (1 + exp(eps))``
of randomized response) leaves the runs to sympy sums (:func:`coin_obstruction` says so).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from fractions import Fraction
from functools import lru_cache
from math import lcm

import flint
import sympy

from ..exact.piecewise_exp import ONE, Value, add_term, times
from ..mechanisms.base import X
from ..rational_form import RationalForm
from ..xform import DENSE_DEGREE_LIMIT
from .integrate import run_terms
from .runs import Run
from .trace import Trace

#: Forms made, keyed by the trace's id (the trace kept with its form: ids are not reused
#: while it lives); the oldest go first past :data:`MAX_FORMS`.
_FORMS: OrderedDict[int, tuple[Trace, RationalForm | None]] = OrderedDict()
MAX_FORMS = 256

Quotient = tuple[flint.fmpq_poly, flint.fmpq_poly]


def _poly(v: Value, L: int) -> Quotient:
    """``sum q exp(lam W)`` as ``(p, x**b)``: ``p`` a polynomial in ``x = exp(-lam/L)``,
    ``b = max(0, L max W)`` (every power ``b - L W`` non-negative)."""
    ks: dict[int, Fraction] = {}
    for (_, w), q in v.items():  # L W in integers (w's denominator divides L)
        k = w.numerator * (L // w.denominator)
        ks[k] = ks[k] + q if k in ks else q
    b = max(0, *ks)
    coeffs: list = [0] * (b - min(ks) + 1)
    for k, q in ks.items():
        coeffs[b - k] = q.numerator if q.denominator == 1 else flint.fmpq(q.numerator,
                                                                           q.denominator)
    return flint.fmpq_poly(coeffs), flint.fmpq_poly([0] * b + [1])


def _reduced(num: flint.fmpq_poly, den: flint.fmpq_poly) -> Quotient:
    g = num.gcd(den)
    return (num, den) if g == 1 else (num // g, den // g)


def _add(a: Quotient | None, b: Quotient) -> Quotient:
    if a is None:
        return b
    g = a[1].gcd(b[1])
    da, db = a[1] // g, b[1] // g
    return _reduced(a[0] * db + b[0] * da, a[1] * db)


def fraction_form(trace: Trace, keys: Sequence[Hashable]) -> RationalForm | None:
    """The probabilities of the outputs ``keys`` (in that order) of the runs of ``trace``
    as one :class:`~exactdp.rational_form.RationalForm` (flint ``polys`` over one common
    ``denominator``; see the module docstring), cached per trace; None where a run has a
    coin weight that is not a sum ``q exp(c lam)`` (:func:`weight_value`), rates without
    one rational unit, a ``lam**e`` factor, or the form a degree above
    :data:`exactdp.xform.DENSE_DEGREE_LIMIT`.

    Raises
    ------
    ValueError
        A run outside the exact class (the integrator's one line).
    """
    hit = _FORMS.get(id(trace))
    if hit is not None and hit[0] is trace:
        return hit[1]
    form = _form(trace.runs, keys)
    _FORMS[id(trace)] = (trace, form)
    while len(_FORMS) > MAX_FORMS:
        _FORMS.popitem(last=False)
    return form


def _one_unit(unit: sympy.Expr) -> bool:
    """``lam`` a positive rational, or a positive rational times one symbol (epsilon: the
    form then holds for every epsilon, :meth:`ProgramMechanism.rational_obstruction`)."""
    c, rest = unit.as_coeff_Mul()
    return bool(c.is_Rational and c > 0 and (rest == 1 or rest.is_Symbol and rest.is_positive))


def is_constant(v: Value) -> bool:
    """Whether the value is a constant ``q`` (its only term ``(0, 0)``, or none): the
    probability of a run without draws, the same in every unit ``lam``."""
    return all(k == (0, 0) for k in v)


def _form(runs: Sequence[Run], keys: Sequence[Hashable]) -> RationalForm | None:
    every = []
    unit = None
    for run in runs:
        t = run_terms(run)
        if t is None or not t.rational_in_x:
            return None
        if not (is_constant(t.numerator) and is_constant(t.denominator)) or (
                unit is None and run.draws):
            if unit is not None and t.unit != unit:
                return None
            unit = t.unit
        every.append((run, t))
    unit = sympy.Integer(1) if unit is None else unit  # no draw at all: any unit
    if not _one_unit(unit):
        return None
    terms = []
    for run, t in every:
        w = weight_value(run.weight, unit)
        if w is None:
            return None
        if t.numerator:
            terms.append((run.output, times(w, t.numerator), t.denominator))
    # the exponents' denominators (Fractions or ints: both have ``denominator``)
    L = lcm(1, *{w.denominator for _, num, den in terms for v in (num, den) for _, w in v})
    sums: dict[Hashable, Quotient] = {}
    for key, num, den in terms:
        (n, bn), (d, bd) = _poly(num, L), _poly(den, L)
        sums[key] = _add(sums.get(key), _reduced(n * bd, d * bn))
    common = flint.fmpq_poly([1])
    for _, d in sums.values():
        common = common * (d // common.gcd(d))
    if common.degree() > DENSE_DEGREE_LIMIT:
        return None
    zero = flint.fmpq_poly([0])
    polys = tuple(zero if k not in sums else sums[k][0] * (common // sums[k][1])
                  for k in keys)
    if max(p.degree() for p in polys) > DENSE_DEGREE_LIMIT:
        return None
    return RationalForm(X, None, sympy.exp(-unit / L), L, polys=polys, denominator=common)


@lru_cache(maxsize=1024)
def weight_value(weight: sympy.Expr, unit: sympy.Expr) -> Value | None:
    """A run's coin weight as a value ``{(0, W): q}`` (``sum q exp(unit W)``, Fractions),
    or None when it is not one: after expansion every term must be a rational times
    exponentials whose exponents sum to a rational multiple of ``unit``.

    Parameters
    ----------
    weight : sympy.Expr
        :attr:`exactdp.programs.runs.Run.weight` (1 when the run flips no coin).
    unit : sympy.Expr
        The runs' unit ``lam`` (a positive rational, or ``r epsilon``).

    Returns
    -------
    dict or None
        ``{(0, W): q}``; :data:`~exactdp.exact.piecewise_exp.ONE` for weight 1.

    Examples
    --------
    >>> import sympy
    >>> eps = sympy.Symbol("epsilon", positive=True)
    >>> weight_value(sympy.Rational(1, 2), eps / 2)
    {(0, Fraction(0, 1)): Fraction(1, 2)}
    >>> weight_value((1 - sympy.exp(-eps)) / 3, eps / 2)
    {(0, Fraction(0, 1)): Fraction(1, 3), (0, Fraction(-2, 1)): Fraction(-1, 3)}
    >>> weight_value(1 / (1 + sympy.exp(eps)), eps) is None
    True
    """
    if weight == 1:
        return ONE
    out: Value = {}
    for term in sympy.Add.make_args(sympy.expand(weight)):
        c, rest = term.as_coeff_Mul()
        if not c.is_Rational:
            return None
        w = sympy.Integer(0)
        for f in sympy.Mul.make_args(rest):
            if isinstance(f, sympy.exp):
                w += f.args[0]
            elif f is sympy.E:
                w += 1
            elif f != 1:
                return None
        r = sympy.cancel(w / unit)
        if not r.is_Rational:
            return None
        add_term(out, (0, Fraction(int(r.p), int(r.q))), Fraction(int(c.p), int(c.q)))
    return out


def coin_obstruction(runs: Sequence[Run], unit: sympy.Expr) -> str | None:
    """Why a run's coin weight keeps the runs from polynomials in ``x = exp(-unit/L)``
    (:func:`weight_value` refuses it), in one line naming the weight; None when every
    weight is such a polynomial.

    Examples
    --------
    >>> import sympy
    >>> from exactdp.programs.runs import Run
    >>> coin_obstruction([Run((), (), 1 / (1 + sympy.E), 0)], sympy.Integer(1))
    'a coin weight 1/(1 + E) is not a sum of rationals times exp(c*1), c rational'
    """
    for run in runs:
        if weight_value(run.weight, unit) is None:
            return (f"a coin weight {run.weight} is not a sum of rationals times "
                    f"exp(c*{unit}), c rational")
    return None


def weighted_sums(runs: Sequence[tuple[Run, Value]],
                  unit: sympy.Expr) -> dict[Hashable, Value] | None:
    """Per output, the sum of its runs' values ``{(e, W): q}`` (each a run and its
    probability before its weight, in the unit ``unit``) times their coin weights
    (:func:`weight_value`); None when a weight is not a sum ``q exp(c unit)``.

    Examples
    --------
    >>> import sympy
    >>> from fractions import Fraction as F
    >>> from exactdp.programs.runs import Run
    >>> half = sympy.Rational(1, 2)
    >>> runs = [(Run((), (), half, "a"), {(0, F(-1)): F(1)}),
    ...         (Run((), (), half, "b"), {(0, F(0)): F(1)})]
    >>> weighted_sums(runs, sympy.Integer(1))
    {'a': {(0, Fraction(-1, 1)): Fraction(1, 2)}, 'b': {(0, Fraction(0, 1)): Fraction(1, 2)}}
    """
    sums: dict[Hashable, Value] = {}
    for run, value in runs:
        w = weight_value(run.weight, unit)
        if w is None:
            return None
        total = sums.setdefault(run.output, {})
        for key, q in (value if w is ONE else times(w, value)).items():
            add_term(total, key, q)
    return sums


def x_form(values: Sequence[dict], lam: sympy.Expr) -> RationalForm | None:
    """The probabilities ``values`` (each ``{(e, W): q}``, Fractions: ``sum q lam**e
    exp(lam W)``, a run of continuous noise summed per output) as flint polynomials in
    ``x = exp(-lam/L)`` over one power of ``x``: ``q lam**e exp(lam W) = q lam**e
    x**(-L W)``, ``L`` the common denominator of the ``W`` (``lam`` rational, or any value
    when no term has ``e > 0``). None beyond :data:`exactdp.xform.DENSE_DEGREE_LIMIT`.

    Parameters
    ----------
    values : sequence of dict, length (outputs,)
        Per output ``{(e, W): q}`` with Fractions ``W`` and ``q``.
    lam : sympy.Expr
        The unit: a rational, or ``r epsilon``.

    Returns
    -------
    RationalForm or None
        ``polys[r] / x**top``, ``x = exp(-lam/L)``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> import sympy
    >>> rf = x_form([{(0, F(0)): F(1, 2)}, {(0, F(-1)): F(1, 2)}], sympy.Integer(1))
    >>> rf.value, [str(p) for p in rf.polys]
    (exp(-1), ['1/2', '1/2*x'])
    """
    ws = [w for v in values for _, w in v]
    L = lcm(*(Fraction(w).denominator for w in ws)) if ws else 1
    powers = [int(Fraction(w) * L) for w in ws]
    top = max(0, *powers) if powers else 0
    if powers and top - min(powers) > DENSE_DEGREE_LIMIT:
        return None
    lq = flint.fmpq(int(lam.p), int(lam.q)) if lam.is_Rational else None
    polys: list[flint.fmpq_poly] = []
    for v in values:
        low = min((int(Fraction(w) * L) for _, w in v), default=top)
        coeffs = [flint.fmpq(0)] * (top - low + 1)
        for (e, w), q in v.items():
            f = Fraction(q)
            c = flint.fmpq(f.numerator, f.denominator)
            coeffs[top - int(Fraction(w) * L)] += c if e == 0 else c * lq**e
        polys.append(flint.fmpq_poly(coeffs))
    den = flint.fmpq_poly([0] * top + [1])
    return RationalForm(X, None, sympy.exp(-lam / L), L, polys=tuple(polys), denominator=den)
