"""Exact signs of real numbers: ``sign``, ``is_zero``, ``compare``, or an error, never a guess.

This module has no differential-privacy concepts in it; every sign decision of exactdp
goes through :func:`sign`. A sign is decided by one of these proofs, in this order:

1. **Rational arithmetic** for integers and rationals (and ``oo``, ``-oo``).
2. **A rigorous ball** (:func:`exactdp.exact.arb.to_arb`) that excludes 0: first at 96 bits,
   then at a precision chosen from the size of the expression (the largest ``|log2|`` of
   any of its sub-expressions, so ``1/(1 + exp(-16384))`` against ``1/(1 + exp(-16386))``
   starts above 23,700 bits instead of giving up), doubling up to :data:`MAX_PREC` bits.
3. **Exact zero recognition** when a ball keeps containing 0:

   - a real *algebraic* number (rationals, radicals, ``CRootOf``) is 0 iff its minimal
     polynomial over QQ is ``x`` (sympy ``minimal_polynomial``); a non-zero algebraic
     number is then separated from 0 by raising the precision;
   - an *exp-polynomial* ``sum_i c_i exp(a_i)`` with algebraic ``c_i`` and pairwise
     distinct algebraic ``a_i`` is 0 iff every ``c_i`` is 0 (Lindemann-Weierstrass
     theorem); this covers every probability of EM, PF and RNM with exponential or Gumbel
     noise at an algebraic epsilon;
   - anything else is 0 if exact polynomial rewriting (``expand``, ``powsimp``,
     ``logcombine``, ``cancel``) reduces it to the integer 0 (never sympy's ``simplify``,
     which can return 0 for a non-zero number of size ``exp(-10**300)``).

   A number that is neither proved 0 nor separated from 0 by a ball raises
   :class:`UndecidedSignError`. No float threshold is ever used.

Symbolic expressions (free symbols) are decided by sympy's assumption system only (for
example ``epsilon`` declared positive); otherwise :class:`UndecidedSignError` is raised.

References
----------
F. Lindemann (1882), K. Weierstrass (1885): if ``a_1..a_k`` are distinct algebraic numbers,
``exp(a_1)..exp(a_k)`` are linearly independent over the algebraic numbers (A. Baker,
*Transcendental Number Theory*, 1975, Theorem 1.4).
"""

from __future__ import annotations

import sympy

from ..cost import (
    EXACT_ZERO_BITS_LIMIT,
    EXACT_ZERO_EXPONENT_DIGITS,
    EXACT_ZERO_NODES,
    SIGN_SECONDS_LIMIT,
    TooCostly,
    check_exact_zero_bits,
    exponent_digits,
    sign_ball_seconds,
    sign_prec_limit,
)
from .arb import as_exact, flint_prec, to_arb

#: Highest working precision (bits) :func:`sign` uses before raising.
MAX_PREC = 1 << 20

_FIRST_PREC = 96
_T = sympy.Dummy("t")


class UndecidedSignError(ArithmeticError):
    """The sign of a number (or a comparison) could not be decided rigorously.

    Raised instead of a guess. ``expr`` holds the expression (or None); the message names
    it and says how far the attempt went.

    Examples
    --------
    >>> from exactdp import UndecidedSignError
    >>> issubclass(UndecidedSignError, ArithmeticError)
    True
    >>> str(UndecidedSignError("sign: undecided"))
    'sign: undecided'
    """

    def __init__(self, message: str, expr: object = None):
        super().__init__(message)
        self.expr = expr


class SignTooCostly(UndecidedSignError, TooCostly):
    """An undecided sign whose next proofs are past the cost model: an
    :class:`UndecidedSignError` and a refusal (:class:`~exactdp.cost.TooCostly`) with its
    parts, so a public call restates it in its own name (:class:`~exactdp.cost.as_caller`).
    """

    def __init__(self, what: str, estimate: str, cheaper: str, expr: object = None):
        limit = f"{SIGN_SECONDS_LIMIT} s"
        super().__init__(f"sign: {what} would need {estimate} (limit {limit}); {cheaper}",
                         expr)
        self.func, self.what, self.estimate, self.limit, self.cheaper = (
            "sign", what, estimate, limit, cheaper)


