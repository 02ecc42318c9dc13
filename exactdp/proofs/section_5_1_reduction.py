r"""Section 5.1: for regular mechanisms the binding neighbour raises r by :math:`2\Delta`.

Statement
---------
Let M be regular (symmetric, shift-invariant, monotone). For every score vector q, output
r and neighbour :math:`q'` (:math:`\|q' - q\|_\infty \le \Delta`),

.. math::
   \Pr[M(q - 2\Delta e_r) = r] \;\le\; \Pr[M(q') = r] \;\le\; \Pr[M(q + 2\Delta e_r) = r].

So :math:`\varepsilon`-DP of M reduces to the n pairs :math:`(q, q + 2\Delta e_r)`, the
constraints of the section-5 linear program.

Human proof (the notes' argument, own words)
--------------------------------------------
Every neighbour :math:`q'` has :math:`q'_r \le q_r + \Delta` and
:math:`q'_s \ge q_s - \Delta` for :math:`s \ne r`, so :math:`q + \Delta(2e_r - \mathbf 1)`
dominates it in the monotone order at r and, by monotonicity, maximises
:math:`\Pr[M(\cdot) = r]`; adding the constant
:math:`\Delta` to every score (shift-invariance) turns it into :math:`q + 2\Delta e_r`. The
lower bound is the mirror image.

Method of the check
-------------------
For PF and EM with integer scores every probability is a rational function of
:math:`x = e^{-\varepsilon/2}` (PF: :func:`exactdp.mechanisms.optimal.pf_polynomials`; EM: the
softmax in x). For every vector of the family, every vertex :math:`q'` of the neighbour box
:math:`q + \{-1, 0, 1\}^n` and every r, both inequalities are proved for every epsilon by
the sign of a numerator on (0, 1) (Descartes' rule after a Moebius substitution, else
Sturm counting; :mod:`exactdp.proofs.unit_sign`), and the shift identity
:math:`P_r(q + 2e_r - \mathbf 1) = P_r(q + 2e_r)` holds exactly. Interior neighbours follow
from the vertices by monotonicity in each coordinate
(:mod:`exactdp.proofs.section_2_regularity`).

Scope
-----
Every eps > 0; Delta = 1; every integer vector with n <= 3 and gaps <= 3 (n <= 4, gaps <= 3 under
``--runslow``); the general statement for regular mechanisms is the human proof above.
"""

from __future__ import annotations

import itertools

import flint

from exactdp.audit.sweeps import score_vectors
from exactdp.mechanisms.optimal import pf_polynomials
from exactdp.proofs.result import ProofResult, run_checks
from exactdp.proofs.unit_sign import nonnegative_on_unit

NAME = "section_5_1_reduction"
STATEMENT = "Sec. 5.1: the worst neighbour of (q, r) is q + 2 Delta e_r (regular M)"

_ONE = flint.fmpq_poly([1])


def _mono(e: int) -> flint.fmpq_poly:
    return flint.fmpq_poly([0] * e + [1])


def probabilities(mechanism: str, q: tuple) -> list[tuple[flint.fmpq_poly, flint.fmpq_poly]]:
    """``(numerator, denominator)`` in ``x = e^{-eps/2}`` per output (integer scores, Delta 1).

    ``"pf"`` (:func:`exactdp.mechanisms.optimal.pf_polynomials`, denominator 1), ``"em"`` (softmax),
    or ``"bump"`` (weights ``x^{(gap-1)^2}``: symmetric and shift-invariant but not
    monotone; the negative control). Denominators are sums of monomials, positive on (0, 1).
    """
    top = max(q)
    gaps = [top - v for v in q]
    if mechanism == "pf":
        return [(flint.fmpq_poly([flint.fmpq(int(c.p), int(c.q))
                                  for c in reversed(p.all_coeffs())]), _ONE)
                for p in pf_polynomials(gaps)]
    expo = gaps if mechanism == "em" else [(g - 1) ** 2 for g in gaps]
    den = sum((_mono(e) for e in expo), flint.fmpq_poly([]))
    return [(_mono(e), den) for e in expo]


def _at_least(a, b) -> bool:
    """``a >= b`` on (0, 1) for fractions with positive denominators, exactly."""
    return nonnegative_on_unit(a[0] * b[1] - b[0] * a[1])


def reduction_holds(mechanism: str, n_max: int = 3, gap_max: int = 3):
    """Both inequalities at every vertex neighbour, and the shift identity."""
    bad: list[tuple[tuple[int, ...], int, str | tuple[int, ...]]] = []  # (q, r, what failed)
    cases = 0
    for q in score_vectors(n_max, gap_max):
        n = len(q)
        base = {}
        for r in range(n):
            up = tuple(v + (2 if s == r else 0) for s, v in enumerate(q))
            up_shift = tuple(v + (1 if s == r else -1) for s, v in enumerate(q))
            down = tuple(v - (2 if s == r else 0) for s, v in enumerate(q))
            hi = probabilities(mechanism, up)[r]
            lo = probabilities(mechanism, down)[r]
            alt = probabilities(mechanism, up_shift)[r]
            if not (hi[0] * alt[1] - alt[0] * hi[1]).is_zero():
                bad.append((q, r, "shift"))
            for move in itertools.product((-1, 0, 1), repeat=n):
                if not any(move):
                    continue
                nb = tuple(v + m for v, m in zip(q, move, strict=True))
                if nb not in base:
                    base[nb] = probabilities(mechanism, nb)
                p = base[nb][r]
                cases += 1
                if not (_at_least(hi, p) and _at_least(p, lo)):
                    bad.append((q, r, nb))
    return not bad, cases, tuple(bad[:5])


def verify(*, n_max: int = 3, gap_max: int = 3, executor=None) -> ProofResult:
    """PF and EM on the family (``executor`` unused)."""
    scope = (f"every eps > 0, Delta = 1; every vertex neighbour of every integer vector "
             f"with n <= {n_max}, gaps <= {gap_max}; all regular M: the human proof")
    return run_checks(NAME, STATEMENT, scope, [
        ("PF", lambda: reduction_holds("pf", n_max, gap_max)),
        ("EM", lambda: reduction_holds("em", n_max, gap_max)),
    ])
