"""The generic engine: signs of sympy expressions by rigorous ball arithmetic.

For RNM-Laplace, irrational scores and user mechanisms in closed form; an exact zero test
(expansion, then ``simplify``) when a ball keeps containing 0
(:func:`exactdp.analysis.common.exact_sign`).
"""

from __future__ import annotations

import sympy

from ...exact.signs import UndecidedSignError
from ..common import exact_sign

#: Most operations (``sympy.count_ops``) of a ratio that :meth:`GenericEngine.to_sympy`
#: gives to ``sympy.cancel`` (the display form only; the value is exact either way).
CANCEL_OPS_LIMIT = 150

class GenericEngine:
    """Probabilities as sympy expressions; signs by ball arithmetic and zero tests."""

    kind = "generic"
    certified, caveat = True, None  # exact: nothing to caveat
    #: A sequence mechanism's outputs, which ``probs[i][r]`` indexes (as ``XEngine.outputs``)
    outputs: tuple | None = None

    def __init__(self, eps: sympy.Expr | None, probs: list[list[sympy.Expr]]):
        self.eps = eps
        self.probs = probs
        self.symbolic = bool(eps is not None and eps.free_symbols)

    def zero(self) -> sympy.Expr:
        """Probability exactly 0 (an output a vector does not reach)."""
        return sympy.Integer(0)

    def is_zero(self, p) -> bool:
        s = exact_sign(p)
        return s == 0

    def cmp_prob(self, a, b) -> int | None:
        return exact_sign(a - b)

    def ratio(self, a, b):
        return a / b

    def inv(self, R):
        return 1 / R

    def div(self, R1, R2):
        return R1 / R2

    def cmp(self, R1, R2) -> int | None:
        try:
            return exact_sign(R1 - R2)
        except UndecidedSignError:
            # ratios of probabilities are >= 0; for two positive finite ones the sign of
            # R1 - R2 is that of R1/R2 - 1, where the common normalisers cancel (softmax
            # ratios become products of exponentials and algebraic numbers, decided by
            # Lindemann-Weierstrass) -- still an exact sign, never a guess
            if exact_sign(R1) != 1 or exact_sign(R2) != 1:
                raise
            return exact_sign(sympy.powsimp(R1 / R2) - 1)

    def cmp_one(self, R) -> int | None:
        return exact_sign(R - 1)

    def cmp_exp(self, R, claim: sympy.Expr) -> int | None:
        return exact_sign(R - sympy.exp(claim))

    def to_sympy(self, R) -> sympy.Expr:
        """``R`` tidied by ``cancel`` and ``powsimp`` when that is cheap; as it is (the same
        exact number) beyond :data:`CANCEL_OPS_LIMIT` operations: sympy's ``cancel`` over
        one generator per irrational coin grows steeply (PF on five sqrt scores: ratios of
        ~300 operations and 12-25 exponentials took 1-7 s each, one over 10 s, and none
        came out shorter; privacy_loss ran past 60 s)."""
        if R.has(sympy.erf) or sympy.count_ops(R) > CANCEL_OPS_LIMIT or _steep(R):
            return R
        try:
            return sympy.powsimp(sympy.cancel(R))
        except OverflowError:  # flint's heuristic gcd at exponents like 2**-996 (eps 1e-300)
            return R

    def prob_sympy(self, p) -> sympy.Expr:
        return p

    def check_normalised(self, i: int, func: str, name: str, scores) -> None:
        """Raise ValueError unless the probabilities of vector ``i`` sum to 1 and are >= 0.

        A distribution built from its own normaliser (``w_r / sum_s w_s``: a softmax, EM,
        RNM-Gumbel) is normalised by construction, proved as a polynomial identity
        (:func:`normalised_by_construction`); no numeric zero test is run on it, so on
        irrational scores (sqrt, log gaps) the check cannot end undecided.
        """
        probs = self.probs[i]
        total = sympy.Add(*probs)
        s = 0 if normalised_by_construction(probs) else exact_sign(total - 1)
        if s != 0:
            raise ValueError(
                f"{func}: the probabilities of {name} on {scores} do not sum to 1 (sum = "
                f"{total}); not a probability distribution"
            )
        for r, p in enumerate(probs):
            if exact_sign(p) == -1:
                raise ValueError(f"{func}: probability {r} of {name} on {scores} is negative")


def normalised_by_construction(probs) -> bool:
    """True if the probabilities are ``w_r / D`` with one common ``D`` and ``sum_r w_r = D``.

    ``D`` is the same sympy ``Add`` in every non-zero probability (the factor ``D**-1``),
    and ``expand(sum_r w_r - D) == 0`` proves the identity: ``expand`` is polynomial
    arithmetic with every transcendental atom an independent generator, so it never takes
    a non-zero number to 0. False means "not of this form" (the caller decides the sum by
    :func:`exactdp.analysis.common.exact_sign`), never "does not sum to 1".
    """
    denominator = None
    numerators = []
    for p in probs:
        if p == 0:
            continue
        factors = sympy.Mul.make_args(p)
        inverse = [f for f in factors if f.is_Pow and f.exp == -1 and f.base.is_Add]
        if len(inverse) != 1 or (denominator is not None and inverse[0].base != denominator):
            return False
        denominator = inverse[0].base
        numerators.append(sympy.Mul(*[f for f in factors if f is not inverse[0]]))
    if denominator is None:
        return False
    return sympy.expand(sympy.Add(*numerators) - denominator) == 0


#: ``cancel`` reads ``exp(a)`` with rational ``a`` as a power of one generator
#: ``exp(1/L)``: past this degree (``L max |a|``) it builds polynomials of that degree
#: (RNM-Laplace at scores 10**6 apart: degree 10**6, over a minute), so the ratio is kept
#: as it is.
CANCEL_DEGREE_LIMIT = 4096


def _steep(R: sympy.Expr) -> bool:
    """Whether ``cancel`` would build polynomials past :data:`CANCEL_DEGREE_LIMIT` in the
    generator of the exponentials of ``R`` (their rational arguments' common denominator
    times the largest argument)."""
    args = [a.args[0] for a in R.atoms(sympy.exp)]
    args += [sympy.Abs(p.exp) for p in R.atoms(sympy.Pow) if p.exp.is_Rational]
    rational = [a for a in args if a.is_Rational]
    if not rational:
        return False
    L = sympy.ilcm(*(a.q for a in rational)) if len(rational) > 1 else rational[0].q
    return max(abs(a) for a in rational) * L > CANCEL_DEGREE_LIMIT
