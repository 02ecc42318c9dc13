"""One printer for every table: plain text, Markdown and LaTeX (booktabs + siunitx).

:func:`table` prints any rows of results; :func:`probability_table` prints output
distributions (decimals, and the exact forms as polynomials or rational functions in
``x = e^{-epsilon/N}`` in a second table). Numbers are formatted from exact values (sympy)
or mpmath values, never through a float, so every printed digit is correct.

A LaTeX table needs ``booktabs``, ``siunitx``, ``longtable``, ``pdflscape`` and ``amsmath``
(:data:`LATEX_PACKAGES`); :func:`latex_document` wraps any body in a document that loads them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import sympy

from .._validate import argument_error, check_choice, check_int, check_nonempty
from ..cost import TooCostly
from ..printing import (
    REPR_DIGITS,
    Math,
    exact_text,
    format_number,
    latex_escape,
    latex_number,
)
from ..result_text import untie

if TYPE_CHECKING:
    from ..distribution import OutputDistribution

#: Packages every LaTeX table of exactdp needs.
LATEX_PACKAGES = ("amsmath", "amssymb", "booktabs", "siunitx", "longtable", "pdflscape", "array")

FORMATS = ("text", "markdown", "latex")
#: Usable width of the report's page (A4, 2.2 cm margins) in pt; wider tables turn landscape.
TEXT_WIDTH_PT = 480.0
LANDSCAPE_WIDTH_PT = 700.0
#: More rows than this: a longtable, which breaks across pages.
LONG_TABLE_ROWS = 35
_PT_PER_CHAR = 5.0  # a digit of the 10 pt Computer Modern font is 5 pt, a letter 4-5 pt
_PT_PER_COLUMN = 12.0  # \tabcolsep on both sides


# ---------------------------------------------------------------------------- cells
def _cell(value, digits: int) -> tuple[str, str, bool]:
    """(text, latex, numeric) of one table cell."""
    if value is None:
        return "-", "--", False
    if isinstance(value, Math):
        return value.text, f"${value.latex}$", False
    if isinstance(value, bool):
        return ("yes", "yes", False) if value else ("no", "no", False)
    if isinstance(value, str):
        return value, latex_escape(value), False
    text = format_number(value, digits)
    return text, text, True


def _siunitx_format(texts: Sequence[str]) -> str:
    """A ``table-format`` that holds every decimal of a column."""
    ints = decs = exps = 0
    sign = ""
    for t in texts:
        if t.startswith("-"):
            sign, t = "-", t[1:]
        mant, _, exp = t.partition("e")
        i, _, d = mant.partition(".")
        ints, decs = max(ints, len(i)), max(decs, len(d))
        if exp:
            exps = max(exps, len(exp.lstrip("+-")))
    fmt = f"{sign}{max(ints, 1)}" + (f".{decs}" if decs else "")
    return fmt + (f"e-{exps}" if exps else "")


def _si_cell(text: str) -> str:
    if text in ("inf", "-inf") or text.startswith(("exp(", "-exp(")) or text == "--":
        return "{$" + latex_number(text) + "$}" if text != "--" else "{--}"
    return text


def table(
    rows: Sequence[Sequence],
    columns: Sequence[str | Math],
    *,
    fmt: str = "text",
    caption: str | Math | None = None,
    dps: int = 6,
    label: str | None = None,
    notes: str | None = None,
) -> str:
    """Print rows of results as a text, Markdown or LaTeX table.

    Parameters
    ----------
    rows : sequence of sequences, shape (m, k)
        Cells: numbers (int, Fraction, sympy, mpmath: printed with ``dps`` significant
        digits, never through a float), str (plain text), :class:`Math`, bool (yes / no)
        or None (a dash).
    columns : sequence of str or Math, shape (k,)
        Headers.
    fmt : {"text", "markdown", "latex"}
    caption : str or Math, optional
        LaTeX source when ``fmt == "latex"`` (a :class:`Math` supplies both forms).
    dps : int
        Significant digits, 1..1000.
    label : str, optional
        LaTeX ``\\label``.
    notes : str, optional
        A line printed under the table (LaTeX source for ``fmt == "latex"``).

    Returns
    -------
    str
        In LaTeX: a ``table`` with a booktabs ``tabular`` (siunitx ``S`` columns align
        numbers at the decimal point), a ``longtable`` when it has more than
        :data:`LONG_TABLE_ROWS` rows, turned landscape when wider than the page, split into
        several tables when wider than a landscape page.

    Raises
    ------
    ValueError
        Unknown format, a row of the wrong length, dps out of range.
    """
    check_choice("table", "fmt", fmt, FORMATS)
    heads = [Math(f"${c.latex}$", c.text) if isinstance(c, Math)
             else Math(latex_escape(str(c)), str(c)) for c in columns]
    cells = []
    for i, row in enumerate(rows):
        if len(row) != len(heads):
            raise argument_error("table", f"len(rows[{i}])", f"{len(heads)} (one cell per column)",
                                 len(row))
        cells.append([_cell(v, dps) for v in row])
    cells, named = _named_exponents(cells)
    if named:
        notes = "\n".join(([notes] if notes else []) + _exponent_notes(named, fmt))
    if fmt == "latex":
        return _latex_tables(cells, heads, caption, label, notes)
    cap = None if caption is None else str(caption)
    if fmt == "markdown":
        return _markdown_table(cells, heads, cap, notes)
    return _text_table(cells, heads, cap, notes)


#: Most digits of a decimal exponent printed in a table's cell; a longer one (the
#: 400 digits of exp(-10**400)) is named ``K1``, ``K2``, ... and printed in full under the
#: table, so the lines stay short and every digit is still shown.
CELL_EXPONENT_DIGITS = 12
_LONG_EXPONENT = re.compile(rf"^(-?\d+(?:\.\d+)?)e([+-])(\d{{{CELL_EXPONENT_DIGITS + 1},}})$")


def _named_exponents(cells):
    """Cells whose decimal exponent is longer than :data:`CELL_EXPONENT_DIGITS` digits,
    with the exponent named (``1.64008e-K1``), and the names' values in order."""
    named: dict[str, str] = {}
    out = []
    for row in cells:
        new = []
        for text, latex, numeric in row:
            m = _LONG_EXPONENT.match(text) if numeric else None
            if m is None:
                new.append((text, latex, numeric))
                continue
            name = named.setdefault(m[3], f"K{len(named) + 1}")
            new.append((f"{m[1]}e{m[2]}{name}",  # braced math: an l or an S column
                        rf"{{${m[1]} \times 10^{{{m[2]}K_{{{name[1:]}}}}}$}}", False))
        out.append(new)
    return out, {name: digits for digits, name in named.items()}


