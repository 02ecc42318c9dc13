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
EM: the numerator weight changes by at most :math:`e^{\varepsilon/2}` and the normaliser
by at most :math:`e^{\varepsilon/2}` in the other direction. PF: both are regular
(:mod:`exactdp.proofs.section_2_regularity`), so the worst neighbour of (q, r) raises r by
Delta and lowers the rest (:mod:`exactdp.proofs.section_5_1_reduction`); there PF's
probability of r is :math:`p_r \int \prod(1 - t p_s)`, and one coin factor changes by at
most :math:`e^{\varepsilon}` while the integral moves the favourable way.

Method of the check
-------------------
:func:`exactdp.certify_dp` per vector: in :math:`y = e^{-\varepsilon/N}` every condition is
a polynomial inequality on (0, 1), decided by exact real-root isolation, for every output
and both directions. Neighbours: the reduced set :math:`q \pm \Delta(2e_r - 1)` plus the
all-up/all-down shifts (sufficient for regular mechanisms, by the two modules above) over
the whole family; every vertex of the neighbour box :math:`q + \Delta\{-1,0,1\}^n` for
n <= 3 (default) and n <= 5 (``--runslow``), which needs only coordinatewise monotonicity.

Scope
-----
Every eps > 0 on every integer vector with n <= 5 and gaps <= 4 (default; reduced
neighbours), exhaustive vertices for n <= 3, gaps <= 4 (default) and n <= 5 (slow).
"""

from __future__ import annotations

from functools import partial

from exactdp.proofs.checks import dp_certified
from exactdp.proofs.result import ProofResult, run_checks, sweep_check

NAME = "dp_of_pf_and_em"
STATEMENT = "PF and EM are eps-DP for every eps"


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
    scope = (f"every eps > 0; integer vectors n <= {n_max}, gaps <= {gap_max} against the "
             f"reduced neighbours; every vertex neighbour for n <= {exhaustive_n_max}")
    return run_checks(NAME, STATEMENT, scope, checks)
