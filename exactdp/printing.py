"""The one LaTeX / text printing core: exact decimals, LaTeX math, escaping, small arrays.

Every number is formatted from an exact (sympy) or mpmath value, never through a float, so
each printed digit is correct; huge integers go through mpmath (no int-to-str limit).

This module sits low in the layers (it imports nothing of exactdp), so the distributions'
and the analysis results' ``_repr_latex_`` print through it directly; the tables of
:mod:`exactdp.io.latex` build on it and re-export its public names.
"""

from __future__ import annotations

import fractions
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import mpmath
import sympy

from ._validate import check_int, message


@dataclass(frozen=True)
class Math:
    """A table cell or caption piece that is mathematics: LaTeX source and its text form."""

    latex: str
    text: str

    def __str__(self) -> str:
        return self.text


def latex_escape(text: str) -> str:
    """Escape the LaTeX special characters of plain text."""
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
            "|": r"\textbar{}"}
    return "".join(repl.get(ch, ch) for ch in text)


#: A number of a printed witness or interval: an integer, a fraction, a decimal, or an
#: infinity (sympy's ``oo``, mpmath's and Python's ``inf``).
_NUMBER = r"[-+]?(?:oo|inf|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?:/\d+)?)"
#: An interval or a tuple of numbers as the library prints them (``(0, oo)``,
#: ``[1.5, inf]``, ``(1/2, 3)``: ", " between numbers), an arrow to a number
#: (``-> -oo``), or an infinity alone.
_PROSE_MATH = re.compile(
    rf"[(\[]{_NUMBER}(?:, {_NUMBER})+[)\]]|->\s*{_NUMBER}(?![\w.])"
    r"|(?<![\w.])[-+]?(?:oo|inf)(?![\w.])")
_INFINITY = re.compile(r"(?<![\w.])(oo|inf)(?![\w.])")


def _number_latex(text: str) -> str:
    """One number of :data:`_NUMBER` as LaTeX math (``1/2`` as ``\\frac{1}{2}``, ``oo``
    and ``inf`` as ``\\infty``)."""
    sign, body = (text[0], text[1:]) if text[0] in "+-" else ("", text)
    if body in ("oo", "inf"):
        return ("-" if sign == "-" else "") + r"\infty"
    if "/" in body:
        num, den = body.split("/")
        return rf"{'-' if sign == '-' else ''}\frac{{{num}}}{{{den}}}"
    return ("-" if sign == "-" else "") + latex_number(body)


def _math_piece(text: str) -> str:
    if text.startswith("->"):
        return r"\to " + _number_latex(text[2:].strip())
    if text[0] in "([":
        ends = (_number_latex(t) for t in text[1:-1].split(", "))
        return text[0] + ", ".join(ends) + text[-1]
    return _number_latex(text)


def prose_latex(text: str) -> str:
    """Plain text (a witness, a caveat) as LaTeX text: its intervals and tuples of numbers,
    its arrows to a number and its infinities in math mode, the rest escaped
    (:func:`latex_escape`), so sympy's ``oo`` never prints as two letters.

    Examples
    --------
    >>> print(prose_latex("the pattern REAL with the value in (-oo, 1/2)"))
    the pattern REAL with the value in $(-\\infty, \\frac{1}{2})$
    >>> print(prose_latex("as the value -> oo; loss in [0.5, inf]"))
    as the value $\\to \\infty$; loss in $[0.5, \\infty]$
    """
    out, at = [], 0
    for m in _PROSE_MATH.finditer(text):
        out += [latex_escape(text[at:m.start()]), "$" + _math_piece(m.group()) + "$"]
        at = m.end()
    return "".join(out) + latex_escape(text[at:])


_MATH_TEXT = {"\\": r"\backslash ", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
              "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\sim ", "^": r"\hat{}", " ": r"\ "}


def math_text(text: str) -> str:
    """Plain text as upright LaTeX *math* (``\\mathrm{bounded\\_range}``).

    Inside math, ``\\_`` and the other escapes are understood alike by LaTeX and by the
    notebook's MathJax (which prints a ``\\text{...\\_...}`` backslash literally). An
    infinity (sympy's ``oo``, ``inf``) is ``\\infty``, never two upright letters.

    Examples
    --------
    >>> print(math_text("value in (0, oo)"))
    \\mathrm{value\\ in\\ (0,\\ }\\infty\\mathrm{)}
    """
    text = _INFINITY.sub("\1", text.replace("->", "\0"))
    body = "".join(_MATH_TEXT.get(ch, ch) for ch in text)
    body = body.replace("\0", r"}\to\mathrm{").replace("\1", r"}\infty\mathrm{")
    return r"\mathrm{" + body + "}"


