r"""The pointwise ratio bound: :math:`E[\mathrm{err}_{EM}(q)] \le 2\,E[\mathrm{err}_{PF}(q)]`.

Statement
---------
For every score vector q and every :math:`\varepsilon > 0`,
:math:`E[q_* - q_{EM(q)}] \le 2\,E[q_* - q_{PF(q)}]`. So the notes' "2.2x smaller on
average" cannot hold as an average of pointwise ratios (docs/claims.md); and the
constant 2 is sharp (two items, gap to infinity).

Human proof (two items, own words)
----------------------------------
With one loser at gap g and :math:`p = e^{-\varepsilon g/(2\Delta)}`, PF loses with
probability :math:`p/2` and EM with :math:`p/(1 + p)`; both errors are g times that, so the
ratio is :math:`2/(1 + p) \in (1, 2)`, tending to 2 as :math:`p \to 0`. For n > 2 no
general human proof is given here; the check below covers a finite family.

Method of the check
-------------------
For integer scores both expected errors are rational functions of
:math:`x = e^{-\varepsilon/2}`; the numerator of :math:`2E_{PF} - E_{EM}` (over a
denominator proved positive on (0, 1)) is proved :math:`\ge 0` on (0, 1) by exact real-root
isolation (:func:`exactdp.proofs.checks.error_ratio_at_most`). Two items: the ratio
identity :math:`2/(1 + p)` symbolically.

Scope
-----
Every eps > 0 on every integer vector with n <= 5 and gaps <= 4 (default), n <= 6
(``--runslow``); n = 2 (symbolic) and n = 3 (Bernstein subdivision on the unit square of the
coins, :func:`three_items_ratio`) for all real gaps. Nothing is claimed for n >= 4 with
real gaps.
"""

from __future__ import annotations

from functools import partial

import sympy

from exactdp.mechanisms import ExponentialMechanism, PermuteAndFlip
from exactdp.proofs import three_items as t3
from exactdp.proofs.checks import error_ratio_at_most
from exactdp.proofs.result import ProofResult, run_checks, sweep_check
from exactdp.proofs.unit_sign import nonnegative_on_square

NAME = "error_ratio_at_most_two"
STATEMENT = "E[err_EM] <= 2 E[err_PF] pointwise (every eps)"


def two_items_ratio() -> tuple[bool, int]:
    """n = 2, every real gap and epsilon: ``E_EM / E_PF = 2/(1 + p)``, ``p = e^{-eps g/2}``.

    The probabilities depend on ``u = epsilon * g`` only (symbolic epsilon at gap 1).
    """
    u = sympy.Symbol("u", positive=True)
    pf = PermuteAndFlip(u).distribution([0, -1]).probabilities
    em = ExponentialMechanism(u).distribution([0, -1]).probabilities
    p = sympy.exp(-u / 2)
    return sympy.simplify(em[1] / pf[1] - 2 / (1 + p)) == 0, 1


def three_items_ratio(factor: object = 2) -> tuple[bool, int]:
    """n = 3, every real gap pair and epsilon, by Bernstein on the unit square.

    With gaps ``0 <= a <= b``, ``A = c P_2^PF - P_2^EM`` and ``B = c P_3^PF - P_3^EM``
    (``c = factor``): ``c E_PF - E_EM = a A + b B = a (A + B) + (b - a) B``, so
    ``B >= 0`` and ``A + B >= 0`` (times ``D > 0``, polynomials in (x, u)) suffice.
    """
    c = sympy.Rational(factor)
    b_poly = t3.poly(c * t3.PF[2] * t3.D - t3.EM_TIMES_D[2])
    ab_poly = t3.poly(c * (t3.PF[1] + t3.PF[2]) * t3.D - t3.EM_TIMES_D[1] - t3.EM_TIMES_D[2])
    ok = t3.formulas_match_library() and nonnegative_on_square(b_poly) and \
        nonnegative_on_square(ab_poly)
    return ok, 2


def verify(*, n_max: int = 5, gap_max: int = 4, factor: object = 2,
           executor=None) -> ProofResult:
    """Certify ``E[err_EM] <= factor * E[err_PF]`` on the family (``factor`` for controls)."""
    scope = (f"every eps > 0; exhaustive over integer vectors n <= {n_max}, gaps <= "
             f"{gap_max} (exact root isolation); n = 2 (symbolic) and n = 3 (Bernstein) for all "
             "real gaps")
    check = partial(error_ratio_at_most, str(sympy.Rational(factor)))
    return run_checks(NAME, STATEMENT, scope, [
        ("integer family", lambda: sweep_check(check, n_max, gap_max, executor)),
        ("two items, real gaps", two_items_ratio),
        ("three items, real gaps", lambda: three_items_ratio(factor)),
    ])