#: Most bits of a numerator or denominator that the exact rewriting in
#: :func:`_rewrites_to_zero` and the messages print as digits (Python converts at most 4300
#: digits of an int to text).
_TEXT_BITS = 13_000


def _short(e: object, limit: int = 300) -> str:
    if isinstance(e, sympy.Basic) and _has_huge_rational(e):
        e = e.xreplace({
            r: sympy.Symbol(f"<a rational of ~10^{_rational_bits(r) * 0.30103:.0f}>")
            for r in e.atoms(sympy.Rational) if _rational_bits(r) > _TEXT_BITS
        })
    s = str(e)
    return s if len(s) <= limit else s[: limit - 20] + " ... " + s[-15:]


def _rational_bits(r: sympy.Rational) -> int:
    return max(abs(int(r.p)).bit_length(), int(r.q).bit_length())


def _largest_rational_bits(e: sympy.Basic) -> int:
    return max((_rational_bits(r) for r in e.atoms(sympy.Rational)), default=0)


def _has_huge_rational(e: sympy.Basic) -> bool:
    return _largest_rational_bits(e) > _TEXT_BITS


def _as_expr(expr: object, func: str) -> sympy.Expr:
    return as_exact(expr, func)


# ------------------------------------------------------------------------------ public
def sign(expr: object) -> int:
    """The sign of a real number, decided exactly: -1, 0 or 1.

    Parameters
    ----------
    expr : sympy.Expr, int or fractions.Fraction
        A real closed-form number (or an expression whose sign sympy's assumptions decide).

    Returns
    -------
    int
        -1, 0 or 1.

    Raises
    ------
    UndecidedSignError
        When no proof is found (see the module docstring for the proofs tried).
    ValueError
        For floats, NaN, ``zoo`` or a number that is not real.

    Examples
    --------
    >>> import sympy
    >>> sign(sympy.sqrt(2) * sympy.sqrt(3) - sympy.sqrt(6))
    0
    >>> sign(1 / (1 + sympy.exp(-16386)) - 1 / (1 + sympy.exp(-16384)))
    1
    """
    e = _as_expr(expr, "sign")
    if e.is_Rational:
        return int(bool(e > 0)) - int(bool(e < 0))
    if e is sympy.oo:
        return 1
    if e is -sympy.oo:
        return -1
    if e is sympy.nan or e is sympy.zoo or e.has(sympy.nan, sympy.zoo):
        raise ValueError(f"sign: {_short(e)} is not a real number")
    if e.free_symbols:
        return _symbolic_sign(e)
    if e.has(sympy.oo, -sympy.oo):
        raise UndecidedSignError(f"sign: cannot decide the sign of {_short(e)} (infinite terms)", e)
    return _numeric_sign(e)


def sign_or_none(expr: object) -> int | None:
    """:func:`sign`, or None when it raises :class:`UndecidedSignError` (symbolic input)."""
    try:
        return sign(expr)
    except UndecidedSignError:
        return None


def is_zero(expr: object) -> bool:
    """True iff ``expr`` is exactly 0 (a proof either way, or :class:`UndecidedSignError`)."""
    return sign(expr) == 0


def proved_equal(a: object, b: object) -> bool:
    """Whether ``a == b`` is proved (False: different, or not decided).

    Parameters
    ----------
    a, b : sympy number or expression
        Exact values (free symbols allowed: then only a rewrite can prove equality).

    Returns
    -------
    bool
        True when ``a == b`` structurally, when an exact rewrite (``expand`` after
        ``powsimp``) of ``a - b`` reaches 0, or when :func:`sign` proves ``a - b == 0``.
        False otherwise, so use it only where "equal values treated as different" costs
        time, never correctness (grouping equal gaps, sharing a generator).

    Notes
    -----
    ``sympy.simplify`` is not used: its heuristics have returned 0 for non-zero numbers of
    size ``exp(-1e300)``.
    """
    if a == b:
        return True
    diff = sympy.expand(sympy.powsimp(sympy.sympify(a) - sympy.sympify(b)))
    return diff == 0 or sign_or_none(diff) == 0


