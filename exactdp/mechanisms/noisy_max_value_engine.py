"""``ReportNoisyMax(output="value")`` on the program engine: the exact privacy loss
``sup_v |ln f_q(v) / f_q'(v)|`` of a pair.

With Laplace or exponential noise the loss is the program engine's: the library's
:func:`~exactdp.programs.library_release.noisy_max_value_laplace` /
:func:`~exactdp.programs.library_release.noisy_max_value_exponential` (the same algorithm,
``max_r (q_r + Z_r)``, declared with the sensitivity ``c*Delta/2`` so that their scale
``2*sensitivity/epsilon`` is the class's ``c*Delta/epsilon``; the frozen table
``tests/programs/release_closed_forms.json`` checks their densities and CDFs equal to the
class's closed forms) read by :mod:`exactdp.programs.release_loss`, which reads their one
pattern as a released maximum (:mod:`exactdp.programs.release_max`: the density as the
derivative of a product of CDFs, polynomials in ``x = exp(-epsilon/(c*Delta*L))`` on the
pieces between the scores; exact candidates at the pieces' ends and limits, interior
critical points as certified intervals, the support edge of exponential noise from the
orders of vanishing), under its cost model.

The exact density and CDF at a rational point are the same program's too
(:func:`value_view`, what ``ValueDistribution.density`` / ``.cdf`` read for these noises), and
so is the law of the value as sympy expressions of it on the cells between the scores, a
symbolic epsilon too (:func:`value_law`: :func:`~exactdp.programs.release_law.pattern_law`
of the program's one pattern, what ``ValueDistribution.density_expr`` / ``.cdf_expr`` read).

Not integrals, kept here: the exact limits (epsilon = oo: ``V = max q`` exactly; epsilon
= 0: no distribution), and Gumbel noise, outside the engine's class of released values:
``V`` is Gumbel with location ``b ln S``, ``S = sum_r exp(q_r/b)``, so the log density
ratio is ``ln(S/S') - (S - S') exp(-v/b)``: 0 when ``S = S'``, else ``oo`` approached as
``v -> -oo``.

References
----------
Y. Wang, Z. Ding, G. Wang, D. Kifer, D. Zhang, "Proving differential privacy with shadow
execution", PLDI 2019 (the noisy-max variants returning the value); E. J. Gumbel,
*Statistics of Extremes*, 1958 (the maximum of Gumbel variables is Gumbel).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

import sympy

from .._validate import argument_error, check_same_length
from ..cost import as_caller
from ..distribution import LossSupremum
from ..exact.signs import compare
from ..scores import ScoreVector
from .noisy_max_value import set_engine_route

if TYPE_CHECKING:
    from ..programs.release import ReleaseProgramMechanism
    from ..programs.release_law import ValueLaw
    from .base import Mechanism


@lru_cache(maxsize=16)
def _program(noise: str, sensitivity: sympy.Expr) -> Any:
    """The library program of ``noise`` declared with ``sensitivity`` (one program per
    sensitivity, so that equal mechanisms share the engine's caches)."""
    from ..programs import library_release  # the engine sits a layer above the mechanisms
    from ..programs.language import program

    prog = (library_release.noisy_max_value_laplace if noise == "laplace"
            else library_release.noisy_max_value_exponential)
    if sensitivity == prog.declaration.sensitivity:
        return prog
    return program(prog.func, sensitivity=sensitivity, output="release")


@lru_cache(maxsize=64)
def value_mechanism(noise: str, epsilon: sympy.Expr, scale_factor: sympy.Expr
                    ) -> ReleaseProgramMechanism:
    """The library program releasing the noisy maximum with noise of scale
    ``scale_factor / epsilon`` (``c*sensitivity``; the program's scale is
    ``2*sensitivity/epsilon``)."""
    return _program(noise, scale_factor / 2)(epsilon=epsilon)


def _gumbel(mech: Mechanism, q: ScoreVector, q2: ScoreVector) -> LossSupremum:
    """Gumbel noise: ``V ~ Gumbel(b ln S, b)``; the log density ratio is ``ln(S/S') - (S -
    S') exp(-v/b)``."""
    rate = mech.rate
    S = sympy.Add(*[sympy.exp(rate * v) for v in q.exact])
    S2 = sympy.Add(*[sympy.exp(rate * v) for v in q2.exact])
    s = compare(S, S2)
    if s == 0:
        return LossSupremum(sympy.Integer(0), True, 0,
                            "every value v (both inputs give V the same Gumbel law)")
    b = 1 / rate
    events = []
    for v in (-b * 4**j for j in range(2, 6)):
        val = sympy.log(S / S2) - (S - S2) * sympy.exp(-rate * v)
        events.append((f"the value v = {v}", -val if compare(val, 0) < 0 else val))
    return LossSupremum(sympy.oo, False, -s, "the values v -> -oo (not attained)",
                        tuple(events))


def value_loss(mech: Mechanism, noise: str, q: ScoreVector, q2: ScoreVector,
               func: str) -> LossSupremum:
    """The exact ``sup_v |ln f_q(v) / f_q'(v)|`` of report-noisy-max releasing the value:
    the program engine's for Laplace and exponential noise (the module docstring).

    Raises
    ------
    ValueError
        Lengths that differ; epsilon = 0 (no distribution); a symbolic epsilon; the
        engine's one-line refusals (irrational scores or rate, the cost model).
    """
    check_same_length(func, ("scores", "neighbour"), (q.raw, q2.raw))
    limit = mech.epsilon_limit
    if limit == "zero":
        raise ValueError(f"{func}: at epsilon = 0 the noise has infinite scale and V has no "
                         "distribution (the loss tends to 0 only for Laplace noise)")
    if mech.epsilon.free_symbols:
        raise argument_error(func, "epsilon", "a number here", mech.epsilon)
    if limit is not None:  # epsilon = oo: V = max q exactly
        top, top2 = max(q.exact), max(q2.exact)
        if compare(top, top2) == 0:
            return LossSupremum(sympy.Integer(0), True, 0, f"the value v = {top} (no noise)")
        return LossSupremum(sympy.oo, True, 1, f"the value v = {top}: probability 1 under "
                            "the scores, 0 under the neighbour (no noise)")
    if noise == "gumbel":
        return _gumbel(mech, q, q2)
    engine = value_mechanism(noise, mech.epsilon, mech.c * mech.sensitivity)
    with as_caller(func):
        return engine.evaluate("density", q, q2)


def value_view(mech: Mechanism, noise: str, q: ScoreVector, which: int,
               v: sympy.Expr) -> sympy.Expr:
    """The exact density (``which`` 0) or CDF (``which`` 1) of the released value at the
    rational ``v``: the program engine's distribution of the library program (Laplace or
    exponential noise, a number epsilon > 0 and finite).

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.ReportNoisyMax(1, noise="exponential", output="value")
    >>> value_view(m, "exponential", exactdp.as_scores([0]), 1, sympy.Integer(2))
    1 - exp(-1)
    """
    dist = value_mechanism(noise, mech.epsilon, mech.c * mech.sensitivity).distribution(q)
    return dist.density(v) if which == 0 else dist.cdf(dist.outputs[0], 0, v)


def value_law(mech: Mechanism, noise: str, q: ScoreVector) -> ValueLaw:
    """The exact law of the released value on its cells (Laplace or exponential noise,
    epsilon > 0 finite, a number or symbolic): :func:`~exactdp.programs.release_law.
    pattern_law` of the library program's one pattern.

    Raises
    ------
    ValueError
        The engine's one-line refusals (irrational scores, the cost model).

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.ReportNoisyMax(1, noise="exponential", output="value")
    >>> value_law(m, "exponential", exactdp.as_scores([0])).expr(1, sympy.Symbol("v"))
    Piecewise((0, v < 0), (1 - exp(-v/2), True))
    """
    from ..programs.release_law import pattern_law  # the engine: a layer above

    dist = value_mechanism(noise, mech.epsilon, mech.c * mech.sensitivity).distribution(q)
    return pattern_law(dist, dist.keys[0], 0, f"{type(mech).__name__}.value_law")


set_engine_route("loss", value_loss)
set_engine_route("view", value_view)
set_engine_route("law", value_law)
