"""The one result protocol: every result type answers the same questions with the same names.

A result is a frozen dataclass that subclasses :class:`Result` and declares, as class
variables, which of its fields is its headline number and which fields its short ``repr``
shows. From that declaration it gets, unless it defines the name itself (as a field, a
property or a method):

==============  ==================================================================================
``value``       the headline number as an exact sympy expression (``None`` when there is none)
``ball``        a rigorous python-flint ``arb`` enclosure of it (``None`` when there is none)
``lower``       an exact rational (sympy ``Rational`` or ``Fraction``) <= the headline number
``upper``       an exact rational >= the headline number (``oo`` when unbounded)
``certified``   True when the number (and the verdict) are proved; ``caveat`` says why not
``holds``       the bool verdict of a check (``None`` for results that are not checks)
``evalf(dps)``  an mpmath number correct to ``dps`` significant digits, or ``ValueError``
``float(r)``    the midpoint of the enclosure rounded to nearest
``repr(r)``     at most 200 characters, leading with the answer in decimals
``summary()``   multi-line text with every field (the long parts too)
==============  ==================================================================================

``sympy.N(r, d)`` goes through ``_sympy_`` (the exact value, so every digit is right; a
result without one raises, never dropping to ``float``) and ``mpmath.mpf(r)`` through
``_mpmath_`` (``evalf`` at mpmath's working precision).  Notebook display (``_repr_latex_``)
prints through :mod:`exactdp.printing`, and ``_repr_html_`` is a small HTML table of
the repr's parts (HTML exported from a notebook shows it offline, where LaTeX is raw text).

This module sits beside :mod:`exactdp.printing` (layer 2): results live in the mechanisms,
the analysis, the optimality and the audit layers, all above it.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import flint
import mpmath
import sympy

from ._validate import check_dps
from .exact.arb import dps_to_prec, flint_prec, float_to_arb
from .exact.enclosure import enclose
from .printing import (
    exact_text,
    format_number,
    html_table,
    latex_math,
    latex_number,
    math_text,
)
from .result_text import (
    ROUNDED,
    SHOW_DPS,
    bracket_text,
    cut_text,
    decimal_text,
    field_text,
    longer_than,
)

#: Longest exact text shown in a repr or a notebook cell; longer ones show decimals only.
EXACT_TEXT_LIMIT = 60
#: Target length of ``repr(result)``.
REPR_LIMIT = 200


# ------------------------------------------------------------------------------ brief text
def brief(value: object, limit: int = 40) -> str:
    """Short text of a field for a repr: numbers in decimals, long sequences cut."""
    if isinstance(value, str):  # cut inside the quotes: the quote is always closed
        return repr(value if len(value) <= limit - 2 else value[: limit - 5] + "...")
    if value is None or isinstance(value, bool):
        text = str(value)
    elif isinstance(value, int):
        text = format_number(value, 12)
    elif isinstance(value, Fraction):
        text = number_text(value)
    elif isinstance(value, float):
        text = f"{value:.6g}"
    elif isinstance(value, mpmath.mpf):
        text = format_number(value, SHOW_DPS)
    elif isinstance(value, sympy.Set):
        text = set_text(value)
    elif isinstance(value, sympy.Basic):
        text = number_text(value)
    elif isinstance(value, (tuple, list)):
        items = [brief(v, limit) for v in value[:6]]
        one = "," if len(value) == 1 and isinstance(value, tuple) else ""  # (0,), not (0)
        text = "(" + ", ".join(items) + (", ..." if len(value) > 6 else "") + one + ")"
    else:  # an object's own str (a Witness) is brief by design: cut only beyond 100
        return cut_text(str(value), max(limit, 100))
    return cut_text(text, limit)


def number_text(value: object) -> str:
    """``0.0926959 (exact: log(...))``: decimals, and the exact form when it is short.

    A symbolic or unprintable value shows its (shortened) sympy text only.
    """
    if value is None:
        return "None"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, sympy.Set):
        return set_text(value)
    if isinstance(value, sympy.Basic) and value.free_symbols:
        text = exact_text(value, "text") or "<expression>"
        return text if len(text) <= EXACT_TEXT_LIMIT else text[: EXACT_TEXT_LIMIT - 3] + "..."
    if isinstance(value, sympy.Float):
        return format_number(mpmath.mpf(value._to_mpmath(value._prec)), SHOW_DPS)
    try:
        dec = decimal_text(value)
    except (TypeError, ValueError):
        return brief(str(value))
    if (isinstance(value, (sympy.Basic, Fraction)) and value not in (sympy.oo, -sympy.oo)
            and not longer_than(value, EXACT_TEXT_LIMIT)):
        exact = exact_text(sympy.sympify(value), "text")
        if exact is not None and exact != dec and len(exact) <= EXACT_TEXT_LIMIT:
            return f"{dec} (exact: {exact})"
    return dec


def _end_text(value: sympy.Basic) -> str:
    """An end point or element of a set: ``oo``, its short exact text, or decimals."""
    if value in (sympy.oo, -sympy.oo):
        return str(value)
    exact = exact_text(value, "text")
    if exact is not None and len(exact) <= 20:
        return exact
    try:
        return format_number(value, SHOW_DPS)
    except (TypeError, ValueError):
        return exact[:17] + "..." if exact else "<expression>"


def set_text(value: sympy.Set) -> str:
    """Text of a sympy set: ``(0, oo)``, ``[1, 2)``, ``(0, 1) U (2, oo)``, ``{1, 2}``, ``{}``.

    End points print as their short exact text or decimals, never through a float.
    """
    if value is sympy.EmptySet:
        return "{}"
    if isinstance(value, sympy.Interval):
        left = "(" if value.left_open else "["
        right = ")" if value.right_open else "]"
        return f"{left}{_end_text(value.start)}, {_end_text(value.end)}{right}"
    if isinstance(value, sympy.Union):
        return " U ".join(set_text(a) for a in value.args)
    if isinstance(value, sympy.FiniteSet):
        return "{" + ", ".join(_end_text(a) for a in value.args) + "}"
    return exact_text(value, "text") or "<set>"


# ------------------------------------------------------------------------------ numbers
def _fraction(b: flint.arb) -> Fraction:
    """The midpoint of an exact ball (a dyadic number) as a Fraction."""
    m, e = b.mid().man_exp()
    man, exp = int(m), int(e)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def _is_number(value: object) -> bool:
    return isinstance(value, sympy.Expr) and not value.free_symbols and value.is_number


def _exact(value: object) -> sympy.Expr | None:
    """``value`` as an exact sympy number, or None (floats, symbols, None)."""
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, int) and not isinstance(value, bool):
        return sympy.Integer(value)
    if isinstance(value, sympy.Expr) and _is_number(value) and not value.atoms(sympy.Float):
        return value
    return None


def interval_ball(lo: sympy.Float | Fraction | int, hi: sympy.Float | Fraction | int,
                  ) -> flint.arb:
    """The ball ``[lo, hi]`` of two exact binary end points (sympy Floats or Fractions)."""
    ends = []
    for v in (lo, hi):
        if isinstance(v, sympy.Float):
            ends.append(float_to_arb(v))
        else:
            f = Fraction(v)
            ends.append(flint.arb(flint.fmpq(f.numerator, f.denominator)))
    bits = max(64, flint.ctx.prec, *(2 * abs(int(e.mid().man_exp()[0])).bit_length() + 8
                                     for e in ends))
    with flint_prec(bits):
        return ends[0].union(ends[1])


def ball_text(b: flint.arb) -> str:
    """Decimals of a ball's midpoint, as many as are right (at most :data:`SHOW_DPS`); a
    ball with fewer than two right digits as its ends ``[lo, hi]``, rounded outward (a
    bracket [0.470, 0.500] is not "0.5")."""
    digits = ball_digits(b)
    man, exp = b.mid().man_exp()
    with mpmath.workprec(max(53, abs(int(man)).bit_length())):
        mid = mpmath.mpf((int(man), int(exp)))
    if digits < 2:  # ends rounded outward: the text contains the ball
        return bracket_text(ball_end(b, "lower"), ball_end(b, "upper"), 3)
    # at least the integer digits and two decimals when the ball certifies them: a
    # midpoint 250007.48 is not "250007.0" (mpmath's text of 6 digits)
    whole = int(mpmath.floor(mpmath.log10(abs(mid)))) + 1 if mid else 0
    return format_number(mid, int(min(max(SHOW_DPS, whole + 2), digits)))


def certified_text(b: flint.arb, ends: tuple | None = None) -> str:
    """A certified enclosure in a repr: ``0.395815 (certified ball)`` when its midpoint has
    two or more right digits; else its ends rounded outward, ``[0.972808, 1.00001]
    (certified bracket)`` (a wide interval is a bracket, not a ball around a value).
    ``ends``: the exact ends of the bracket when known (a ball's radius is rounded up, so
    its ends may leave them: a loss bracket ``[0, h]`` is not printed from ``-5e-54``)."""
    if ball_digits(b) >= 2:
        return f"{ball_text(b)} (certified ball)"
    lo, hi = ends if ends is not None else (ball_end(b, "lower"), ball_end(b, "upper"))
    return f"{bracket_text(lo, hi)} (certified bracket)"


def ball_end(b: flint.arb | None, end: str) -> Fraction | None:
    """The exact ``"lower"`` or ``"upper"`` end of a ball as a Fraction (None for None)."""
    if b is None:
        return None
    with flint_prec(max(flint.ctx.prec, 64)):
        return _fraction(b.lower() if end == "lower" else b.upper())


def rational_bound(value: object, end: str) -> sympy.Expr | Fraction | None:
    """An exact rational ``<=`` (``end="lower"``) or ``>=`` (``"upper"``) a real number:
    the number itself when rational or infinite, else an end of its 20-digit ball."""
    v = _exact(value)
    if v is None:
        return None
    if v.is_Rational or v in (sympy.oo, -sympy.oo):
        return v
    return ball_end(enclose(v, 20), end)


def ball_digits(b: flint.arb) -> float:
    """Correct significant digits of the midpoint of ``b`` (inf for an exact ball)."""
    if b.is_exact():
        return math.inf
    return b.rel_accuracy_bits() * math.log10(2)


class Result:
    """Base of every result dataclass: the protocol of this module, from a declaration.

    Class variables a result declares:

    ``headline``
        Name of the field (or property) holding the headline number, ``None`` for a result
        that is a verdict only (its ``value`` is then ``None``).
    ``headline_label``
        How the repr names it (default: ``headline``).
    ``repr_fields``
        Fields the short repr shows after the headline (formatted by :func:`brief`).

    A result with a certified enclosure but no exact value overrides :meth:`enclosure`.
    """

    headline: ClassVar[str | None] = "value"
    headline_label: ClassVar[str | None] = None
    repr_fields: ClassVar[tuple[str, ...]] = ()

    if TYPE_CHECKING:  # installed by __init_subclass__ (or declared by the subclass)
        # read-only here: a subclass may answer each by a field or by a property
        @property
        def value(self) -> Any: ...
        @property
        def ball(self) -> flint.arb | None: ...
        @property
        def lower(self) -> Any: ...
        @property
        def upper(self) -> Any: ...
        @property
        def certified(self) -> bool: ...
        @property
        def caveat(self) -> str | None: ...
        @property
        def holds(self) -> bool | None: ...

        def evalf(self, dps: int = 15) -> Any: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = set(cls.__dict__.get("__annotations__", {}))
        for base in cls.__mro__[1:]:
            own |= set(getattr(base, "__dataclass_fields__", {}))
            if base is Result:
                break
            own |= {k for k in vars(base) if not k.startswith("__")}
        for name, member in _DEFAULTS.items():
            if name not in own and name not in cls.__dict__:
                setattr(cls, name, member)
        if "__repr__" not in cls.__dict__:  # before @dataclass, which then keeps it
            setattr(cls, "__repr__", Result._repr)  # noqa: B010 - the class, not an instance

    # -------------------------------------------------------------- the headline number
    def _value(self) -> sympy.Expr | None:
        if self.headline is None:
            return None
        return _exact(getattr(self, self.headline))

    def enclosure(self) -> flint.arb | None:
        """A rigorous ball around the headline number when it is not exact (default: from an
        ``interval`` field of certified end points); None when there is none."""
        interval = getattr(self, "interval", None) if "interval" in getattr(
            self, "__dataclass_fields__", {}) else None
        if interval is None or any(v in (sympy.oo, -sympy.oo) for v in interval):
            return None
        return interval_ball(*interval)

    def _exact_value(self) -> sympy.Expr | None:
        value = self.value
        return _exact(value)

    def _ball(self) -> flint.arb | None:
        own = self.enclosure()
        if own is not None:
            return own
        v = self._exact_value()
        if v is None or v in (sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
            return None
        try:
            return enclose(v, 20)
        except ValueError:
            return None

    def _interval_ends(self) -> tuple | None:
        """The exact ends of a finite ``interval`` field as Fractions (None without one)."""
        interval = getattr(self, "interval", None) if "interval" in getattr(
            self, "__dataclass_fields__", {}) else None
        if interval is None or any(v in (sympy.oo, -sympy.oo) for v in interval):
            return None
        return tuple(Fraction(*sympy.Rational(v).as_numer_denom()) for v in interval)

    def _lower(self):
        v = self._exact_value()
        if v is not None and (v.is_Rational or v in (sympy.oo, -sympy.oo)):
            return v
        ends = self._interval_ends()
        return ends[0] if ends is not None else ball_end(self.ball, "lower")

    def _upper(self):
        v = self._exact_value()
        if v is not None and (v.is_Rational or v in (sympy.oo, -sympy.oo)):
            return v
        ends = self._interval_ends()
        return ends[1] if ends is not None else ball_end(self.ball, "upper")

    def _evalf(self, dps: int = 15) -> mpmath.mpf:
        """The headline number as an mpmath ``mpf`` correct to ``dps`` significant digits.

        Raises
        ------
        ValueError
            If the result has no headline number, it is symbolic, or its enclosure is too
            wide for ``dps`` digits (recompute the result at a higher ``dps``).
        """
        name = type(self).__name__
        dps = check_dps(f"{name}.evalf", dps)
        v = self._exact_value()
        b = self.ball
        if v is not None:
            if v in (sympy.oo, -sympy.oo):
                return mpmath.inf if v is sympy.oo else -mpmath.inf
            if v.is_zero:
                return mpmath.mpf(0)
            if b is None or ball_digits(b) < dps + 1:
                b = enclose(v, dps + 1)
        else:
            if b is None:
                raw = getattr(self, self.headline) if self.headline else None
                what = ("no headline number" if raw is None else
                        f"a symbolic headline number ({raw!s})"
                        if isinstance(raw, sympy.Basic) and raw.free_symbols
                        else f"no exact value ({raw!s})")
                raise ValueError(f"{name}.evalf: this result has {what}")
        if ball_digits(b) < dps:
            raise ValueError(f"{name}.evalf: the enclosure {b.str(5)} has about "
                             f"{int(ball_digits(b))} correct digits, fewer than dps={dps} "
                             f"(recompute the result with more digits)")
        man, exp = b.mid().man_exp()
        with mpmath.workdps(dps):
            return +mpmath.mpf((int(man), int(exp)))

    def _float(self) -> float:
        v = self._exact_value()
        if v is not None and v in (sympy.oo, -sympy.oo):
            return math.inf if v is sympy.oo else -math.inf
        if v is not None and v.is_zero:
            return 0.0
        b = self.ball
        raw = getattr(self, self.headline) if self.headline else None
        if b is None and isinstance(raw, (float, mpmath.mpf)):
            return float(raw)  # a float headline (a p-value, a float LP): itself
        if b is None and isinstance(raw, sympy.Basic) and raw.free_symbols:
            raise ValueError(f"float({type(self).__name__}): the headline number is symbolic "
                             f"({raw}); substitute a number first")
        if b is None:
            why = self.caveat or "no headline number"
            raise ValueError(f"float({type(self).__name__}): the headline number is absent or "
                             f"not proved (value = None): {why}")
        if v is not None:
            with flint_prec(dps_to_prec(17)):
                b = enclose(v, 17)
        man, exp = b.mid().man_exp()
        with mpmath.workprec(53):
            return float(mpmath.mpf((int(man), int(exp))))

    def _sympy_(self) -> sympy.Expr:
        v = self._exact_value()
        if v is None:
            raise sympy.SympifyError(f"{type(self).__name__} has no exact value; use "
                                     f".evalf(dps) or .ball")
        return v

    def _mpmath_(self, prec: int, rounding: str) -> mpmath.mpf:
        return self.evalf(max(1, int(prec * math.log10(2))))

    # -------------------------------------------------------------- text
    def _status(self) -> str:
        if self.certified:
            return "certified"
        caveat = self.caveat
        return "not certified" + (f": {caveat}" if caveat else "")

    def repr_parts(self) -> list[str]:
        """``name=text`` pieces of the short repr after the verdict and the headline."""
        return [f"{f}={brief(getattr(self, f))}" for f in self.repr_fields]

    def _repr(self) -> str:
        parts: list[str] = []
        holds = self.holds
        if holds is not None:
            parts.append(f"holds={holds}")
        if self.headline is not None:
            label = self.headline_label or self.headline
            parts.append(f"{label}={self.headline_text()}")
        parts += self.repr_parts()
        status = self._status()
        parts.append(status if len(status) <= 60 else status[:57] + "...")
        text = f"{type(self).__name__}(" + ", ".join(parts) + ")"
        return cut_text(text, REPR_LIMIT)

    def headline_text(self) -> str:
        """The headline number in the repr: decimals, and the exact form when short."""
        raw = getattr(self, self.headline) if self.headline else None
        if _exact(raw) is not None or (isinstance(raw, sympy.Basic) and raw.free_symbols):
            return number_text(raw)
        b = self.ball
        if b is None:
            return number_text(raw)
        return certified_text(b, self._interval_ends())

    def _summary(self, full: bool = False) -> str:
        """Multi-line text: the short repr, then every field.

        A long exact expression (beyond :data:`SUMMARY_EXACT_LIMIT` characters) shows as
        its decimals and its certified ball; ``full=True`` shows it in full (``.value``
        holds it too).
        """
        lines = [repr(self)]
        names = {f.name for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        if self.headline is not None and self.headline not in names and self.value is not None:
            lines.append(f"  {self.headline}: {field_text(self.value, full)}")
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if not f.repr or f.name.startswith("_"):
                continue
            lines.append(f"  {f.name}: {field_text(getattr(self, f.name), full)}")
        return "\n".join(lines)

    # -------------------------------------------------------------- notebook
    def display_rows(self) -> list[tuple[str, str]]:
        """``(label, LaTeX cell)`` rows of the notebook table (verdict, value, status)."""
        rows: list[tuple[str, str]] = []
        holds = self.holds
        if holds is not None:
            rows.append((math_text("holds"), math_text("yes") if holds else r"\mathbf{no}"))
        if self.headline is not None:
            label = self.headline_label or self.headline
            raw, text = getattr(self, self.headline), self.headline_text()
            cell = _certified_latex(text) if text.endswith(ROUNDED) else value_latex(raw) if (
                _exact(raw) is not None or self.ball is None) else _certified_latex(
                certified_text(self.ball))
            rows.append((math_text(label), cell))
        for part in self.repr_parts():
            name, _, text = part.replace("'", "").partition("=")
            rows.append((math_text(name), math_text(text)) if text else ("", math_text(name)))
        rows.append((math_text("status"), math_text(self._status()[:80])))
        return rows

    def _latex(self) -> str:
        return result_latex(type(self).__name__, self.display_rows())

    def text_rows(self) -> list[tuple[str, str]]:
        """``(label, text)`` rows of the HTML display: the repr's parts, one a row."""
        rows: list[tuple[str, str]] = []
        if self.holds is not None:
            rows.append(("holds", "yes" if self.holds else "NO"))
        if self.headline is not None:
            rows.append((self.headline_label or self.headline, self.headline_text()))
        for part in self.repr_parts():
            name, sep, text = part.partition("=")
            rows.append((name, text) if sep else ("", name))
        rows.append(("status", cut_text(self._status(), 160)))
        return rows

    def _html(self) -> str:
        return html_table(type(self).__name__, self.text_rows())