def proved_rational(expr: object) -> sympy.Rational | None:
    """``expr`` as a sympy Rational when it provably is one, else None.

    Parameters
    ----------
    expr : sympy number or expression
        An exact value; one with free symbols gives None.

    Returns
    -------
    sympy.Rational or None
        The rational value, or None for "not proved rational" (irrational, symbolic, or
        undecided). Never raises :class:`UndecidedSignError`.

    Notes
    -----
    ``sympy.simplify`` only proposes the candidate; :func:`sign` must then prove
    ``expr - candidate == 0`` (exactly, or by the algebraic / Lindemann-Weierstrass / log
    rules of this module). An unproved candidate is dropped: simplify's heuristics have
    returned a wrong 0 for non-zero numbers of size ``exp(-1e300)``.
    """
    e = sympy.sympify(expr)
    if e.is_Rational:
        return e
    if e.free_symbols:
        return None
    candidate = sympy.simplify(e)
    if not candidate.is_Rational:
        return None
    return candidate if sign_or_none(e - candidate) == 0 else None


def compare(a: object, b: object) -> int:
    """``sign(a - b)``: -1 if ``a < b``, 0 if equal, 1 if ``a > b`` (exact, or raises)."""
    ea, eb = _as_expr(a, "compare"), _as_expr(b, "compare")
    if ea == eb:
        return 0
    if ea is sympy.oo or eb is -sympy.oo:
        return 0 if ea == eb else 1
    if ea is -sympy.oo or eb is sympy.oo:
        return -1
    return sign(ea - eb)


# ------------------------------------------------------------------------------ symbolic
def _symbolic_sign(e: sympy.Expr) -> int:
    if e.is_zero:
        return 0
    if e.is_extended_positive:
        return 1
    if e.is_extended_negative:
        return -1
    if _rewrites_to_zero(e, simplify_ops=80):
        return 0
    raise UndecidedSignError(
        f"sign: the sign of {_short(e)} depends on {sorted(map(str, e.free_symbols))}", e
    )


# ------------------------------------------------------------------------------ numeric
def _numeric_sign(e: sympy.Expr) -> int:
    s, err = _ball_sign(e, _FIRST_PREC)
    if s is not None:
        return s
    if err is not None and e.is_extended_real is False:
        raise ValueError(f"sign: {_short(e)} is not a real number")
    start = min(max(2 * _FIRST_PREC, _FIRST_PREC + _size_bits(e)), MAX_PREC)
    # the cost model bounds the ladder: a ball at 2^20 bits of a few exponentials of size
    # 1e300 takes seconds and still contains 0 (a loss of about exp(-5e299))
    nodes = _transcendental_nodes(e)
    affordable = max(sign_prec_limit(nodes), 2 * _FIRST_PREC)
    top = min(MAX_PREC, max(1 << 15, 8 * start), affordable)
    prec = min(start, top)
    # one ball at the size of the numbers first: a difference of losses near 1e-300 is
    # decided at about 1100 bits in milliseconds, where sympy's cancel in the exact zero
    # test took 23 s (check_dp of SparseVector(1e-300, 1))
    s, err = _ball_sign(e, prec)
    if s is None:
        s = _exp_sum_sign(e)
    if s is not None:
        return s
    # the exact zero test only where its rewriting is affordable (cost.check_exact_zero_bits,
    # cost.EXACT_ZERO_EXPONENT_DIGITS: sympy evaluates exp(-1e1000) there for 48 s)
    affordable_zero = (_largest_rational_bits(e) <= EXACT_ZERO_BITS_LIMIT
                       and exponent_digits([e]) <= EXACT_ZERO_EXPONENT_DIGITS
                       and sum(1 for _ in sympy.preorder_traversal(e)) <= EXACT_ZERO_NODES)
    zero = _exact_zero(e) if affordable_zero else None
    if zero is True:
        return 0
    tried, prec = prec, 2 * prec
    while prec <= top:
        s, err = _ball_sign(e, prec)
        if s is not None:
            return s
        tried = prec
        prec *= 2
    why = "non-zero by exact algebra" if zero is False else "not proved zero"
    if not affordable_zero:
        why += (" (the exact zero test is skipped: its rewriting of huge rationals or "
                "exponents is beyond the cost model)")
    how = f"no enclosure ({err})" if err is not None else "a ball still contains 0"
    more = ""
    if top < min(MAX_PREC, max(1 << 15, 8 * start)):
        need = min(MAX_PREC, max(start, 2 * tried))
        secs = f"about {sign_ball_seconds(nodes, need):.3g} s"
        if not affordable_zero:  # both proofs past the cost model: a refusal
            raise SignTooCostly(f"deciding the sign of {_short(e, 120)} (no ball at {tried} "
                                "bits excludes 0; the exact zero test is past the cost model) "
                                f"with balls of {need} bits", secs, "compare the float64 views"
                                " (to_numpy()), or scores of smaller magnitude or fewer digits", e)
        more = f" (finer balls, {need} bits, would need {secs}: the cost model's limit)"
    raise UndecidedSignError(f"sign: cannot decide the sign of {_short(e)}: {why}; at {tried} "
                             f"bits {how}{more}", e)


