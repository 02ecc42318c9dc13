r"""Three items, every real gap and every epsilon: PF and EM as polynomials on the unit square.

Scores :math:`(0, -a, -b)` with :math:`0 \le a \le b` (any three scores, up to shift and
permutation). With coins :math:`x = e^{-\varepsilon a/(2\Delta)}` and
:math:`x u = e^{-\varepsilon b/(2\Delta)}`, every pair :math:`(a, b)` and every epsilon map to
:math:`(x, u) \in (0, 1]^2`, and (McKenna & Sheldon 2020; the softmax)

* PF: :math:`P_2 = x(1/2 - xu/6)`, :math:`P_3 = xu(1/2 - x/6)`
  (from :math:`p_r\int_0^1\prod_{s\ne r}(1 - tp_s)dt`);
* EM: :math:`P_2 = x/D`, :math:`P_3 = xu/D`, :math:`D = 1 + x + xu > 0`.

So a claim about these probabilities that is polynomial after multiplying by D is proved for
all real gaps by :func:`exactdp.proofs.unit_sign.nonnegative_on_square` (Bernstein
subdivision in exact rationals).
"""

from __future__ import annotations

import sympy

from exactdp.mechanisms import ExponentialMechanism, PermuteAndFlip

X, U = sympy.symbols("x u")
HALF = sympy.Rational(1, 2)
D = 1 + X + X * U
PF = (1 - X * (HALF - X * U / 6) - X * U * (HALF - X / 6),
      X * (HALF - X * U / 6), X * U * (HALF - X / 6))
EM_TIMES_D = (sympy.Integer(1), X, X * U)  # EM's probabilities times D


def poly(expr) -> sympy.Poly:
    """``expr`` expanded as a polynomial in (x, u)."""
    return sympy.Poly(sympy.expand(expr), X, U)


def formulas_match_library(gaps=((1, 3), (2, 2), (0, 1))) -> bool:
    """The formulas above equal the library's exact probabilities at integer gaps.

    At gaps (a, b) and symbolic epsilon, the library's rational forms in its own
    ``x = e^{-eps/2}`` must equal ours at ``x -> x^a``, ``u -> x^(b - a)``.
    """
    for a, b in gaps:
        q = (0, -a, -b)
        for mech, ours in ((PermuteAndFlip(1), PF),
                           (ExponentialMechanism(1), tuple(e / D for e in EM_TIMES_D))):
            form = mech.distribution(q).rational_form()
            sub = {X: form.x**a, U: form.x**(b - a)}
            if any(sympy.cancel(sympy.together(f - o.subs(sub, simultaneous=True))) != 0
                   for f, o in zip(form.forms, ours, strict=True)):
                return False
    return True
