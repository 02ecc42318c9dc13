"""Released values that are an invertible linear map of free noises: the shift between two
inputs.

A run releases values ``v = k + A z`` (``A`` an exact rational matrix on the noises ``z``
that the released values use, ``k`` the input's constants). When no comparison of the run
uses those noises, and ``A`` is square with ``det A != 0`` (a fresh noisy value, as the
numerical sparse vector releases: ``A = (1)``; a histogram: ``A`` diagonal; running sums,
SmartSum: ``A`` triangular), the change of variables ``z = A^-1 (v - k)`` has the same
Jacobian on both inputs, and under the other input ``z' = z + d`` with ``d = A^-1 (k -
k')``. The density of an output is then the pattern's probability ``P`` times the free
noises' densities, so

    ``ln f / f' = ln P / P' + sum_i (ln g_i(z_i) - ln g_i(z_i + d_i))``

with the ``z_i`` free and independent. For Laplace noise of scale ``b_i`` each term ranges
over ``[-|d_i| / b_i, |d_i| / b_i]``, both ends attained (every ``z_i`` beyond ``0`` and
``-d_i`` on one side), so the supremum of ``|ln f / f'|`` over the pattern's outputs is the
larger of ``ln P / P' + s`` and ``-(ln P / P' - s)``, ``s = sum_i |d_i| / b_i`` (the
*spread*), attained; for exponential noise with ``d_i != 0`` the supports differ: a set of
values of positive probability under one input only (an infinite loss).

References
----------
W. Feller, *An Introduction to Probability Theory and Its Applications*, vol. II, Wiley
1971, section I.2 (densities under linear maps). Y. Wang, Z. Ding, G. Wang, D. Kifer and
D. Zhang, "Proving differential privacy with shadow execution", PLDI 2019 (the numerical
sparse vector: released values with a fresh noise).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import flint
import sympy

from ..exact import flint_prec, to_arb
from .release_density import affine
from .release_select import Candidate
from .release_sup import prec
from .runs import Run

#: The laws whose shifted log density ratio is bounded and attained (Laplace) or infinite
#: on a set of positive probability (exponential: the support moves).
LAWS = ("laplace", "exponential")


@dataclass(frozen=True)
class Shift:
    """The shift of the free noises between two inputs on a separable pattern.

    Attributes
    ----------
    spread : sympy.Expr
        ``s = sum_i |d_i| / b_i`` over the Laplace noises (exact, in units of the scales).
    support : int
        Whether an exponential noise moves, so that the supports differ: +1 when some
        ``d_i < 0`` (values of positive probability under the first input only: ``z_i`` in
        ``[0, -d_i)``), else -1 when some ``d_i > 0`` (under the second only), 0 when none
        moves.
    """

    spread: sympy.Expr
    support: int


def _fmpq(x: Fraction | int) -> flint.fmpq:
    x = Fraction(x)
    return flint.fmpq(x.numerator, x.denominator)


def separable_shift(run: Run, other: Run) -> Shift | None:
    """The :class:`Shift` of the noises between ``run`` (one input) and ``other`` (the
    same run on the other input), or None when their released values are not an invertible
    linear map of free noises (module docstring): a released value using a noise some
    comparison uses, different coefficients on the two inputs, a noise of another law, or
    a singular map.

    Examples
    --------
    >>> from exactdp.programs import library_release as L
    >>> m = L.laplace_mechanism(epsilon=1)
    >>> a, b = m.distribution([0]), m.distribution([3])
    >>> separable_shift(a.runs[a.keys[0]][0], b.runs[b.keys[0]][0])
    Shift(spread=3, support=0)
    """
    used = {i for r in (run, other) for c in r.constraints for i, _ in c.expr.coefficients}
    rows, consts = [], []
    for lin_p, lin_q in zip(run.released, other.released, strict=True):
        (cp, kp), (cq, kq) = affine(lin_p), affine(lin_q)
        if cp != cq or set(cp) & used:
            return None
        rows.append(cp)
        consts.append(kp - kq)
    noises = sorted({i for row in rows for i in row})
    if not rows or len(noises) != len(rows) or any(
            run.draws[i] != other.draws[i] or run.draws[i].law not in LAWS for i in noises):
        return None
    if all(len(row) == 1 for row in rows):  # one noise a value (histograms): no matrix
        shifts = {i: _fmpq(c) / _fmpq(a) for row, c in zip(rows, consts, strict=True)
                  for i, a in row.items()}
    else:
        A = flint.fmpq_mat([[_fmpq(row.get(i, 0)) for i in noises] for row in rows])
        if A.det() == 0:
            return None
        d = A.solve(flint.fmpq_mat([[_fmpq(c)] for c in consts]))
        shifts = {i: d[j, 0] for j, i in enumerate(noises)}
    spread: sympy.Expr = sympy.Integer(0)
    moves = set()
    for i in noises:
        shift = shifts[i]
        if run.draws[i].law == "exponential":
            moves.add(-1 if shift > 0 else 1 if shift < 0 else 0)
        else:
            spread += sympy.Rational(int(abs(shift).p), int(shift.q)) / run.draws[i].scale
    return Shift(spread, 1 if 1 in moves else -1 if -1 in moves else 0)


def positive_log(x: sympy.Expr) -> sympy.Expr:
    """``sympy.log(x)`` of a positive real ``x``, as sympy evaluates it, without the
    algebraic-number test of ``log.eval`` (tens of milliseconds on a quotient of
    exponential sums, and it only acts on complex arguments): numbers and ``exp(a)`` are
    evaluated, anything else is left ``log(x)``.

    Examples
    --------
    >>> import sympy
    >>> positive_log(sympy.Integer(1)), positive_log(sympy.exp(sympy.Rational(1, 3)))
    (0, 1/3)
    >>> positive_log(1 + sympy.exp(-1)), positive_log(sympy.exp(1))
    (log(exp(-1) + 1), 1)
    """
    if x.is_Number or isinstance(x, sympy.exp) or x is sympy.E:  # exp(1) is E, not an exp
        return sympy.log(x)
    return sympy.log(x, evaluate=False)


@lru_cache(maxsize=4096)
def _log_ball(p: sympy.Expr, bits: int) -> flint.arb:
    """``ln p`` enclosed at ``bits`` (cached: a suite row reads one vector's probabilities
    against each of its neighbours)."""
    with flint_prec(bits):
        return to_arb(p, bits).log()


def separable_candidates(dist: Any, other: Any, key: Any, label: str
                         ) -> list[Candidate] | None:
    """Candidates for the loss of :mod:`exactdp.programs.release_loss` on a pattern whose
    released values are an invertible linear map of noises no comparison uses
    (:func:`separable_shift`: ``ln P/P' + s`` and ``-(ln P/P' - s)``, both attained;
    infinite where an exponential noise moves), or None when the pattern is not of that
    form (``dist``, ``other``: the two inputs' release distributions, ``key`` the
    pattern's, ``label`` its name in the witness).

    Parameters
    ----------
    dist : Any
        The first input's release distribution (``runs``, ``keys``, ``probabilities``).
    other : Any
        The second input's release distribution, on the same patterns.
    key : Any
        The pattern's key in both distributions' ``runs``.
    label : str
        The pattern's name, used in the candidates' witness text.

    Returns
    -------
    list of Candidate or None
        The loss candidates (empty: both probabilities 0), or None when the pattern is not
        separable.
    """
    runs_p, runs_q = dist.runs[key], other.runs[key]
    shift = separable_shift(runs_p[0], runs_q[0]) if len(runs_p) == len(runs_q) == 1 else None
    if shift is None:
        return None
    P = dist.probabilities[dist.keys.index(key)]
    Q = other.probabilities[other.keys.index(key)]
    if P == 0 or Q == 0:
        return [Candidate(None, None, 1 if Q == 0 else -1, True, label)] if P != Q else []
    if shift.support:
        return [Candidate(None, None, shift.support, True, f"{label}: a released value below "
                          "the other input's support (probability 0 under it)")]
    s = shift.spread
    with flint_prec(prec()):  # one ball of each density: both candidates share them
        ratio, b = _log_ball(P, prec()) - _log_ball(Q, prec()), to_arb(s, prec())
    side = f"{label} with every noise beyond both inputs' centres, on the side favouring the"
    return [Candidate((P * sympy.exp(s), Q), ratio + b, 0, True, f"{side} first",
                      log=lambda d: positive_log(P / Q) + s if d >= 0 else positive_log(Q / P) - s),
            Candidate((P, Q * sympy.exp(s)), ratio - b, 0, True, f"{side} second",
                      log=lambda d: positive_log(P / Q) - s if d >= 0 else positive_log(Q / P) + s)]