#: Most distinct exponentials in a numerator or denominator :func:`_exp_sum_sign` reads.
_EXP_SUM_TERMS = 64
#: Largest expression (top-level terms, sympy operations) :func:`_exp_sum_sign` rewrites.
_EXP_SUM_ADDENDS = 4
_EXP_SUM_OPS = 160


def exp_sum_terms(p: sympy.Expr, limit: int | None = _EXP_SUM_TERMS
                  ) -> dict[sympy.Rational, sympy.Rational] | None:
    """``p = sum_a c_a exp(a)`` (rational ``c_a`` and ``a``) as ``{a: c_a}``, zero
    coefficients dropped (None: not of that form, or more than ``limit`` terms).

    Parameters
    ----------
    p : sympy.Expr
        Read as it stands where every term is ``c exp(a)``, else expanded; ``E`` is ``exp(1)``.
    limit : int or None
        Most distinct exponents read (None: no limit).

    Returns
    -------
    dict or None
        ``{a: c_a}`` with sympy rationals.

    Examples
    --------
    >>> import sympy
    >>> exp_sum_terms(3 * sympy.exp(sympy.Rational(1, 2)) + 4 + sympy.E - sympy.E)
    {0: 4, 1/2: 3}
    """
    for expand in (False, True):  # as it stands first, then expanded
        out: dict[sympy.Rational, sympy.Rational] = {}
        for term in sympy.Add.make_args(sympy.expand(p) if expand else p):
            coeff, rest = term.as_coeff_Mul()
            unit = rest == 1 or rest is sympy.E  # exp(0), exp(1)
            if not coeff.is_Rational or not (unit or isinstance(rest, sympy.exp) and rest.args[
                    0].is_Rational):
                break
            a = sympy.Integer(0 if rest == 1 else 1) if unit else rest.args[0]
            out[a] = out.get(a, sympy.Integer(0)) + coeff
            if limit is not None and len(out) > limit:
                break
        else:
            return {a: c for a, c in out.items() if c != 0}
    return None


def _scaled_sign(p: sympy.Expr) -> int | None:
    """The sign of an exponential sum ``p`` (:func:`scaled_sign` of its terms)."""
    terms = exp_sum_terms(p)
    return None if terms is None else scaled_sign(terms)


