r"""Permute-and-flip and the exponential mechanism are :math:`\varepsilon`-DP, for every epsilon.

Statement
---------
For every score vector q, every neighbouring q' (:math:`\|q - q'\|_\infty \le \Delta`),
every output r and every :math:`\varepsilon > 0`:
:math:`\Pr[M(q) = r] \le e^{\varepsilon} \Pr[M(q') = r]` for M = PF (coins
:math:`e^{\varepsilon(q_r - q_*)/(2\Delta)}`) and M = EM (weights
:math:`e^{\varepsilon q_r/(2\Delta)}`) (McSherry & Talwar 2007; McKenna & Sheldon 2020).

Human proof (own words)
-----------------------
EM: moving to a neighbour multiplies r's weight by at most :math:`e^{\varepsilon/2}` and
divides the normaliser by at most :math:`e^{\varepsilon/2}`. PF: both mechanisms are
regular (:mod:`exactdp.proofs.section_2_regularity`), so it suffices to compare q with
:math:`q \pm 2\Delta e_r` (:mod:`exactdp.proofs.section_5_1_reduction`). If r stays below
the maximum, only r's coin changes, by exactly :math:`e^{\pm\varepsilon}`, and the integral
:math:`\int_0^1\prod_{s\ne r}(1 - tp_s)dt` is untouched. If r reaches or passes the
maximum, r's coin is capped at 1 while the others' coins fall; this case is the core of
McKenna & Sheldon (2020, Thm 1) and is not re-derived here: the machine check below covers
it on the stated family.

Method of the check
-------------------
:func:`exactdp.certify_dp` per vector: in :math:`x = e^{-\varepsilon/N}` every condition is
a polynomial inequality on (0, 1), decided by exact real-root isolation, for every output
and both directions. Neighbours: the reduced set :math:`q \pm \Delta(2e_r - 1)` plus the
all-up/all-down shifts (sufficient for regular mechanisms, by the two modules above) over
the whole family; every vertex of the neighbour box :math:`q + \Delta\{-1,0,1\}^n` for
n <= 3 (default) and n <= 5 (``--runslow``), which needs only coordinatewise monotonicity.

Scope
-----
Every eps > 0 on every integer vector with n <= 5 and gaps <= 4 (default; reduced
neighbours), exhaustive vertices for n <= 3, gaps <= 4 (default) and n <= 5 (slow); n = 2
for all real gaps (:func:`two_items_all_real_gaps`: the log-probabilities are
:math:`\varepsilon/(2\Delta)`-Lipschitz in the score difference).
"""

from __future__ import annotations

from functools import partial

import sympy

from exactdp.exact.unit_interval import sign_on_unit_interval
from exactdp.mechanisms import ExponentialMechanism, PermuteAndFlip
from exactdp.proofs.checks import dp_certified
from exactdp.proofs.result import ProofResult, run_checks, sweep_check

NAME = "dp_of_pf_and_em"
STATEMENT = "PF and EM are eps-DP for every eps"


def _nonnegative_on_unit(expr, w) -> bool:
    """A rational function of w is >= 0 on (0, 1): numerator and denominator signs, exactly."""
    num, den = sympy.fraction(sympy.cancel(sympy.together(expr)))
    d = sign_on_unit_interval(sympy.Poly(den, w), w)
    if d.roots or d.constant_sign not in (1, -1):
        return False
    return sign_on_unit_interval(sympy.Poly(d.constant_sign * num, w), w).nonnegative


def two_items_all_real_gaps(mechanisms=(PermuteAndFlip, ExponentialMechanism)):
    """n = 2, every real gap and epsilon: the log-probabilities are eps/(2 Delta)-Lipschitz.

    Output 2's probability depends only on ``d = q_2 - q_1``: ``L(eps |d| / Delta)`` for
    ``d <= 0`` and ``1 - L(eps d / Delta)`` for ``d >= 0``, with ``L`` the loser's probability
    (the library's, at scores (0, -1) and a symbolic epsilon ``z``), continuous at 0
    (``L(0) = 1/2``). If ``|d/dz ln L| <= 1/2`` and ``|d/dz ln(1 - L)| <= 1/2`` for z > 0,
    then ``ln Pr`` moves by at most ``eps/(2 Delta) * |d - d'| <= eps`` between neighbours
    (``|d - d'| <= 2 Delta``). Each bound is a rational function of ``w = e^{-z/2}`` on
    (0, 1), decided by exact real-root isolation.
    """
    z = sympy.Symbol("z", positive=True)
    w = sympy.Symbol("w", positive=True)
    half = sympy.Rational(1, 2)
    ok, cases = True, 0
    for mech in mechanisms:
        loser = mech(z).distribution([0, -1]).probabilities[1]
        ok &= sympy.limit(loser, z, 0, "+") == half
        for f in (loser, 1 - loser):
            rate = sympy.simplify(sympy.diff(sympy.log(f), z).subs(z, -2 * sympy.log(w)))
            ok &= _nonnegative_on_unit(half - rate, w) and _nonnegative_on_unit(half + rate, w)
            cases += 1
    return ok, cases


def verify(*, n_max: int = 5, gap_max: int = 4, exhaustive_n_max: int = 3,
           mechanisms=("pf", "em"), executor=None) -> ProofResult:
    """Certify eps-DP of each mechanism (names of :data:`~exactdp.proofs.checks.MECHANISMS`)."""
    checks = []
    for m in mechanisms:
        red = partial(dp_certified, m, search="reduced")
        ex = partial(dp_certified, m, search="exhaustive")
        checks.append((f"{m}, reduced neighbours",
                       lambda red=red: sweep_check(red, n_max, gap_max, executor)))
        checks.append((f"{m}, every vertex neighbour",
                       lambda ex=ex: sweep_check(ex, exhaustive_n_max, gap_max, executor)))
    if set(mechanisms) <= {"pf", "em"}:
        checks.append(("two items, real gaps", two_items_all_real_gaps))
    scope = (f"every eps > 0; integer vectors n <= {n_max}, gaps <= {gap_max} against the "
             f"reduced neighbours; every vertex neighbour for n <= {exhaustive_n_max}; "
             "n = 2 for all real gaps (symbolic Lipschitz bound)")
    return run_checks(NAME, STATEMENT, scope, checks)
