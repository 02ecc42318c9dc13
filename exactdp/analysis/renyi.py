"""Exact Renyi divergences between two output distributions: KL (order 1), order alpha, max.

Two distributions of a sequence mechanism (a program's outputs, reached or not) are
compared by output value over the union of their outputs (:mod:`exactdp.analysis.outputs`);
plain probability sequences position by position.

- Renyi divergence of order alpha (Renyi 1961; Mironov, CSF 2017, Def. 3):
  ``D_alpha(P || Q) = ln(sum_r P_r^alpha Q_r^(1 - alpha)) / (alpha - 1)``; ``alpha -> 1`` is
  the KL divergence ``sum_r P_r ln(P_r/Q_r)``, ``alpha = oo`` the max divergence.

Every zero test and comparison is decided by :mod:`exactdp.exact` (never a float guess).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from .._validate import argument_error
from ..cost import (
    RENYI_BITS_LIMIT,
    check_exact_exponent,
    exponent_digits,
    fmt_size,
    refuse,
    renyi_bits,
)
from ..distribution import DISCRETE_KINDS, output_kind_of
from ..exact import compare, is_zero, sign_or_none
from ..numbers import exact_number, sequence_items
from ..result import Result
from .outputs import output_union


@dataclass(frozen=True)
class Divergence(Result):
    """An exact divergence between two output distributions (nats).

    Attributes
    ----------
    value : sympy.Expr
        The exact value (``oo`` for a support mismatch); may contain the mechanism's
        symbolic epsilon.
    alpha : sympy.Expr
        The order: 1 for KL, ``oo`` for the max divergence.
    certified : bool
        True: the value is exact, and every zero test and comparison that chose it was
        decided by :func:`exactdp.exact.sign`.
    caveat : str or None
        Why not certified (None when certified).
    """

    headline_label = "divergence"
    repr_fields = ("alpha",)

    value: sympy.Expr
    alpha: sympy.Expr
    certified: bool = True
    caveat: str | None = None


def exact_probabilities(P: object, name: str) -> tuple[sympy.Expr, ...]:
    """The exact probabilities of ``P`` (a sequence or an object with ``.probabilities``),
    validated: non-empty, no float, none negative; ``name`` labels the errors."""
    if output_kind_of(P) in DISCRETE_KINDS:  # a distribution of a discrete kind
        P = P.probabilities  # type: ignore[attr-defined]
    items = sequence_items(P, name, "probabilities or a distribution", "non-empty")
    out = []
    for i, p in enumerate(items):
        if isinstance(p, float):
            raise argument_error(None, f"{name}[{i}]", "an exact probability, not a float", p)
        v = exact_number(p, name, i, allow_symbols=True)
        if sign_or_none(v) == -1:
            raise argument_error(None, f"{name}[{i}]", "a probability (>= 0)", v)
        out.append(v)
    return tuple(out)


def _pair(P, Q, func: str):
    raw = [X.probabilities if output_kind_of(X) in DISCRETE_KINDS else X
           for X in (P, Q)]
    if output_kind_of(P) == "sequence" and output_kind_of(Q) == "sequence":
        # two distributions of a sequence mechanism may reach different outputs: aligned
        # by output value over their union (probability 0 where one does not reach it)
        union = output_union([P.outputs, Q.outputs])
        if union is not None:
            raw = [union.align(i, raw[i], sympy.Integer(0)) for i in (0, 1)]
    try:  # before the validation: its sign checks evaluate exp(-d) too
        digits = exponent_digits([v for r in raw for v in r])
    except TypeError:  # not a sequence: the validation below says so
        digits = 0
    check_exact_exponent(func, digits,
                         "compare the balls of .evalf_balls(dps) of the two distributions "
                         "(exponents up to 10^4000), or use a smaller epsilon")
    p, q = exact_probabilities(raw[0], "P"), exact_probabilities(raw[1], "Q")
    if len(p) != len(q):
        raise argument_error(func, "len(Q)", f"{len(p)} (= len(P))", len(q))
    return p, q


def kl_divergence(P: object, Q: object) -> Divergence:
    """Exact Kullback-Leibler divergence ``sum_r P_r ln(P_r / Q_r)`` in nats.

    Parameters
    ----------
    P, Q : sequences of exact probabilities, shape (n,), or distributions
        (objects with ``.probabilities``).

    Returns
    -------
    Divergence
        ``value`` is ``oo`` if some ``Q_r = 0 < P_r``; ``alpha`` is 1.

    Raises
    ------
    UndecidedSignError
        If it cannot be decided whether some probability is 0.

    References
    ----------
    T. M. Cover and J. A. Thomas, Elements of Information Theory (2006), eq. (2.26).

    Examples
    --------
    >>> from exactdp import kl_divergence
    >>> print(kl_divergence(["1/2", "1/2"], ["1/4", "3/4"]).value)
    log(2/3)/2 + log(2)/2
    """
    p, q = _pair(P, Q, "kl_divergence")
    one = sympy.Integer(1)
    terms = []
    for a, b in zip(p, q, strict=True):
        if is_zero(a):
            continue
        if is_zero(b):
            return Divergence(sympy.oo, one)
        terms.append(a * sympy.log(a / b))
    return Divergence(sympy.Add(*terms), one)



def max_divergence(P: object, Q: object) -> Divergence:
    """``D_oo(P || Q) = max_{r: P_r > 0} ln(P_r / Q_r)`` (exact comparisons).

    Returns
    -------
    Divergence
        ``alpha`` is ``oo``.

    Raises
    ------
    UndecidedSignError
        If two ratios (or a probability and 0) cannot be compared exactly, for example
        when they depend on a symbolic epsilon.

    Examples
    --------
    >>> from exactdp import max_divergence
    >>> print(max_divergence(["1/2", "1/2"], ["1/4", "3/4"]).value)
    log(2)
    """
    p, q = _pair(P, Q, "max_divergence")
    best = None
    for a, b in zip(p, q, strict=True):
        if is_zero(a):
            continue
        if is_zero(b):
            return Divergence(sympy.oo, sympy.oo)
        r = a / b
        if best is None or compare(r, best) == 1:
            best = r
    return Divergence(sympy.log(best) if best is not None else sympy.Integer(0), sympy.oo)


def _check_renyi_cost(a: sympy.Rational, probs: tuple) -> None:
    """Refuse an order whose exact powers would be astronomically large (cost model:
    :func:`exactdp.cost.renyi_bits`)."""
    height = abs(int(a.p)) // int(a.q) + 1  # sympy raises contents to the integer part
    if height <= 1000:
        return
    bits = 0
    for v in probs:
        c = v.as_content_primitive()[0] if v.free_symbols or not v.is_Rational else v
        bits += int(c.p).bit_length() + int(c.q).bit_length() if c.is_Rational else 64
    est = renyi_bits(height, bits)
    if est > RENYI_BITS_LIMIT:
        raise refuse(
            "renyi_divergence",
            f"alpha = {a if height < 10**12 else '~' + fmt_size(height).lstrip('~')}",
            f"exact powers of about {fmt_size(est)} bits", f"{RENYI_BITS_LIMIT:.0e} bits",
            "use alpha=sympy.oo (the max divergence: the limit as alpha -> oo and an upper "
            "bound for every alpha) or a smaller alpha",
        )


def renyi_divergence(P: object, Q: object, alpha: object) -> Divergence:
    """Exact Renyi divergence ``D_alpha(P || Q)`` in nats.

    Parameters
    ----------
    P, Q : sequences of exact probabilities, shape (n,), or distributions
    alpha : rational number > 0, or ``sympy.oo``
        The order. ``alpha = 1`` gives the KL divergence (the limit), ``oo`` the max
        divergence.

    Returns
    -------
    Divergence
        ``value = ln(sum_r P_r^alpha Q_r^(1-alpha)) / (alpha - 1)``; ``oo`` when
        ``alpha > 1`` and some ``Q_r = 0 < P_r``, and when ``alpha < 1`` and the supports
        are disjoint (the sum is 0).

    Raises
    ------
    ValueError
        For ``alpha <= 0``, irrational or float alpha, or invalid probabilities; for an
        alpha whose exact powers would exceed :data:`exactdp.cost.RENYI_BITS_LIMIT` bits
        (the message gives the estimate and suggests ``alpha=sympy.oo``).
    UndecidedSignError
        If it cannot be decided whether some probability is 0.

    References
    ----------
    A. Renyi, "On measures of entropy and information" (1961); I. Mironov, "Renyi
    differential privacy", CSF 2017, Def. 3.

    Examples
    --------
    >>> from exactdp import renyi_divergence
    >>> print(renyi_divergence(["1/2", "1/2"], ["1/4", "3/4"], 2).value)
    log(4/3)
    """
    if alpha is sympy.oo:
        return max_divergence(P, Q)
    if isinstance(alpha, float):
        raise argument_error("renyi_divergence", "alpha", "exact (e.g. '3/2')", alpha)
    a = exact_number(alpha, "alpha", func="renyi_divergence")
    if not a.is_Rational or a <= 0:
        raise argument_error("renyi_divergence", "alpha", "a rational number > 0", alpha)
    if a == 1:
        return kl_divergence(P, Q)
    p, q = _pair(P, Q, "renyi_divergence")
    _check_renyi_cost(a, p + q)
    terms = []
    for x, y in zip(p, q, strict=True):
        if is_zero(x):
            continue
        if is_zero(y):
            if a > 1:
                return Divergence(sympy.oo, a)
            continue
        terms.append(x**a * y ** (1 - a))
    if not terms:  # disjoint supports at alpha < 1: log(0) / (alpha - 1) = +oo
        return Divergence(sympy.oo, a)
    return Divergence(sympy.log(sympy.Add(*terms)) / (a - 1), a)