def _exponent_notes(named: dict[str, str], fmt: str) -> list[str]:
    """``K1 = 2171...`` in lines of at most 76 digits (LaTeX: breakable)."""
    lines = []
    for name, digits in named.items():
        chunks = [digits[i:i + 76] for i in range(0, len(digits), 76)]
        if fmt == "latex":
            body = "\\allowbreak\n".join(chunks)  # a source line per chunk
            lines.append(rf"${name[0]}_{{{name[1:]}}} = {body}$ ({len(digits)} digits)")
        else:
            lines.append(f"{name} = ({len(digits)} digits)")
            lines += [f"  {c}" for c in chunks]
    return lines


def _text_table(cells, heads, caption, notes) -> str:
    header = [h.text for h in heads]
    body = [[c[0] for c in row] for row in cells]
    widths = [max(len(x) for x in [h] + [r[j] for r in body]) for j, h in enumerate(header)]
    lines = [caption] if caption else []
    lines.append("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)))
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in body]
    if notes:
        lines.append(notes)
    return "\n".join(lines)


def _markdown_table(cells, heads, caption, notes) -> str:
    def esc(s: str) -> str:
        return s.replace("|", r"\|")

    numeric = [bool(cells) and all(row[j][2] or row[j][0] == "-" for row in cells)
               for j in range(len(heads))]
    lines = [f"**{caption}**", ""] if caption else []
    lines.append("| " + " | ".join(esc(h.text) for h in heads) + " |")
    lines.append("|" + "|".join("---:" if num else "---" for num in numeric) + "|")
    lines += ["| " + " | ".join(esc(c[0]) for c in row) + " |" for row in cells]
    if notes:
        lines += ["", notes]
    return "\n".join(lines)


