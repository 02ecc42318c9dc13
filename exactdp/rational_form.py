"""The rational form of a distribution: each probability as a polynomial ratio in ``x``.

``RationalForm`` holds, for a mechanism whose probabilities are rational functions of
``x = exp(-epsilon / (c * sensitivity * L))``, the polynomials (flint) and their sympy forms;
the analyzer's x-form engine and :func:`exactdp.certify_dp` read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import sympy

from .printing import exact_text, latex_math, value_repr
from .xform import Atoms, paused_gc, poly_expr


@dataclass(frozen=True, init=False, eq=False)
class RationalForm:
    """Output probabilities as functions of ``x = exp(-epsilon/(c*sensitivity*L))``.

    Unpacks as ``x, forms = dist.rational_form()``. ``forms[r]`` is a sympy expression in
    the Symbol ``x`` (a polynomial for PF and RNM-exponential, a rational function for EM);
    ``value`` is what ``x`` stands for, ``L`` the common denominator of the score gaps and
    ``gaps`` the integer exponents ``G_r = L*(q* - q_r)``.

    When built from flint polynomials (``polys``: one ``flint.fmpq_poly`` per output, the
    same object for outputs with equal gaps; optionally one common ``denominator``) the
    sympy ``forms`` are made only when first asked for, one expression per distinct
    polynomial, shared by equal gaps; exact
    consumers (the analyzer) can read ``polys`` directly: ``forms[r]`` equals
    ``polys[r] / denominator`` (``denominator`` None means 1).

    Examples
    --------
    >>> from exactdp import PermuteAndFlip
    >>> rf = PermuteAndFlip(1).distribution([0, -1, -2]).rational_form()
    >>> rf.x
    x
    >>> rf.forms[0]
    x**3/3 - x**2/2 - x/2 + 1
    """

    x: sympy.Symbol
    value: sympy.Expr
    L: int
    gaps: tuple[int, ...]
    polys: tuple | None
    denominator: object | None

    def __init__(self, x, forms=None, value=None, L=1, gaps=(), *, polys=None,
                 denominator=None):
        if forms is None and polys is None:
            raise ValueError("RationalForm: give forms, or polys")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "L", L)
        object.__setattr__(self, "gaps", tuple(gaps))
        object.__setattr__(self, "polys", None if polys is None else tuple(polys))
        object.__setattr__(self, "denominator", denominator)
        if forms is not None:
            self.__dict__["forms"] = tuple(forms)

    @cached_property
    def forms(self) -> tuple[sympy.Expr, ...]:
        """The probabilities as sympy expressions in ``x`` (built once per distinct poly;
        ``polys[r] / denominator`` with the denominator built once)."""
        atoms = Atoms.powers(self.x)
        built: dict[int, sympy.Expr] = {}
        out = []
        with paused_gc():
            total = None if self.denominator is None else poly_expr(self.denominator, atoms)
            for p in self.polys:  # type: ignore[union-attr]
                e = built.get(id(p))
                if e is None:
                    e = poly_expr(p, atoms)
                    e = built[id(p)] = e if total is None else e / total
                out.append(e)
        return tuple(out)

    def __iter__(self):
        return iter((self.x, self.forms))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int):
        if i in (0, -2):
            return self.x  # without building the sympy forms
        return (self.x, self.forms)[i]

    def shown_forms(self, limit: int = 3) -> tuple[sympy.Expr, ...]:
        """The first ``limit`` forms (built from ``polys`` alone when the sympy forms are not
        made yet, so a repr of a large form stays cheap)."""
        if "forms" in self.__dict__ or self.polys is None:
            return self.forms[:limit]
        atoms = Atoms.powers(self.x)
        shown = tuple(poly_expr(p, atoms) for p in self.polys[:limit])
        if self.denominator is None:
            return shown
        total = poly_expr(self.denominator, atoms)
        return tuple(e / total for e in shown)

    def __repr__(self) -> str:
        n = len(self.gaps) if self.gaps else len(self.shown_forms(10**9))
        shown = []
        for f in self.shown_forms(2):
            text = exact_text(f, "text") or "<form>"
            shown.append(text if len(text) <= 50 else text[:47] + "...")
        tail = ", ..." if n > len(shown) else ""
        return (f"RationalForm({self.x} = {value_repr(self.value)}, n={n}, L={value_repr(self.L)}, "
                f"forms=({', '.join(shown)}{tail}))")

    def _repr_latex_(self) -> str:
        """``p_r(x)`` for the first outputs, and what ``x`` stands for."""
        rows = []
        for r, f in enumerate(self.shown_forms(6)):
            text = exact_text(f, "latex")
            if text is None or len(text) > 400:
                text = (rf"\text{{(a polynomial of degree {sympy.degree(f, self.x)})}}"
                        if f.is_polynomial(self.x) else r"\text{(long)}")
            rows.append(rf"p_{{{r}}}(x) &= {text}")
        if len(self.gaps) > len(rows):
            rows.append(r"&\ \vdots")
        head = rf"x &= {sympy.latex(self.value)}"
        return latex_math(r"\begin{aligned}" + r" \\ ".join([head, *rows]) + r"\end{aligned}",
                          display=True)

    def substituted(self) -> tuple[sympy.Expr, ...]:
        """The forms with ``x`` replaced by its value (equal to ``.probabilities``)."""
        return tuple(f.subs(self.x, self.value) for f in self.forms)


#: The capabilities a mechanism's distribution can have, and the hook that gives each.
#: A class has a capability when it overrides the hook (``"mpmath"`` and ``"balls"`` also
#: follow from ``"exact"``, ``"float"`` from ``"mpmath"``: the base class derives them).
