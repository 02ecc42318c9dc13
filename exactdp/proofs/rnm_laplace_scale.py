r"""RNM with Laplace noise: private at scale 2 Delta/eps, not at Delta/eps.

Statement
---------
1. RNM with i.i.d. :math:`\mathrm{Lap}(2\Delta/\varepsilon)` noise is
   :math:`\varepsilon`-DP for general (non-monotone) score functions.
2. With :math:`\mathrm{Lap}(\Delta/\varepsilon)` noise (the scale Dwork & Roth 2014, Claim
   3.9, prove for counting queries, i.e. monotone scores) it is *not*
   :math:`\varepsilon`-DP for general scores: on two items at gap g, the pair
   :math:`q = (0, -g)`, :math:`q' = (-\Delta, -g + \Delta)` has a privacy loss that exceeds
   :math:`\varepsilon` once g is large (it tends to :math:`2\varepsilon`).
3. A known number (docs/analyzer.md, with its closed form): at :math:`\varepsilon = 0.1`,
   scale :math:`2/\varepsilon`, q = (1,1,1,1,1) vs (2,0,0,0,0), output 0: loss 0.0926959.

Human proof (own words)
-----------------------
1. Fix the other outputs' noise; r wins iff its noisy score beats the others' maximum, a
   threshold that moves by at most :math:`\Delta` when q moves to a neighbour while
   :math:`q_r` moves by at most :math:`\Delta`: together at most :math:`2\Delta`, and a
   Laplace density of scale :math:`2\Delta/\varepsilon` changes by at most
   :math:`e^{\varepsilon}` under a shift of :math:`2\Delta`. 2. With half the scale the
   same shift of :math:`2\Delta` costs up to :math:`e^{2\varepsilon}` in the tail, which is
   where the losing output's probability lives when g is large.

Method of the check
-------------------
:func:`exactdp.check_dp` at each stated epsilon on every vector of the family, against
every vertex neighbour (exact: RNM-Laplace's probabilities are exp-polynomials in epsilon
and the engine decides signs exactly); :func:`exactdp.privacy_loss` for the witness of 2
and the known number of 3.

Scope
-----
1: epsilon in {1/10, 1/2, 1, 2}, every integer vector with n <= 3 and gaps <= 2;
2: epsilon = 1, gap 6 (a witness suffices to refute); 3: the stated pair.
"""

from __future__ import annotations

import sympy

from exactdp.analysis import check_dp, privacy_loss
from exactdp.audit.sweeps import score_vectors
from exactdp.mechanisms import ReportNoisyMax
from exactdp.mechanisms.custom import wrong_rnm_laplace
from exactdp.proofs.result import ProofResult, run_checks

NAME = "rnm_laplace_scale"
STATEMENT = "RNM-Laplace: eps-DP at scale 2 Delta/eps, not at Delta/eps"

EPSILONS = (sympy.Rational(1, 10), sympy.Rational(1, 2), sympy.Integer(1), sympy.Integer(2))


def private_at(make=lambda e: ReportNoisyMax(e, noise="laplace"), epsilons=EPSILONS,
               n_max: int = 3, gap_max: int = 2):
    """check_dp of ``make(eps)`` at each epsilon on the family: (holds, cases, failures)."""
    bad, cases = [], 0
    for e in epsilons:
        mech = make(e)
        for q in score_vectors(n_max, gap_max):
            cases += 1
            res = check_dp(mech, q)
            if not res.holds:
                bad.append((str(e), q, float(res.loss)))
    return not bad, cases, tuple(bad[:5])


def half_scale_not_private(gap: int = 6):
    """The witness pair at epsilon = 1: loss > 1 for Lap(Delta/eps) on general scores."""
    loss = privacy_loss(wrong_rnm_laplace(1), (0, -gap), (-1, -gap + 1))
    value = float(sympy.N(loss.value, 30))  # decided with a wide margin (0.7 and 5e-7)
    return value > 1, 1, f"loss {value:.6f} at gap {gap}"


def known_number():
    """Known number: eps = 0.1, (1,1,1,1,1) vs (2,0,0,0,0): loss 0.0926959."""
    loss = privacy_loss(ReportNoisyMax(sympy.Rational(1, 10), noise="laplace"),
                        (1, 1, 1, 1, 1), (2, 0, 0, 0, 0))
    value = float(sympy.N(loss.value, 30))  # decided with a wide margin (0.7 and 5e-7)
    return abs(value - 0.0926959) < 5e-7, 1, f"loss {value:.9f}"


def verify(*, executor=None) -> ProofResult:
    """Run the three checks (``executor`` unused)."""
    scope = ("scale 2 Delta/eps: eps in {1/10, 1/2, 1, 2}, integer vectors n <= 3, gaps <= 2, "
             "every vertex neighbour; scale Delta/eps: one witness at eps = 1")
    return run_checks(NAME, STATEMENT, scope, [
        ("private at 2 Delta/eps", private_at),
        ("not private at Delta/eps", half_scale_not_private),
        ("known number", known_number),
    ])