def _visible_len(latex: str) -> int:
    """Roughly how many characters LaTeX source prints (a command counts as one)."""
    text = re.sub(r"\\[a-zA-Z]+", "x", latex)
    return len(re.sub(r"[{}$^_]", "", text))


def _width_pt(cells, heads) -> float:
    """Estimated natural width of a tabular (pt), from the longest text of each column."""
    total = 0.0
    for j, h in enumerate(heads):
        texts = [_visible_len(row[j][1]) for row in cells]
        head = max(_visible_len(part) for part in h.latex.split(r"\\"))  # stacked lines
        w = max([head] + texts) * _PT_PER_CHAR
        total += w + _PT_PER_COLUMN
    return total


def _latex_tables(cells, heads, caption, label, notes) -> str:
    numeric = [bool(cells) and all(row[j][2] or row[j][1] == "--" for row in cells)
               for j in range(len(heads))]
    width = _width_pt(cells, heads)
    if width <= LANDSCAPE_WIDTH_PT or len(heads) <= 2:
        return _latex_one(cells, heads, numeric, caption, label, notes, width)
    # too wide even in landscape: split the columns, repeating the first (the row label)
    per = max(1, int((LANDSCAPE_WIDTH_PT / width) * (len(heads) - 1)))
    parts = []
    for k, start in enumerate(range(1, len(heads), per)):
        idx = [0] + list(range(start, min(start + per, len(heads))))
        sub_cells = [[row[j] for j in idx] for row in cells]
        sub_heads = [heads[j] for j in idx]
        sub_num = [numeric[j] for j in idx]
        cap = caption if k == 0 else _continued(caption)
        parts.append(_latex_one(sub_cells, sub_heads, sub_num, cap,
                                label if k == 0 else None, notes,
                                _width_pt(sub_cells, sub_heads)))
    return "\n".join(parts)


def _continued(caption):
    if caption is None:
        return None
    text = caption.latex if isinstance(caption, Math) else caption
    return text + " (continued)"


def _latex_one(cells, heads, numeric, caption, label, notes, width) -> str:
    spec = []
    for j, num in enumerate(numeric):
        if num:
            texts = [row[j][1] for row in cells if row[j][1] != "--" and row[j][2]]
            plain = [t for t in texts if not t.startswith(("inf", "-inf", "exp", "-exp"))]
            spec.append(f"S[table-format={_siunitx_format(plain or ['0'])}]")
        else:
            spec.append("l")
    head = " & ".join(("{" + h.latex + "}") if num else h.latex
                      for h, num in zip(heads, numeric, strict=True)) + r" \\"
    body = [" & ".join(_si_cell(c[1]) if num else c[1]
                       for c, num in zip(row, numeric, strict=True)) + r" \\" for row in cells]
    cap = caption.latex if isinstance(caption, Math) else caption
    lab = rf"\label{{{label}}}" if label else ""
    landscape = width > TEXT_WIDTH_PT
    if len(cells) > LONG_TABLE_ROWS:
        lines = [r"\begin{longtable}{" + "".join(spec) + "}"]
        if cap:
            lines.append(r"\caption{" + cap + "}" + lab + r"\\")
        lines += [r"\toprule", head, r"\midrule", r"\endfirsthead", r"\toprule", head,
                  r"\midrule", r"\endhead", r"\bottomrule", r"\endfoot", *body]
        lines.append(r"\end{longtable}")
        if notes:
            lines.append(notes)
    else:
        lines = [r"\begin{table}[htbp]", r"\centering"]
        if cap:
            lines.append(r"\caption{" + cap + "}" + lab)
        lines += [r"\begin{tabular}{" + "".join(spec) + "}", r"\toprule", head, r"\midrule",
                  *body, r"\bottomrule", r"\end{tabular}"]
        if notes:
            lines += [r"\par\smallskip", r"{\footnotesize " + notes + "}"]
        lines.append(r"\end{table}")
    if landscape:
        lines = [r"\begin{landscape}", *lines, r"\end{landscape}"]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- distributions