def scaled_sign(terms: dict) -> int | None:
    """The sign of ``sum_a c_a exp(a)`` from its terms ``{a: c_a}`` (rational ``a`` and
    ``c_a``, sympy or ``Fraction``), read from the sum times ``exp(-max a)``: its largest
    term becomes its coefficient, the others ``c exp(a - max a)``, so no ball has to resolve
    ``1 - (1 - exp(-1e300))``. 0 when there is no term (every coefficient cancelled
    exactly); None when balls up to 2048 bits leave it undecided.

    Parameters
    ----------
    terms : dict
        ``{a: c_a}``, exponent to coefficient, both rational.

    Returns
    -------
    int or None
        -1, 0 or 1; None when undecided (the caller goes on to an exact test).

    Examples
    --------
    >>> from fractions import Fraction
    >>> scaled_sign({Fraction(10**300): 1, Fraction(10**300 - 1): -1})
    1
    """
    if not terms:
        return 0
    top = max(terms)
    scaled = sympy.Add(*[sympy.Rational(c) * sympy.exp(sympy.Rational(a - top))
                         for a, c in terms.items()])
    for prec in (128, 512, 2048):
        s, _ = _ball_sign(scaled, prec)
        if s is not None:
            return s
    return None


def _exp_sum_sign(e: sympy.Expr) -> int | None:
    """The sign of ``e = P / Q`` with ``P``, ``Q`` sums of ``c exp(a)`` (rational ``c`` and
    ``a``), each scaled by its largest exponential (:func:`_scaled_sign`): the terms that
    cancel (``-1 + (1 - 2 exp(-N)/3) / (1 - 2 exp(-N/4)/3)``, N near 1e300, svt2 at a
    score of 1e300) cancel exactly in ``P = Q' - Q``, and the rest is a ball of modest
    precision. None: not of that form, or undecided."""
    # small expressions only: as_numer_denom multiplies the denominators out, and expand
    # of a product of many sums grows exponentially
    if len(sympy.Add.make_args(e)) > _EXP_SUM_ADDENDS or sympy.count_ops(e) > _EXP_SUM_OPS:
        return None
    num, den = e.as_numer_denom()
    sd = _scaled_sign(den)
    if not sd:
        return None
    sn = _scaled_sign(num)
    return None if sn is None else sn * sd


def _transcendental_nodes(e: sympy.Expr) -> float:
    """Cost weight of a ball of ``e``: one per exp, log, root or function node, a tenth
    per arithmetic node."""
    total = 0.0
    for node in sympy.preorder_traversal(e):
        if node.is_Atom:
            continue
        if isinstance(node, sympy.Pow) and node.exp.is_Integer:
            total += 0.1
        elif isinstance(node, (sympy.Add, sympy.Mul)):
            total += 0.1
        else:
            total += 1.0
    return total


def _ball_sign(e: sympy.Expr, prec: int) -> tuple[int | None, str | None]:
    """``(sign or None, None)`` from one ball, or ``(None, reason)`` if none encloses ``e``."""
    try:
        b = to_arb(e, prec)
    except ValueError as exc:
        return None, str(exc)
    if b > 0:
        return 1, None
    if b < 0:
        return -1, None
    if b.is_exact() and b.is_zero():
        return 0, None  # a radius-0 ball at 0 is the exact value 0
    return None, None


def _size_bits(e: sympy.Expr) -> int:
    """Largest ``|log2|value||`` over the sub-expressions of ``e`` (64-bit balls), capped."""
    best = 0
    with flint_prec(64):
        for node in sympy.preorder_traversal(e):
            if node.is_Rational:
                best = max(best, abs(int(node.p)).bit_length(), int(node.q).bit_length())
                continue
            if not isinstance(node, (sympy.exp, sympy.Pow)):
                continue
            try:
                b = to_arb(node, 64)
            except ValueError:
                continue
            man, exp = b.mid().man_exp()
            if man:
                best = max(best, abs(abs(int(man)).bit_length() + int(exp)))
            if best >= MAX_PREC:
                return MAX_PREC
    return best


# ------------------------------------------------------------------------------ exact zero
def exact_zero(e: sympy.Expr) -> bool | None:
    """Exact zero test of a real closed-form number.

    Returns
    -------
    bool or None
        True: proved 0. False: proved non-zero (algebraic number with minimal polynomial
        other than ``x``, or an exp-polynomial with a non-zero coefficient, by
        Lindemann-Weierstrass). None: no proof either way.
    """
    e = sympy.sympify(e)
    if e.is_Rational:
        return e == 0
    check_exact_zero_bits("exact_zero", _largest_rational_bits(e))
    return _exact_zero(e)