def value_latex(raw: object) -> str:
    """LaTeX cell of a number: exact form (when short) and its decimals beside it."""
    exact = _exact(raw)
    if exact is not None:
        if exact in (sympy.oo, -sympy.oo):
            return sympy.latex(exact)
        dec = decimal_text(exact)
        text = None if longer_than(exact, EXACT_TEXT_LIMIT) else exact_text(exact, "latex")
        if text is None or len(text) > 4 * EXACT_TEXT_LIMIT or text == dec:
            return latex_number(dec)
        return rf"{text} \approx {latex_number(dec)}"
    if isinstance(raw, sympy.Basic):
        text = exact_text(raw, "latex") or r"\text{(expression)}"
        return text if len(text) <= 4 * EXACT_TEXT_LIMIT else math_text("(long expression)")
    if raw is None:
        return math_text("--")
    return math_text(brief(raw))


def _certified_latex(text: str) -> str:
    """:func:`certified_text` as a LaTeX cell: the number (or each end of the bracket) as
    math, the label as text."""
    number, _, label = text.partition(" (")
    if number.startswith("["):
        lo, hi = number[1:-1].split(", ")
        number = f"[{latex_number(lo)}, {latex_number(hi)}]"
    else:
        number = latex_number(number)
    return number + r"\ " + math_text("(" + label)


def result_latex(title: str, rows: list[tuple[str, str]]) -> str:
    """A compact two-column LaTeX table with a title (the display of a result)."""
    body = r" \\ ".join(f"{a} & {b}" for a, b in rows)
    return latex_math(r"\begin{array}{ll} \mathbf{" + title + r"} & \\ \hline " + body
                      + r" \end{array}")


_DEFAULTS: dict[str, Any] = {
    "value": property(Result._value, doc="The headline number, exact (None if none)."),
    "ball": property(Result._ball, doc="A rigorous arb enclosure of the headline number."),
    "lower": property(Result._lower, doc="An exact rational lower bound of the headline."),
    "upper": property(Result._upper, doc="An exact rational upper bound of the headline."),
    "certified": True,
    "caveat": None,
    "holds": None,
    "evalf": Result._evalf,
    "__float__": Result._float,
    "summary": Result._summary,
    "_repr_latex_": Result._latex,
    "_repr_html_": Result._html,
}