def _exact_forms(dist: OutputDistribution):
    """(x value, forms) from ``rational_form()``, or (None, exact expressions), or None, by
    the distribution's capabilities (None also when the exact route is refused by size)."""
    caps = dist.capabilities
    try:
        if "rational_form" in caps:
            rf = dist.rational_form()
            return rf.value, rf.forms, rf.x
        if "exact" in caps:
            return None, dist.probabilities, None
    except TooCostly:
        pass
    return None


def _common_denominator(forms):
    """(numerators, denominator) when every form has the same non-trivial denominator."""
    pairs = [sympy.fraction(sympy.together(f)) for f in forms]
    dens = {sympy.expand(d) for _, d in pairs}
    if len(dens) == 1 and next(iter(dens)).free_symbols:
        return [sympy.expand(n) for n, _ in pairs], dens.pop()
    return None, None


def _cell_text(expr, fmt: str) -> str | None:
    """:func:`~exactdp.printing.exact_text` of an exact form for a table cell; None when it
    holds an integer (an exponent, a numerator) of more than
    :data:`~exactdp.printing.REPR_DIGITS` digits (``x**(10**400)`` at scores 1e400, 0
    printed a line of 822 characters)."""
    bits = REPR_DIGITS * 3.33  # log2(10) bits per digit
    if any(max(abs(a.p), a.q).bit_length() > bits for a in expr.atoms(sympy.Rational)):
        return None
    return exact_text(expr, fmt)


def _over_z(num, fmt: str) -> str | None:
    """``num / Z`` as text or LaTeX."""
    text = _cell_text(num, fmt)
    if text is None:
        return None
    if num.is_Atom or num.is_Pow:
        return f"{text}/Z"
    return rf"\frac{{{text}}}{{Z}}" if fmt == "latex" else f"({text})/Z"


def _in_x(expr: sympy.Expr, value: sympy.Expr, x: sympy.Symbol) -> sympy.Expr | None:
    """``expr`` (a sum of rational multiples of exponentials) as a polynomial in ``x``.

    ``value`` is ``exp(a)``; every ``exp(b)`` with ``b / a`` rational becomes ``x**(b/a)``.
    None when some other term remains (the expression is then printed as it is).
    """
    if not isinstance(value, sympy.exp):
        return None
    a = value.args[0]

    def to_x(e):
        k = sympy.cancel(e.args[0] / a)
        return x**k if k.is_Rational else e

    out = sympy.expand(expr.replace(lambda e: isinstance(e, sympy.exp), to_x))
    if out.has(sympy.exp) or not out.free_symbols <= {x}:
        return None
    return out


def _exact_rows(columns, labels, fmt):
    """Rows (output, mechanism, exact form) and the caption's definition of x."""
    rows, xdefs = [], {}
    ref = next(((e[0], e[2]) for _, e in columns if e is not None and e[2] is not None), None)
    for name, exacts in columns:
        if exacts is None:
            continue
        value, forms, x = exacts
        at_epsilon_only = False
        if x is None and ref is not None:  # e.g. RNM-Laplace: exponentials of epsilon
            in_x = [_in_x(f, *ref) for f in forms]
            if all(f is not None for f in in_x):
                value, forms, x = ref[0], tuple(in_x), ref[1]
                at_epsilon_only = True  # its coefficients depend on epsilon
        if x is not None:
            xdefs.setdefault(value, []).append(name + ("*" if at_epsilon_only else ""))
        nums, den = _common_denominator(forms) if x is not None else (None, None)
        for i, (lab, f) in enumerate(zip(labels, forms, strict=True)):
            text = _over_z(nums[i], fmt) if den is not None else _cell_text(f, fmt)
            rows.append((lab, name, text))
        if den is not None:  # the normaliser: a row of its own, not an output
            rows.append(("", f"{name}, normaliser $Z$" if fmt == "latex" else f"{name} Z",
                         _cell_text(den, fmt)))
    out = []
    for lab, name, text in rows:
        if text is None:
            text = f"(too long to print: integers of over {REPR_DIGITS} digits)"
            cell = text if fmt != "latex" else Math(r"\text{" + text + "}", text)
        else:
            cell = Math(text, text) if fmt == "latex" else text
        out.append((lab, name, cell))
    return out, xdefs


