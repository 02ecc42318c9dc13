"""Certified PF probabilities: ``pf_arb`` (positive integral form in arb balls, product tree)."""

from __future__ import annotations

from collections.abc import Sequence

import flint

from ..._validate import argument_error, check_int
from ...cost import check_seconds, pf_arb_seconds
from ...exact.arb import flint_prec
from .inputs import exact_groups, exp_neg, is_plain_decimal, sequence_length


def _integral01(poly: flint.arb_poly) -> flint.arb:
    """``int_0^1 poly(s) ds`` (sum of c_k/(k+1))."""
    return poly.integral()(flint.arb(1))


def pf_arb(d: Sequence, prec: int = 128, counts: Sequence[int] | None = None
           ) -> list[flint.arb]:
    """Certified enclosures of the permute-and-flip probabilities (python-flint arb balls).

    Method: with ``s = 1 - t`` the integrand is
    ``prod_{s' != r} (q_{s'} + s p_{s'})``, ``q = 1 - p = -expm1(-d) >= 0``: a polynomial in
    ``s`` with non-negative coefficients (the Poisson-binomial generating function, docs/formulas.md
    section 2), so ``int_0^1`` is the positive sum ``sum_k c_k/(k+1)`` and ball arithmetic
    loses only ``O(log n)`` bits (no cancellation). The leave-one-out products over the
    groups of equal gaps, ``(q_g + s p_g)^{m_g}``, come from a product tree (down-sweep), so
    the cost is ``O(G n log n)`` coefficient operations for ``G`` distinct gaps: intended for
    ``n`` up to a few thousand. Every operation is rigorous (arb), so each returned ball
    contains the exact probability; the working precision is raised until each ball's
    relative radius is below ``2^-prec`` (or the input balls limit it).

    Parameters
    ----------
    d : sequence, length n
        Scaled gaps as arb, mpf, int, Fraction, float (exact binary value) or str
        (``"1/3"``, ``"0.1"`` meaning 1/10, ``"inf"``); >= 0 with at least one exact 0.
    prec : int
        Target relative accuracy in bits (default 128).
    counts : sequence of int, optional
        ``counts[k]`` outputs share the gap ``d[k]`` (default one each); the result then
        holds one probability per entry of ``d`` (that of each of its outputs).

    Returns
    -------
    list of flint.arb
        One ball per output, input order; ``.rad()`` is the certified error bound.

    Raises
    ------
    ValueError
        Bad gaps or ``prec`` not an integer >= 2.

    References
    ----------
    McKenna & Sheldon (2020), Prop. 1; Johansson (2017) (arb).
    """
    prec = check_int("pf_arb", "prec", prec, 2)
    sequence_length(d, "pf_arb")
    raw = list(d)
    mult = [1] * len(raw) if counts is None else [
        check_int("pf_arb", f"counts[{k}]", c, 1) for k, c in enumerate(counts)]
    if len(mult) != len(raw):
        raise argument_error("pf_arb", "len(counts)", f"{len(raw)} (one per gap)", len(mult))
    n = sum(mult)
    work = prec + 2 * max(n, 1).bit_length() + 30
    inputs_exact = all(not isinstance(v, (flint.arb, str)) or _exactish(v) for v in raw)
    for _ in range(6):
        with flint_prec(work):
            groups, index, _ = exact_groups(raw, "pf_arb")
            if counts is not None:
                for g in groups:
                    g[1] = 0
                for g, m in zip(index, mult, strict=True):
                    groups[g][1] += m
            check_seconds(
                "pf_arb", f"permute-and-flip balls for n = {n} ({len(groups)} distinct gaps) "
                f"at {prec} bits", pf_arb_seconds(len(groups), n, prec),
                "use .evalf(dps) (mpmath, cost linear in n) or .to_numpy() (float64)")
            probs = _pf_tree_arb(groups)
        accurate = all(
            x.is_zero() or x.rel_accuracy_bits() >= prec for x in probs
        )
        if accurate or not inputs_exact and work > 4 * prec + 200:
            break
        work *= 2
    return [probs[g] for g in index]


def _exactish(v: object) -> bool:
    if isinstance(v, flint.arb):
        return bool(v.is_exact())
    return is_plain_decimal(v) if isinstance(v, str) else True


def _pf_tree_arb(groups: list) -> list[flint.arb]:
    zero, one = flint.arb(0), flint.arb(1)
    lin = []
    for v, _ in groups:
        if v is None:
            lin.append((zero, one))
        else:
            lin.append((exp_neg(v), -((-v).expm1())))
    leaves = [flint.arb_poly([q, p]) ** m for (p, q), (_, m) in zip(lin, groups, strict=True)]
    memo: dict = {}

    def prod(lo: int, hi: int) -> flint.arb_poly:
        key = (lo, hi)
        if key not in memo:
            if hi - lo == 1:
                memo[key] = leaves[lo]
            else:
                mid = (lo + hi) // 2
                memo[key] = prod(lo, mid) * prod(mid, hi)
        return memo[key]

    out: list = [None] * len(groups)

    def down(lo: int, hi: int, outside: flint.arb_poly) -> None:
        if hi - lo == 1:
            p, q = lin[lo]
            m = groups[lo][1]
            rest = outside * flint.arb_poly([q, p]) ** (m - 1) if m > 1 else outside
            out[lo] = p * _integral01(rest)
            return
        mid = (lo + hi) // 2
        down(lo, mid, outside * prod(mid, hi))
        down(mid, hi, outside * prod(lo, mid))

    down(0, len(groups), flint.arb_poly([one]))
    return out
