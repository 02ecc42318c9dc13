"""The exact privacy-loss distribution of one neighbouring pair (the constructor).

``privacy_loss_distribution(mechanism, scores, neighbour)`` evaluates both exact output
distributions (a sequence mechanism's aligned over the union of their outputs,
:mod:`exactdp.analysis.outputs`), sets aside outputs with ``P_r = 0`` or ``Q_r = 0`` (the
masses at infinite loss) and merges outputs whose loss ratios are the same rational
function of ``x`` (or the same sympy pair), giving the base outcomes of a
:class:`~exactdp.analysis.pld.core.PrivacyLossDistribution`.
"""

from __future__ import annotations

from collections.abc import Sequence

import flint
import sympy

from ..._validate import argument_error, check_same_length
from ...exact.arb import to_arb
from ...exact.signs import sign as exact_sign
from ...scores import as_scores
from ..common import as_mechanism, mechanism_epsilon
from ..neighbourhood import check_pair
from ..outputs import output_union
from .core import PrivacyLossDistribution
from .xform import XForm, ratio_key, sum_fractions, xform_pair


def privacy_loss_distribution(mechanism: object, scores: object, neighbour: object, *,
                              allow_non_neighbour: bool = False) -> PrivacyLossDistribution:
    """The exact PLD from ``M(scores)`` to ``M(neighbour)``.

    Parameters
    ----------
    mechanism : Mechanism
        A selection mechanism with a numeric epsilon (``distribution(q)`` must give exact
        probabilities).
    scores, neighbour : sequence of numbers, shape (n,)
        The pair; ``P = M(scores)``, ``Q = M(neighbour)``. They must be neighbouring
        (``||q - q'||_inf <= sensitivity``, moving in one direction for a monotonic
        mechanism), as for :func:`exactdp.privacy_loss`.
    allow_non_neighbour : bool
        Skip the neighbour check (to study arbitrary pairs).

    Returns
    -------
    PrivacyLossDistribution
        Base outcomes are the outputs with ``P_r > 0`` and ``Q_r > 0``, outputs with equal
        loss merged when exact algebra proves it; ``p_inf`` collects ``Q_r = 0``.

    Raises
    ------
    ValueError
        Mismatched lengths, a pair that is not neighbouring (unless ``allow_non_neighbour``),
        a symbolic epsilon, or probabilities that cannot be evaluated.

    Notes
    -----
    The PLD is the law of ``ln(P_r/Q_r)`` for ``r ~ P`` (Meiser & Mohammadi 2018, Def. 3;
    Koskela et al. 2020, section 2).

    Examples
    --------
    >>> import exactdp
    >>> em = exactdp.ExponentialMechanism(1)
    >>> pld = exactdp.privacy_loss_distribution(em, [0, 0], [1, -1])
    >>> round(float(pld.delta(0)), 6)
    0.231059
    """
    func = "privacy_loss_distribution"
    sv, nv = as_scores(scores, "scores", func), as_scores(neighbour, "neighbour", func)
    check_same_length("privacy_loss_distribution", ("scores", "neighbour"), (sv.raw, nv.raw))
    mechanism = as_mechanism(mechanism, "privacy_loss_distribution")
    if mechanism.output_kind == "release":
        raise ValueError(f"privacy_loss_distribution: {mechanism.name} releases real values "
                         "(output kind 'release'): its PLD has no finite support here; use "
                         "privacy_loss (the exact supremum of the log density ratio)")
    check_pair(mechanism, sv, nv, "privacy_loss_distribution", allow_non_neighbour)
    eps = mechanism_epsilon(mechanism)
    if eps is not None and eps.free_symbols:
        raise argument_error("privacy_loss_distribution", "mechanism.epsilon",
                             "a number, not symbolic", mechanism.epsilon)
    dp, dq = mechanism.distribution(sv), mechanism.distribution(nv)
    # a sequence mechanism may reach different outputs on the two vectors: align them by
    # output value over the union (an output reached on one side only: probability 0 on
    # the other, its mass goes to the infinite-loss atoms below)
    union = (output_union([dp.outputs, dq.outputs]) if mechanism.output_kind == "sequence"
             else None)
    try:
        P, Q = dp.probabilities, dq.probabilities
        if union is not None:
            P, Q = union.align(0, P, sympy.Integer(0)), union.align(1, Q, sympy.Integer(0))
        bits, pb, qb = _accurate_balls(P, Q)
    except (ValueError, NotImplementedError, TypeError) as exc:
        raise ValueError(
            f"privacy_loss_distribution: {type(mechanism).__name__} needs exact closed-form "
            f"output probabilities ({exc})") from exc
    xf = xform_pair(dp, dq)
    if xf is not None and union is not None:
        zero, one = flint.fmpq_poly(0), flint.fmpq_poly(1)
        xf = (union.align(0, xf[0], zero), union.align(0, xf[1], one),
              union.align(1, xf[2], zero), union.align(1, xf[3], one), *xf[4:])
    zero_p = [_is_zero(p, b) for p, b in zip(P, pb, strict=True)]
    zero_q = [_is_zero(q, b) for q, b in zip(Q, qb, strict=True)]
    p_inf = sympy.Add(*[P[r] for r in range(len(P)) if zero_q[r] and not zero_p[r]])
    q_ninf = sympy.Add(*[Q[r] for r in range(len(P)) if zero_p[r] and not zero_q[r]])
    keep = [r for r in range(len(P)) if not zero_p[r] and not zero_q[r]]
    classes: dict[object, list[int]] = {}
    for r in keep:
        key = ratio_key(xf[0][r] * xf[3][r], xf[1][r] * xf[2][r]) if xf else (P[r], Q[r])
        classes.setdefault(key, []).append(r)
    groups = list(classes.values())
    p_base = tuple(sympy.Add(*[P[r] for r in g]) for g in groups)
    q_base = tuple(sympy.Add(*[Q[r] for r in g]) for g in groups)
    xform = None
    if xf is not None:
        cols = []
        for num, den in ((xf[0], xf[1]), (xf[2], xf[3])):
            sums = [sum_fractions([(num[r], den[r]) for r in g]) for g in groups]
            cols += [tuple(a for a, _ in sums), tuple(b for _, b in sums)]
        xform = XForm(xf[4], xf[5], *cols)
    m = len(groups)
    atoms = tuple({tuple(int(j == i) for j in range(m)): 1} for i in range(m))
    name = mechanism.name
    return PrivacyLossDistribution(p_base, q_base, atoms, p_inf, q_ninf, 1,
                                   f"{name} {list(sv.exact)} -> {list(nv.exact)}", xform,
                                   guard_bits=bits - 128)


def _accurate_balls(P: Sequence, Q: Sequence) -> tuple[int, list, list]:
    """Balls of the probabilities, at the precision that makes each 100 bits accurate.

    Huge score gaps (``exp(-10**300)``) need about ``log2(gap)`` more working bits than the
    answer's digits; the extra bits found here are kept as the PLD's ``guard_bits``.
    """
    for bits in (128, 512, 2048, 8192, 32768):
        pb = [to_arb(p, bits) for p in P]
        qb = [to_arb(q, bits) for q in Q]
        if all(b == 0 or b.rel_accuracy_bits() >= 100 for b in pb + qb):
            break
    return bits, pb, qb


def _is_zero(expr: sympy.Expr, b: flint.arb) -> bool:
    return False if b > 0 else exact_sign(expr) == 0