def _x_definition(xdefs, fmt: str) -> str:
    parts = []
    fixed = []
    for value, names in xdefs.items():
        v = exact_text(value, fmt) or "exp(...)"
        who = ", ".join(n.rstrip("*") for n in names)
        fixed += [n.rstrip("*") for n in names if n.endswith("*")]
        parts.append(f"$x = {v}$ ({who})" if fmt == "latex" else f"x = {v} ({who})")
    text = "; ".join(parts)
    if fixed:
        eps = r"$\varepsilon$" if fmt == "latex" else "epsilon"
        text += (f"; {', '.join(fixed)}: a polynomial in $x$ at this {eps} only (its "
                 f"coefficients depend on {eps})" if fmt == "latex" else
                 f"; {', '.join(fixed)}: a polynomial in x at this {eps} only (its "
                 f"coefficients depend on {eps})")
    return text


def probability_table(
    distributions: Mapping[str, OutputDistribution],
    labels: Sequence[str] | None = None,
    *,
    fmt: str = "text",
    exact: bool = True,
    dps: int = 6,
    caption: str | Math | None = None,
    label: str | None = None,
    exact_title: str = "",
) -> str:
    """Output probabilities: one row per output, one column per mechanism.

    Parameters
    ----------
    distributions : mapping of column label -> OutputDistribution
        All over the same range (same n).
    labels : sequence of str, optional
        Row labels (default ``0..n-1``).
    fmt : {"text", "markdown", "latex"}
    exact : bool
        Also print the exact probabilities, in a second table: polynomials (PF,
        RNM-exponential) or rational functions with a common denominator ``Z`` (EM) in
        ``x = e^{-epsilon/(c Delta L)}`` (:meth:`OutputDistribution.rational_form`), defined
        once in the caption; other mechanisms' exact expressions as they are.
    dps : int
        Significant digits of the decimals (mpmath, correct to that many), 1..1000.
    caption : str or Math, optional
    label : str, optional
        LaTeX label of the decimal table (the exact table gets ``label + "-exact"``).
    exact_title : str, optional
        Added to the exact table's caption (LaTeX) after "Exact output probabilities".

    Raises
    ------
    ValueError
        Unknown format, mismatched range sizes, dps out of range.
    """
    check_choice("probability_table", "fmt", fmt, FORMATS)
    check_int("probability_table", "dps", dps, 1, 1000)
    dists = list(check_nonempty("probability_table", "distributions",
                                list(distributions.items())))
    n = dists[0][1].n
    if any(d.n != n for _, d in dists):
        raise argument_error("probability_table", "distributions",
                             "distributions over ranges of one size",
                             {name: d.n for name, d in dists})
    labels = list(labels) if labels is not None else [str(r) for r in range(n)]
    if len(labels) != n:
        raise argument_error("probability_table", "len(labels)", f"{n} (one per output)",
                             len(labels))
    values = [_split_ties(d, d.evalf(max(dps + 5, 15)), dps) for _, d in dists]
    rows = [[_label_cell(lab)] + [vals[i] for vals in values] for i, lab in enumerate(labels)]
    heads = [Math("r", "r")] + [name for name, _ in dists]
    out = [table(rows, heads, fmt=fmt, caption=caption, dps=dps, label=label)]
    if exact:
        columns = [(name, _exact_forms(d)) for name, d in dists]
        exact_rows, xdefs = _exact_rows(columns, labels, fmt)
        if exact_rows:
            out.append(_exact_table(exact_rows, xdefs, fmt, label, exact_title))
    return "\n\n".join(out)


#: Outputs up to which a column whose decimals tie is checked on its exact probabilities.
TIE_CHECK_N = 64