def _to_mpf(value, digits: int):
    """``value`` as an mpf correct to ``digits`` digits, or +-inf; exact input only."""
    if isinstance(value, mpmath.mpf):
        return value
    if isinstance(value, float):
        raise TypeError(message("format_number", "value", "exact (sympy or mpmath), not a "
                                "Python float", value))
    if isinstance(value, fractions.Fraction):
        value = sympy.Rational(value.numerator, value.denominator)
    try:  # None, containers, unparsable text: a one-line error, not sympify's
        expr = sympy.sympify(value) if isinstance(value, (int, str, sympy.Basic)) else None
    except (sympy.SympifyError, TypeError, ValueError, SyntaxError):
        expr = None
    if expr is None:
        raise TypeError(message("format_number", "value", "a real number (int, Fraction, "
                                "sympy or mpmath)", value))
    if not (expr.is_number and expr.is_extended_real is not False) or expr.has(sympy.zoo):
        raise ValueError(message("format_number", "value", "a real number (no symbol, "
                                 "complex part or zoo)", value))
    if expr is sympy.oo:
        return mpmath.inf
    if expr is -sympy.oo:
        return -mpmath.inf
    return _evalf_mpf(expr, digits)


@lru_cache(maxsize=4096)
def _evalf_mpf(expr: sympy.Expr, digits: int) -> mpmath.mpf:
    """:func:`_to_mpf` of a finite sympy number, kept per ``(expr, digits)``: a report
    prints each value in three formats (markdown, LaTeX, text), from one evaluation."""
    # strict: sympy's evalf refuses rather than return a cancelled sum's noise (a difference
    # of 1e-300 printed as 5.6e-132); more working digits (maxn) before giving up
    for maxn in (100, 1000, 10000):
        try:
            num = expr.evalf(digits + 10, maxn=max(maxn, digits + 20), strict=True)
            break
        except sympy.core.evalf.PrecisionExhausted:
            continue
    else:
        raise ValueError(f"format_number: cannot evaluate {sympy.sstr(expr)[:80]} to "
                         f"{digits} digits (a cancellation beyond 10**-10000, or zero)")
    with mpmath.workdps(digits + 10):
        return mpmath.mpf(num._to_mpmath(mpmath.mp.prec))


def format_number(value, dps: int = 6) -> str:
    """Decimal text of an exact or mpmath number, correct to ``dps`` significant digits.

    Integers with at most ``dps`` digits print exactly; others round (``1.0e+300``).
    Values print as ``m e k`` (``2.8709e-217148``), the mantissa right to ``dps`` digits
    at any size (mpmath's own text loses it beyond about 1e+-900): ``exp(-1e400)/2`` prints
    as ``m e-k`` with ``k`` in all its 400 digits and ``m`` right to ``dps`` digits. Only
    beyond a decimal exponent of :data:`EXPONENT_DIGITS` digits (which Python cannot print)
    the text is ``exp(L)`` with ``L = ln v`` right to ``dps`` significant digits (a
    statement about ``ln v``, not about ``v``'s mantissa); infinities print as ``inf``.
    No Python int-to-str limit applies (huge integers go through mpmath).

    Raises
    ------
    ValueError
        If ``dps`` is not an integer in 1..1000.
    TypeError
        For a Python float (not an exact value).
    """
    dps = check_int("format_number", "dps", dps, 1, 1000)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, sympy.Integer)) and abs(int(value)).bit_length() < 3.3 * dps:
        if abs(int(value)) < 10**dps:
            return str(int(value))
    v = _to_mpf(value, dps)
    if mpmath.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0"
    if abs(mpmath.mag(v)) > 3000:  # beyond about 1e+-900: mpmath's nstr loses the mantissa
        return _scientific(v, dps)
    with mpmath.workdps(dps + 10):
        text = mpmath.nstr(v, dps, min_fixed=-5, max_fixed=max(dps, 6))
        whole = len(text.lstrip("-").split(".")[0])
        if "e" not in text and whole > dps:  # 123456 at 3 digits: not "123000"
            return mpmath.nstr(v, dps, min_fixed=-5, max_fixed=dps)
    if "e" not in text and whole == dps and text.endswith(".0"):
        return text[:-2]  # nstr adds ".0" to dps integer digits: not a digit (250001.0)
    return text


