r"""Section 2: the exponential mechanism and permute-and-flip are regular.

Statement
---------
EM and PF are *symmetric* (:math:`\Pr[M(\sigma q) = \sigma r] = \Pr[M(q) = r]`),
*shift-invariant* (:math:`\Pr[M(q + a\mathbf 1) = r] = \Pr[M(q) = r]`) and *monotone*
(raising :math:`q_r` or lowering another score never lowers :math:`\Pr[M(q) = r]`), for
every :math:`\varepsilon > 0` (McKenna & Sheldon 2020, section 2).

Human proof (own words)
-----------------------
Both depend on q only through the coins :math:`p_s = e^{-\varepsilon(q_* - q_s)/(2\Delta)}`
(gaps are shift-invariant) and treat outputs alike (symmetric). EM:
:math:`p_r/\sum_s p_s` increases in :math:`p_r` and decreases in every other :math:`p_s`.
PF: :math:`p_r\int_0^1\prod_{s\ne r}(1 - tp_s)dt` increases in :math:`p_r` and decreases in
every other coin. Raising :math:`q_r` past :math:`q_*` changes the maximum, but then the
coins of the others fall, and r's own coin is 1: again r gains.

Method of the check
-------------------
:func:`exactdp.is_symmetric`, :func:`exactdp.is_shift_invariant` (shifts 1, -1, 1/2) and
:func:`exactdp.is_monotonic` with a *symbolic* epsilon, so every comparison is an exact sign
decision valid for all epsilon > 0 (an undecided sign raises), over every vector of the
lattices :math:`\{0, 1, 2, 3\}^3` and :math:`\{0, 1, 2\}^4` (every elementary move inside,
which chains to every monotone move in the box).

Scope
-----
Every eps > 0; exhaustive over the two lattices (n = 3, 4).
"""

from __future__ import annotations

import sympy

from exactdp.analysis import is_monotonic, is_shift_invariant, is_symmetric
from exactdp.mechanisms import ExponentialMechanism, PermuteAndFlip, mechanism_from_function
from exactdp.proofs.result import ProofResult, run_checks

NAME = "section_2_regularity"
STATEMENT = "Sec. 2: EM and PF are symmetric, shift-invariant and monotone (every eps)"

EPS = sympy.Symbol("epsilon", positive=True)
LATTICES = ((3, range(4)), (4, range(3)))


def bump_mechanism(epsilon=EPS):
    """Symmetric, shift-invariant but NOT monotone: weights ``exp(-eps (gap - 1)^2 / 2)``.

    The favourite output sits one unit below the maximum; a negative control for the
    monotonicity checks (here and in :mod:`exactdp.proofs.section_5_1_reduction`).
    """
    def probs(q, eps):
        top = max(q)
        w = [sympy.exp(-eps * (top - v - 1) ** 2 / 2) for v in q]
        s = sum(w)
        return [x / s for x in w]

    return mechanism_from_function(probs, epsilon=epsilon, name="bump")


def regular(mechanism, lattices=LATTICES):
    """All three properties on the lattices: (holds, comparisons, witnesses)."""
    bad, count = [], 0
    for n, values in lattices:
        for check in (is_symmetric, is_shift_invariant, is_monotonic):
            res = check(mechanism, n=n, values=values)
            count += res.comparisons
            if not res.holds:
                bad.append((check.__name__, n, res.witness))
    return not bad, count, tuple(bad)


def verify(*, executor=None) -> ProofResult:
    """EM and PF at a symbolic epsilon on the lattices (``executor`` unused)."""
    scope = "every eps > 0 (symbolic); exhaustive over {0..3}^3 and {0..2}^4, all moves"
    return run_checks(NAME, STATEMENT, scope, [
        ("EM regular", lambda: regular(ExponentialMechanism(EPS))),
        ("PF regular", lambda: regular(PermuteAndFlip(EPS))),
    ])