def _split_ties(dist, column: list, dps: int) -> list:
    """``column`` (decimals) with each group of cells that print alike but differ exactly
    shown as the common decimals plus each cell's rigorous offset (``0.5 + 2.5e-301``,
    :func:`~exactdp.result_text.untie`), as the library prints near-ties to 1.
    Only for exact distributions of at most :data:`TIE_CHECK_N` outputs; a cell whose
    offset is not separated from 0 keeps its decimals."""
    texts = [format_number(v, dps) for v in column]
    if len(set(texts)) == len(texts) or len(column) > TIE_CHECK_N or (
            "exact" not in dist.capabilities):
        return column
    out = list(column)
    for i, text in enumerate(untie(texts, list(dist.probabilities), dps)):
        if text != texts[i]:
            out[i] = Math(re.sub(r"e([+-])0*(\d+)", lambda m: r" \times 10^{"
                                 + m.group(1).replace("+", "") + m.group(2) + "}",
                                 text), text)
    return out


def _label_cell(lab: str) -> Math:
    """An output's name: a number in math mode, a word (``--labels``) upright as text."""
    if re.fullmatch(r"-?[0-9]+(?:[./][0-9]+)?", lab):
        return Math(lab, lab)
    return Math(rf"\text{{{latex_escape(lab)}}}", lab)


def _exact_table(rows, xdefs, fmt: str, label: str | None, title: str = "") -> str:
    xdef = _x_definition(xdefs, fmt)
    if fmt != "latex":
        lines = ["exact:" + (f" {xdef}" if xdef else "")]
        lines += [f"  {name}[{lab}] = {cell}" if lab else f"  {name} = {cell}"
                  for lab, name, cell in rows]
        return "\n".join(lines)
    cap = "Exact output probabilities" + title + (f", with {xdef}" if xdef else "")
    if any("normaliser" in name for _, name, _ in rows):
        cap += "; $Z$ is the common denominator (the normaliser), in a row of its own"
    lab = rf"\label{{{label}-exact}}" if label else ""
    body = ((f"${_label_cell(r).latex}$" if r else "") + f" & {name} & ${cell.latex}$ \\\\"
            for r, name, cell in rows)
    return "\n".join([r"{\renewcommand{\arraystretch}{1.25}",
        r"\begin{longtable}{@{}l l >{\raggedright\arraybackslash}p{0.74\linewidth}@{}}",
        r"\caption{" + cap + "}" + lab + r"\\",
        r"\toprule", r"$r$ & mechanism & $\Pr[M(q) = r]$ \\", r"\midrule", r"\endfirsthead",
        r"\toprule", r"$r$ & mechanism & $\Pr[M(q) = r]$ \\", r"\midrule", r"\endhead",
        r"\bottomrule", r"\endfoot", *body, r"\end{longtable}}",
    ])


def latex_document(body: str, *, title: str | None = None, landscape: bool = False,
                   packages: Sequence[str] = (), preamble: Sequence[str] = ()) -> str:
    """A complete LaTeX document around ``body`` that loads :data:`LATEX_PACKAGES`.

    Parameters
    ----------
    body : str
        Tables, text, figures.
    title : str, optional
    landscape : bool
        Landscape pages.
    packages : sequence of str
        More packages to load (e.g. ``"[section]{placeins}"``: floats stay in their section).
    preamble : sequence of str
        More preamble lines (e.g. float placement parameters).
    """
    opts = "a4paper,margin=2.2cm" + (",landscape" if landscape else "")
    lines = [
        r"\documentclass[10pt]{article}",
        rf"\usepackage[{opts}]{{geometry}}",
        r"\usepackage{" + ",".join(LATEX_PACKAGES) + "}",
        r"\usepackage{graphicx,caption,microtype}",
        *(r"\usepackage" + (p if p.startswith(("[", "{")) else "{" + p + "}") for p in packages),
        r"\usepackage[hidelinks]{hyperref}",
        r"\sisetup{group-digits=none}",
        r"\captionsetup{font=small,labelfont=bf}",
        r"\setlength{\LTcapwidth}{\textwidth}",
        *preamble,
        r"\begin{document}",
    ]
    if title:
        lines.append(r"\section*{" + title + "}")
    lines += [body, r"\end{document}", ""]
    return "\n".join(lines)