def _exact_zero(e: sympy.Expr) -> bool | None:
    if e.is_Rational:
        return e == 0
    if _is_algebraic(e):
        return _algebraic_is_zero(e)
    lw = _exp_polynomial_is_zero(e)
    if lw is not None:
        return lw
    return True if _rewrites_to_zero(e) else None


def _rewrites_to_zero(e: sympy.Expr, simplify_ops: int = 200) -> bool:
    """True if exact polynomial rewriting takes ``e`` to 0; False means "not proved 0".

    Only rewritings that cannot create a false zero are used: ``expand``, ``powsimp``,
    ``logcombine`` (positive arguments only), and ``cancel`` of ``together`` (polynomial
    arithmetic that treats every transcendental atom as an independent generator: an
    identity of polynomials holds at any values of the generators). sympy's ``simplify``
    is *not* used: depending on the hash seed it returns 0 for
    ``log((1 - exp(-10**300)/2)/(1 - exp(-10**300 - 1)/2))``, which is not 0.
    ``simplify_ops`` bounds the size of the expressions given to ``cancel``.
    """
    if e == 0:
        return True
    x = sympy.expand(e)
    if x == 0:
        return True
    x = sympy.expand(sympy.powsimp(x))
    if x == 0:
        return True
    x = sympy.expand(sympy.logcombine(x))
    if x == 0:
        return True
    if simplify_ops <= 0 or sympy.count_ops(x) > simplify_ops:
        return False
    if _has_huge_rational(x):
        return False  # sympy's cancel orders its generators by their text
    try:
        return sympy.cancel(sympy.together(x)) == 0
    except OverflowError:  # flint's heuristic gcd at 2**(2**k): exponents like 2**-996
        return False


def _is_algebraic(e: sympy.Expr) -> bool:
    if e.is_Rational:
        return True
    if e.is_Add or e.is_Mul:
        return all(_is_algebraic(a) for a in e.args)
    if e.is_Pow:
        base, expo = e.args
        return expo.is_Rational and _is_algebraic(base)
    if isinstance(e, sympy.CRootOf):
        return True
    return False


def _algebraic_is_zero(e: sympy.Expr) -> bool:
    """Zero test of a real algebraic number by its minimal polynomial (exact)."""
    if e.is_Rational:
        return e == 0
    mp = sympy.minimal_polynomial(e, _T, polys=True)
    return mp.degree() == 1 and mp.nth(0) == 0


def _exp_polynomial_is_zero(e: sympy.Expr) -> bool | None:
    """Lindemann-Weierstrass zero test of ``sum_i c_i exp(a_i)`` (None if not of that form).

    Terms are grouped by exponent; exponents and coefficients must be algebraic, and two
    exponents are merged only when their difference is proved 0 (minimal polynomial).
    """
    terms = sympy.Add.make_args(sympy.expand(sympy.powsimp(sympy.expand(e))))
    groups: list[tuple[sympy.Expr, list[sympy.Expr]]] = []
    for t in terms:
        coeff, expo = [], sympy.Integer(0)
        for f in sympy.Mul.make_args(t):
            if isinstance(f, sympy.exp):
                expo += f.args[0]
            elif f is sympy.E:
                expo += 1
            elif f.is_Pow and f.args[0] is sympy.E:
                expo += f.args[1]
            elif f.is_Pow and isinstance(f.args[0], sympy.exp) and f.args[1].is_Rational:
                expo += f.args[0].args[0] * f.args[1]
            elif _is_algebraic(f):
                coeff.append(f)
            else:
                return None
        expo = sympy.expand(expo)
        if not _is_algebraic(expo):
            return None
        for g_expo, members in groups:
            if _algebraic_is_zero(sympy.expand(g_expo - expo)):
                members.append(sympy.Mul(*coeff))
                break
        else:
            groups.append((expo, [sympy.Mul(*coeff)]))
    return all(_algebraic_is_zero(sympy.expand(sympy.Add(*m))) for _, m in groups)