#: Most decimal digits of the exponent ``k`` in a printed ``m e k``; beyond, Python cannot
#: print ``k`` and the text is ``exp(L)`` with ``L = ln v``.
EXPONENT_DIGITS = 4000


def _scientific(v: mpmath.mpf, dps: int) -> str:
    """``m * 10**k`` text of ``v`` correct to ``dps`` digits (``exp(ln v)`` beyond
    ``10**(10**EXPONENT_DIGITS)``).

    ``v = man * 2**e`` exactly, so ``log10|v| = (ln man + e ln 2) / ln 10`` is computed with
    as many digits as ``e`` has plus ``dps`` guard digits: its fractional part (the
    mantissa) is then right to ``dps`` digits even for ``exp(-10**300)``.
    """
    man, e = v.man_exp  # not abs(v): that rounds to the context's precision (53 bits)
    man = abs(int(man))
    sign = "-" if v < 0 else ""
    with mpmath.workdps(dps + 20 + int(abs(e).bit_length() * 0.302) + 1):
        if abs(e).bit_length() * 0.302 > EXPONENT_DIGITS:  # no int text of the exponent
            log_v = mpmath.log(man) + e * mpmath.ln2
            with mpmath.workdps(dps + 10):  # round first: nstr at the high precision
                return f"{sign}exp({mpmath.nstr(+log_v, dps)})"  # would print every digit
        L = (mpmath.log(man) + e * mpmath.ln2) / mpmath.ln10
        k = int(mpmath.floor(L))
        mant = mpmath.power(10, L - k)
        text = mpmath.nstr(mant, dps)
        if mpmath.mpf(text) >= 10:  # 9.9999... rounded up to 10
            k += 1
            text = mpmath.nstr(mant / 10, dps)
    if "." not in text:
        text += ".0"
    return f"{sign}{text}e{k:+d}"


#: Most decimal digits of an integer (or of a rational's numerator or denominator) that a
#: repr prints exactly; beyond, the repr shows decimals with an exponent (``1.0e+5000``).
REPR_DIGITS = 100


def _long_number(value) -> bool:
    """Whether ``value`` (an int or an exact sympy number) holds an integer of more than
    :data:`REPR_DIGITS` digits: bit lengths only, never a conversion to text."""
    bits = int(REPR_DIGITS * 3.3219) + 1
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value).bit_length() > bits
    if isinstance(value, sympy.Basic):
        return any(max(abs(int(r.p)).bit_length(), int(r.q).bit_length()) > bits
                   for r in value.atoms(sympy.Rational))
    return False


