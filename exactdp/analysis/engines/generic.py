"""The generic engine: signs of sympy expressions by rigorous ball arithmetic.

For RNM-Laplace, irrational scores and user mechanisms in closed form; an exact zero test
(expansion, then ``simplify``) when a ball keeps containing 0
(:func:`exactdp.analysis.common.exact_sign`).
"""

from __future__ import annotations

import sympy

from ..common import exact_sign


class GenericEngine:
    """Probabilities as sympy expressions; signs by ball arithmetic and zero tests."""

    kind = "generic"
    certified, caveat = True, None  # exact: nothing to caveat

    def __init__(self, eps: sympy.Expr | None, probs: list[list[sympy.Expr]]):
        self.eps = eps
        self.probs = probs
        self.symbolic = bool(eps is not None and eps.free_symbols)

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
        return exact_sign(R1 - R2)

    def cmp_one(self, R) -> int | None:
        return exact_sign(R - 1)

    def cmp_exp(self, R, claim: sympy.Expr) -> int | None:
        return exact_sign(R - sympy.exp(claim))

    def to_sympy(self, R) -> sympy.Expr:
        r = sympy.powsimp(sympy.cancel(R)) if not R.has(sympy.erf) else R
        return r

    def prob_sympy(self, p) -> sympy.Expr:
        return p

    def check_normalised(self, i: int, func: str, name: str, scores) -> None:
        probs = self.probs[i]
        total = sympy.Add(*probs)
        s = exact_sign(total - 1)
        if s != 0:
            raise ValueError(
                f"{func}: the probabilities of {name} on {scores} do not sum to 1 (sum = "
                f"{total}); not a probability distribution"
            )
        for r, p in enumerate(probs):
            if exact_sign(p) == -1:
                raise ValueError(f"{func}: probability {r} of {name} on {scores} is negative")