def value_repr(value) -> str:
    """``repr(value)`` for a repr's field, but a number holding an integer of more than
    :data:`REPR_DIGITS` digits shows as decimals with an exponent (``1.0e+5000``: Python
    refuses to print an int of more than 4300 digits), tuples and lists item by item."""
    if isinstance(value, (tuple, list)):
        items = [value_repr(v) for v in value]
        if isinstance(value, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if not _long_number(value):
        return repr(value)
    if not isinstance(value, sympy.Basic) or isinstance(value, sympy.Rational):
        return format_number(value, 12)
    # an expression (exp(-10**5000/2)): each long rational shown in decimals, nothing
    # evaluated (evaluating the exponential would take minutes)
    long = {r: sympy.Symbol(format_number(r, 12)) for r in value.atoms(sympy.Rational)
            if _long_number(r)}
    return exact_text(value.xreplace(long), "text") or "<expression>"


def latex_number(text: str) -> str:
    """Decimal text from :func:`format_number` (``1.5e-07``, ``inf``) as LaTeX math; a
    decimal with its offset (``5.0e-301 - 5.0e-601``: a near-tie or a tiny gap shown beside
    its short decimal) term by term."""
    for sep in (" - ", " + "):
        if sep in text:
            head, tail = text.split(sep, 1)
            return latex_number(head) + sep + latex_number(tail)
    if text in ("inf", "-inf"):
        return r"\infty" if text == "inf" else r"-\infty"
    if text.startswith(("exp(", "-exp(")):
        sign = "-" if text.startswith("-") else ""
        return sign + r"e^{" + text[text.index("(") + 1:-1] + "}"
    if "e" in text:
        mant, exp = text.split("e")
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return text


def exact_text(expr, fmt: str) -> str | None:
    """sympy's LaTeX / text of ``expr``; None if it holds an integer beyond printing."""
    try:
        if fmt == "latex":
            # a/b folded only for polynomials with rational coefficients (integer b)
            syms = expr.free_symbols
            poly = len(syms) == 1 and expr.is_polynomial(*syms)
            return sympy.latex(expr, fold_short_frac=bool(poly))
        return sympy.sstr(expr)
    except ValueError:  # Python's int-to-str limit (thousands of digits)
        return None


def scores_latex(scores: Sequence, dps: int = 6, limit: int = 8) -> Math:
    """``q = (3, 8, \\dots)``: a score vector for a caption, shortened after ``limit`` items
    (``dps`` significant digits; a short rational whose decimals would be rounded, such as
    1/3, as its exact fraction: a caption never shows a rounded score unmarked)."""
    items = [_score_text(v, dps) for v in scores]
    shown = items if len(items) <= limit else items[: limit - 1]
    tail_l = r", \dots" if len(items) > limit else ""
    tail_t = ", ..." if len(items) > limit else ""
    latex = "(" + ", ".join(_score_latex(s) for s in shown) + tail_l + ")"
    return Math(latex, "(" + ", ".join(shown) + tail_t + ")")


def _score_text(v, dps: int) -> str:
    """A score's decimals when they are its value, else a short fraction as itself."""
    text = format_number(v, dps)
    if isinstance(v, sympy.Rational) and not v.is_Integer and max(abs(v.p), v.q) < 10**6:
        try:
            if sympy.Rational(text) != v:
                return str(v)
        except (TypeError, ValueError):  # an offset form (``0.5 + 1e-40``): not a number
            return str(v)
    return text


def _score_latex(text: str) -> str:
    """A caption's score in LaTeX: a fraction ``p/q`` as ``\\frac{p}{q}``."""
    if "/" in text and " " not in text:
        num, den = text.split("/")
        sign = "-" if num.startswith("-") else ""
        return sign + r"\frac{" + num.lstrip("-") + "}{" + den + "}"
    return latex_number(text)


# ---------------------------------------------------------------------------- math blocks
def latex_math(body: str, *, display: bool = False) -> str:
    """``body`` as the inline math string a ``_repr_latex_`` returns (``$...$``);
    ``display=True`` adds ``\\displaystyle``."""
    return "$" + ("\\displaystyle " if display else "") + body + "$"


def latex_decimal(value, dps: int = 6) -> str:
    """An exact or mpmath number as LaTeX decimals correct to ``dps`` significant digits
    (:func:`format_number` then :func:`latex_number`; a bool prints as yes / no; a Python
    float prints by its exact binary value)."""
    if isinstance(value, float):
        value = mpmath.mpf(value)
    return latex_number(format_number(value, dps))


def latex_array(heads: Sequence[str], rows: Sequence[Sequence[str]], align: str | None = None,
                ) -> str:
    """A LaTeX ``array`` (math mode): ``heads`` over a rule, then ``rows`` (LaTeX cells).

    ``align`` is the column specification (default: left-aligned columns).

    Raises
    ------
    ValueError
        If a row does not have ``len(heads)`` cells.
    """
    width = len(heads)
    for row in rows:
        if len(row) != width:
            raise ValueError(f"latex_array: a row has {len(row)} cells, expected {width}")
    spec = align if align is not None else "l" * width
    head = " & ".join(heads) + " \\\\ \\hline "
    body = " \\\\ ".join(" & ".join(r) for r in rows)
    return "\\begin{array}{" + spec + "} " + head + body + " \\end{array}"


# ---------------------------------------------------------------------------- distributions
def distribution_latex(dist) -> str:
    """LaTeX of a distribution: ``\\Pr[M(q) = r]`` for each r, exact when available.

    ``dist`` is any object with ``mechanism`` (its ``name``, the registry label: ``PF``,
    ``RNM-Laplace``), ``n``, ``probabilities`` (may raise ValueError) and ``evalf(dps)``.

    A mechanism releasing a sequence (output kind ``"sequence"``: the sparse vector, a
    program's tuples) names each output itself (``(T, F, -)``) and leaves out the outputs
    of probability exactly 0 (a program's run whose comparisons contradict each other),
    saying how many: they stay in ``outputs`` and ``probabilities`` (the outputs its runs
    reach), only the display hides them.
    """
    label = dist.mechanism.name.replace("_", r"\_")  # a program's name: gap_svt
    try:
        probs = dist.probabilities
        entries = [exact_text(p, "latex") for p in probs]
    except ValueError:
        probs, entries = None, [None] * dist.n
    if any(e is None for e in entries):
        entries = [latex_decimal(v, 15) for v in dist.evalf(20)]
    names: list[str] = [str(r) for r in range(len(entries))]
    hidden = 0
    if dist.mechanism.output_kind in ("sequence", "release"):  # a release: its patterns
        names = [rf"\text{{{latex_escape(output_text(o))}}}" for o in dist.outputs]
        keep = [probs is None or probs[i] != 0 for i in range(len(entries))]
        hidden = keep.count(False)
        names = [a for a, k in zip(names, keep, strict=True) if k]
        entries = [e for e, k in zip(entries, keep, strict=True) if k]
    rows = [rf"\Pr[\mathrm{{{label}}}(q) = {r}] &= {e}"
            for r, e in zip(names, entries, strict=True)]
    if hidden:
        rows.append(rf"&\text{{({hidden} output{'s' * (hidden > 1)} of probability 0 not shown)}}")
    return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"


def _top_level_terms(text: str) -> list[int]:
    """Positions of the `` + `` and `` - `` that join an expression's top-level terms in
    its LaTeX (outside every ``{...}`` and ``\\left ... \\right`` group)."""
    cuts, depth, i = [], 0, 0
    while i < len(text):
        if text.startswith(r"\left", i):
            depth += 1
            i += 5
            continue
        if text.startswith(r"\right", i):
            depth -= 1
            i += 6
            continue
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and text.startswith((" + ", " - "), i) and i > 0:
            cuts.append(i)
        i += 1
    return cuts


def cut_latex(expr: object, limit: int) -> str:
    """The LaTeX of ``expr`` (math mode, without the ``$``) in at most about ``limit``
    characters: whole when short; else its first top-level terms and ``+ \\dots`` (cut at a
    term boundary, every group closed, so it compiles); a logarithm or a fraction with no
    such boundary cut inside (its argument, its numerator and denominator); else
    ``\\dots`` and its size in words.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> print(cut_latex(sum(x**k / (k + 1) for k in range(30)), 50))
    \\frac{x^{29}}{30} + \\frac{x^{28}}{29} + \\dots
    >>> print(cut_latex(sympy.Rational(1, 3), 40))
    \\frac{1}{3}
    """
    text = sympy.latex(expr)
    if len(text) <= limit:
        return text
    tail = r" + \dots"
    cuts = [i for i in _top_level_terms(text) if i + len(tail) <= limit]
    if cuts:
        return text[: cuts[-1]] + tail
    if isinstance(expr, sympy.log) and limit > 40:  # a loss: the log of a ratio, cut inside
        return r"\log{\left(" + cut_latex(expr.args[0], limit - 20) + r" \right)}"
    if isinstance(expr, sympy.Expr) and limit > 40:
        num, den = sympy.fraction(expr)  # structural: nothing is expanded
        if den != 1:
            half = limit // 2 - 8
            return r"\frac{" + cut_latex(num, half) + "}{" + cut_latex(den, half) + "}"
    return r"\dots\ " + math_text(f"({len(text):,} characters)")


def output_text(output: object) -> str:
    """An output in short letters: ``(T, F, -)`` for a tuple of answers (``True``,
    ``False``, ``None``), a 1-tuple as ``(F,)``; anything else by ``str``.

    Examples
    --------
    >>> output_text((True, None)), output_text((False,)), output_text(3)
    ('(T, -)', '(F,)', '3')
    """
    if isinstance(output, tuple):
        inner = ", ".join(output_text(o) for o in output)
        return f"({inner},)" if len(output) == 1 else f"({inner})"
    if output is True or output is False or output is None:
        return {True: "T", False: "F", None: "-"}[output]
    return str(output)


# ---------------------------------------------------------------------------- HTML
def html_table(title: str, rows: Sequence[tuple[str, str]]) -> str:
    """A small two-column HTML ``<table>`` of plain-text ``(label, value)`` rows under a
    title: a result's display in HTML exported from a notebook (no LaTeX, no script, so it
    reads offline). Every text is escaped."""
    body = "".join(f"<tr><th style=\"text-align:left\">{html.escape(a)}</th>"
                   f"<td style=\"text-align:left\">{html.escape(b)}</td></tr>" for a, b in rows)
    return (f"<table><caption style=\"text-align:left\"><b>{html.escape(title)}</b></caption>"
            f"{body}</table>")
