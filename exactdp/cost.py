"""Cost model of the calls whose cost can explode, and the one way they refuse.

Each estimate is a formula in the sizes that drive the cost (range size n, digits dps,
degree, draws), calibrated on a 2-core x86-64 machine (``docs/benchmarks.md``). A call whose
estimate exceeds its limit raises, before any work, a ``ValueError`` that states the
estimated size and the cheaper route (:func:`refuse`), so every guarded call refuses within
milliseconds instead of running for hours, exhausting memory or ending in a traceback deep
inside numpy or sympy.
"""

from __future__ import annotations

import functools
import math

#: Most draws one ``sample`` call returns (an int64 array of 800 MB).
MAX_SAMPLE_DRAWS = 10**8
#: Most ``draws * n`` cells one ``sample`` call may touch (each is one random number, and
#: for permute-and-flip one sort key): about 10 minutes at ~50 ns per cell.
MAX_SAMPLE_CELLS = 10**10
#: Largest estimated run time (seconds) of the RNM-Gaussian ball quadrature.
GAUSSIAN_SECONDS_LIMIT = 120.0
#: Most outputs for which the exact views (sympy expressions) are built.
MAX_EXACT_N = 100_000
#: Largest ``n^2 * (degree + 1)`` of the leave-one-out ring route (coins, noise integral):
#: a few minutes of flint polynomial arithmetic.
RING_WORK_LIMIT = 2 * 10**9
#: Largest estimated size (bits) of the exact powers in a Renyi divergence.
RENYI_BITS_LIMIT = 10**8
#: Most decimal digits in the integer part of a scaled gap ``d = epsilon*(q* - q_r)/(c*Delta)``
#: for the mpmath and ball views. ``exp(-d)`` to ``dps`` relative digits needs ``d`` to
#: ``dps`` digits after its point, so the work precision is ``dps`` plus this many digits;
#: beyond it the decimal exponent of ``exp(-d)`` (about ``0.43 d``) would itself have more
#: digits than Python converts to text (4300 by default), so the value could not be printed.
MAX_GAP_DIGITS = 4000


def fmt_size(v: int | float) -> str:
    """A size for a message: ``1.23e+08``, or ``~10^5001`` beyond the float range."""
    if isinstance(v, int) and v.bit_length() > 1000:
        return f"~10^{v.bit_length() * 0.30103:.0f}"
    return f"{v:.3g}"


class TooCostly(ValueError):
    """A valid call refused because its route would be too large (time, memory, degree).

    A ``ValueError``, so callers that catch bad input still catch it; a caller that can do
    without the result (a report's optional column, say) catches this class alone. Built by
    :func:`refuse`, it keeps the parts of its message (``func``, ``what``, ``estimate``,
    ``limit``, ``cheaper``) so that a public entry point can restate it in its own name
    (:func:`as_caller`); those are None on one built from a bare message.
    """

    func: str | None = None
    what: str | None = None
    estimate: str | None = None
    limit: str | None = None
    cheaper: str | None = None


def refuse(func: str, what: str, estimate: str, limit: str, cheaper: str) -> TooCostly:
    """The refusal of a call whose estimated cost exceeds its limit.

    Returns (does not raise) the ``ValueError`` so the caller writes ``raise refuse(...)``.
    The message reads ``func: what would need estimate (limit limit); cheaper``.
    """
    err = TooCostly(f"{func}: {what} would need {estimate} (limit {limit}); {cheaper}")
    err.func, err.what, err.estimate, err.limit, err.cheaper = func, what, estimate, limit, cheaper
    return err


class as_caller:  # noqa: N801 (used as a decorator and a context manager, like contextlib's)
    """Restate a refusal raised inside a public call in the name of that call.

    A guard deep inside (``rational_form``, ``pf_arb``) names itself; the user called
    ``probabilities`` or ``evalf``. Used as a decorator or a ``with`` block, this
    re-raises a :class:`TooCostly` of another ``func`` as ``func``'s own, with ``cheaper``
    (the route that applies to *this* call) in place of the inner one when given.
    """

    def __init__(self, func: str, cheaper: str | None = None) -> None:
        self.func = func
        self.cheaper = cheaper

    def __enter__(self) -> as_caller:
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if isinstance(exc, TooCostly) and exc.func is not None and exc.func != self.func:
            # refuse() sets the five parts together: with a func, the other four are str
            raise refuse(self.func, str(exc.what), str(exc.estimate), str(exc.limit),
                         self.cheaper or str(exc.cheaper)) from exc

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with as_caller(self.func, self.cheaper):
                return fn(*args, **kwargs)

        return wrapped


#: Largest estimated run time (seconds) of any call guarded by :func:`check_seconds`.
SECONDS_LIMIT = 120.0


#: Largest estimated run time (seconds) of a multiprecision view at large n whose float64
#: view (``to_numpy()``, O(n)) answers in well under a second: the RNM-Laplace series.
VIEW_SECONDS_LIMIT = 10.0


def check_seconds(func: str, what: str, seconds: float, cheaper: str,
                  limit: float = SECONDS_LIMIT) -> None:
    """Refuse ``what`` when its estimated run time exceeds ``limit`` (default
    :data:`SECONDS_LIMIT`)."""
    if seconds > limit:
        raise refuse(func, what, f"about {fmt_size(seconds)} s", f"{limit:.0f} s", cheaper)


def analysis_seconds(count: int, n: int, top_gap: int) -> float:
    """Estimated seconds of an exact analysis of ``count`` score vectors of ``n`` outputs.

    Each vector costs one exact distribution (a product tree of degree about ``n`` times
    the gap) and its comparison with the others: ``1.5e-5 * count * n^2 *
    (1 + log2(1 + top_gap))`` with ``top_gap`` the largest integer gap (1 for irrational
    scores). Measured for ``check_dp`` on PF (2n + 2 vectors): n = 30 / 100 with all
    scores tied 0.5 / 23 s, with gaps 0..4 1.4 / 126 s.
    """
    return 1.5e-5 * count * n * n * (1.0 + math.log2(1.0 + max(top_gap, 0)))


def check_analysis(func: str, count: int, n: int, top_gap: int, at_least: bool = False
                   ) -> None:
    """Refuse an exact analysis of ``count`` vectors of ``n`` outputs above the limit
    (``at_least``: of ``count`` or more, a lower bound before the vectors exist)."""
    check_seconds(
        func, f"an exact analysis of {'at least ' if at_least else ''}{count} score vectors "
        f"of n = {n} outputs",
        analysis_seconds(count, n, top_gap),
        "analyse fewer outputs, or compare the float64 views "
        "(mechanism.distribution(q).to_numpy()) of the pair that matters",
    )


def pf_certify_seconds(conditions: int, degree: int) -> float:
    """Estimated seconds of ``certify_dp``'s exact sign analyses on (0, 1) of
    ``conditions`` polynomials of degree about ``degree`` in ``x = exp(-epsilon/N)``
    (for PF ``n * max G + sum G``): ``1.2e-5 * conditions * degree`` (measured PF on
    ``0..n-1``, ``4n(n + 1)`` conditions: n = 12 / 16 / 20 / 24 took 1.4 / 4.9 / 9.2 /
    14.3 s beyond the import, n = 40 over 150 s)."""
    return 1.2e-5 * conditions * degree


def topk_analysis_seconds(count: int, outputs: int) -> float:
    """Estimated seconds of an exact analysis of ``count`` vectors by top-k with
    ``outputs`` ordered tuples (sympy expressions per tuple): ``0.01 * count * outputs``
    (measured under load: check_dp of top-2 PF on 5 scores, 243 vectors of 20 tuples,
    44 s; top-3 on 8 scores over 60 s)."""
    return 0.01 * count * outputs


def topk_one_shot_seconds(noise: str, n: int, tuples: int) -> float:
    """Estimated seconds of the exact one-shot top-k probabilities
    (:func:`exactdp.mechanisms.topk_integral.one_shot_topk` and their sympy expressions) of
    ``tuples`` ordered tuples over ``n`` scores: each tuple integrates products over about
    n pieces of up to n terms in ``Q(x, lam)``: ``1.3e-3 * tuples * n^2`` for Laplace noise,
    ``3.5e-4 * tuples * n^2`` for exponential noise, ``5e-4 * tuples * n`` for Gumbel noise
    (one piece) (measured on the scores 0..n-1, Laplace n = 5 / 6 / 8 with k = 2: 0.6 / 1.4 /
    4.9 s, n = 6 with k = 3 / 4: 5.2 / 17.7 s, n = 8 with k = 4 115 s; exponential n = 8
    with k = 3 / 4: 5.5 / 24 s; Gumbel n = 8 with k = 4 7.3 s, n = 10 with k = 3 2.8 s)."""
    if noise == "gumbel":
        return 5e-4 * tuples * n
    return (1.3e-3 if noise == "laplace" else 3.5e-4) * tuples * n * n


#: Most ``neighbours * n`` entries a neighbour search builds (one Python number each).
MAX_NEIGHBOUR_CELLS = 5 * 10**7


def check_neighbour_cells(func: str, count: int, n: int) -> None:
    """Refuse building ``count`` neighbours of ``n`` scores beyond :data:`MAX_NEIGHBOUR_CELLS`."""
    if count * n > MAX_NEIGHBOUR_CELLS:
        raise refuse(
            func, f"the neighbour search on n = {n} scores",
            f"{count} neighbours of {n} scores ({fmt_size(count * n)} entries)",
            f"{MAX_NEIGHBOUR_CELLS:.0e} entries",
            "pass the one neighbour to check (neighbour=...), or analyse fewer outputs",
        )


def gaussian_seconds(n: int, dps: int) -> float:
    """Estimated seconds of the certified RNM-Gaussian quadrature for n items at dps digits.

    One ball integral per item, each over a product of n factors, at a cost growing like
    ``dps^2``: ``2.1e-5 * n^2 * dps^2`` (measured: n = 10 at dps 60 / 120 / 240 took
    11 / 30 / 115 s, n = 3 at dps 240 took 6 s, under load).
    """
    return 2.1e-5 * n * n * dps * dps


def gaussian_trapezoid_seconds(n: int, far: int, dps: int) -> float:
    """Estimated seconds of the RNM-Gaussian mpmath route beyond 24 items (shared-grid
    trapezoid, and the per-item ball route for the ``far`` items with gaps above 40 sigma):
    ``1.5e-2 * n^2 * max(1, dps/15)^0.75 * (1 + 5 far/n)`` (measured on the gaps 0, 1, ...,
    n - 1 under load: n = 30 / 40 at dps 15 took 13.7 / 19.7 s, n = 30 at dps 30 21.7 s;
    30 random gaps in 0..50 at dps 15 32 s)."""
    return 1.5e-2 * n * n * max(1.0, dps / 15) ** 0.75 * (1 + 5 * far / max(n, 1))


#: Largest estimated run time (seconds) of ``worst_case_error`` (a scan of float64
#: distributions, then one multiprecision distribution of n outputs).
WORST_CASE_SECONDS_LIMIT = 30.0


def worst_case_seconds(n: int, dps: int) -> float:
    """Estimated seconds of ``worst_case_error`` on n outputs at ``dps`` digits:
    ``1.3e-4 * n * max(1, dps/30)^2`` (the scan's ~160 float64 distributions and the
    mpmath evaluation at the maximizing gap; measured at dps 30, n = 1e4 / 1e5: RNM-Laplace
    3.6 / 13 s, permute-and-flip 0.25 / 2.3 s, exponential 0.17 / 2.0 s; the dps factor is
    that of :func:`pf_mp_seconds`)."""
    return 1.3e-4 * n * max(1.0, dps / 30) ** 2


def sup_privacy_loss_seconds(n: int, distinct: int) -> float:
    """Estimated seconds of ``sup_privacy_loss`` on a family of ``n`` outputs with
    ``distinct`` distinct scores: symbolic probabilities, their simplified ratios and
    limits, ``0.4 * n * distinct^2`` (measured for PF under load: the scores ``0, -1, ...,
    -1, -g - 2`` with n = 2 / 5 / 10 took 1.5 / 7.9 / 35 s, ``0, -1, -2, -3, -g - 5`` 50 s;
    EM on the tied family with n = 10 11 s)."""
    return 0.4 * n * distinct * distinct


def renyi_bits(alpha_height: int, content_bits: int) -> int:
    """Estimated bits of the exact powers ``P_r^alpha Q_r^(1 - alpha)``.

    sympy raises the rational content of each probability to the integer part of alpha
    exactly, so the size is about ``height(alpha) * sum of the contents' bits``.
    """
    return alpha_height * max(content_bits, 1)


def check_exact_n(func: str, n: int, cheaper: str | None = None) -> None:
    """Refuse exact (sympy) views of more than :data:`MAX_EXACT_N` outputs; ``cheaper`` is
    the route that applies to ``func`` (default: a distribution's numeric views)."""
    if n > MAX_EXACT_N:
        raise refuse(
            func, f"exact sympy expressions for n = {n} outputs",
            f"{n} symbolic objects (about {n * 1e-4:.3g} s or more)", f"n <= {MAX_EXACT_N}",
            cheaper or "use .to_numpy() (float64), .evalf(dps) or .evalf_balls(dps)",
        )


#: Most outputs of one mpmath or arb view (``evalf``, ``evalf_balls``): one multiprecision
#: number per output and per step, beyond which even the linear routes take minutes.
MAX_NUMERIC_N = 10**6


#: Most outputs of one arb view (``evalf_balls``): each exact gap is enclosed first
#: (about 1e-4 s per output).
MAX_BALLS_N = 10**5


def check_numeric_n(func: str, n: int, limit: int = MAX_NUMERIC_N) -> None:
    """Refuse mpmath / arb views of more than ``limit`` outputs."""
    if n > limit:
        per = 2e-5 if limit == MAX_NUMERIC_N else 1e-4
        raise refuse(
            func, f"multiprecision values of n = {n} outputs",
            f"{n} multiprecision numbers per step (about {n * per:.3g} s or more)",
            f"n <= {limit:.0e}", "use .to_numpy() (float64, O(n))"
            + ("" if limit == MAX_NUMERIC_N else " or .evalf(dps)"),
        )


def pf_mp_seconds(n: int, dps: int) -> float:
    """Estimated seconds of ``numeric.pf.pf_mp``: ``1e-4 * n * max(1, dps/20)^2`` plus the
    quadrature rule's own ``2e-3 * max(1, dps/20)^2.6`` (measured n = 1e3 at dps 20 / 200 /
    1000: 0.15 / 7.9 / 207 s; n = 1e5 at dps 20: 6 s; n = 3 at dps 300 / 1005: 2.5 / 54 s)."""
    r = max(1.0, dps / 20)
    return 1e-4 * n * r**2 + 2e-3 * r**2.6


def em_mp_seconds(n: int, dps: int) -> float:
    """Estimated seconds of the exponential mechanism's ``evalf`` (the n scaled gaps in
    mpmath, then ``numeric.pf.em_mp``): ``2e-5 * n * max(1, dps/300)`` (measured n = 1e4
    at dps 30 / 100 / 300: 0.18 / 0.17 / 0.20 s; n = 1e5 at dps 30: 2.0 s; n = 1e6: 25 s
    under load)."""
    return 2e-5 * n * max(1.0, dps / 300)


def pf_arb_seconds(groups: int, n: int, prec: int) -> float:
    """Estimated seconds of ``numeric.pf.pf_arb`` (product tree over the distinct gaps):
    ``(1.3e-6 * n^2 + 2e-6 * groups * n) * max(1, prec/270)``. The ``n^2`` term is that of
    the leaves ``(q + s p)^m`` of degree m (multiplied classically: their coefficients span
    many magnitudes), so it holds with few distinct gaps too (measured at dps 15 with 51
    distinct gaps: n = 1e3 / 3e3 / 1e4 took 1.0 / 13 / 132 s; n = groups = 1e3 at dps 20 /
    200 / 1000: 2.8 / 10 / 21 s; n = groups = 1e4 at dps 20: 285 s)."""
    return (1.3e-6 * n * n + 2e-6 * groups * n) * max(1.0, prec / 270)


def laplace_mp_seconds(groups: int, dps: int) -> float:
    """Estimated seconds of ``numeric.laplace.laplace_mp``'s series route on ``groups``
    distinct gaps: ``5e-4 * groups * max(1, dps/15)^1.5`` (measured at dps 15 on the gaps
    0, 1/2, 1, ...: 1e4 / 1e5 distinct gaps took 6.8 / 42 s; the closed form below 61
    items is cheaper)."""
    return 5e-4 * groups * max(1.0, dps / 15) ** 1.5


def laplace_balls_seconds(groups: int, n: int, digits: int) -> float:
    """Estimated seconds of the RNM-Laplace balls on irrational scores
    (``evalf_balls``, ``mechanisms.noisy_max``): the piecewise expansion
    costs ``groups^2 * n`` ball operations at about ``digits`` digits: ``2.5e-6 * groups^2
    * n * max(1, digits/40)^1.5`` (measured by laplace_mp's closed form in balls, dps 30:
    n = 50 / 100 / 150 in 0.25 / 2.4 / 9 s)."""
    return 2.5e-6 * groups * groups * n * max(1.0, digits / 40) ** 1.5


def laplace_exact_seconds(groups: int) -> float:
    """Estimated seconds of the exact RNM-Laplace closed form on ``groups`` distinct gaps:
    ``3e-5 * groups^3.5`` (measured 10 / 20 / 40 gaps: 0.1 / 1.0 / 12.7 s)."""
    return 3e-5 * groups**3.5


def laplace_polys_seconds(groups: int, n: int, degree: int) -> float:
    """Estimated seconds of :func:`exactdp.numeric.laplace.closed_form.laplace_exact_polys`
    on ``n`` integer gaps with ``groups`` distinct ones and ``degree = sum G``: each distinct
    item walks every piece with a product of up to ``n`` factors whose coefficients are
    polynomials of degree about ``degree``: ``groups^2 * n * (5e-6 + 1.7e-8 * degree)``
    (measured the gaps 0..n-1, n = 20 / 30 / 40: 0.068 / 0.31 / 1.34 s; 20 random gaps in
    0..1000 (degree 8563) 1.2 s, 10 in 0..10^4 1.2 s, 40 in 0..10 (11 distinct) 0.04 s)."""
    return groups * groups * n * (5e-6 + 1.7e-8 * degree)


def laplace_analysis_seconds(shapes: list[tuple[int, int, int]],
                             symbolic: bool = False) -> float:
    """Estimated seconds of an exact analysis (``check_dp``, ``privacy_loss``) of
    report-noisy-max with Laplace noise on score vectors given as ``(groups, n, degree)``,
    one per distinct gap multiset (:func:`laplace_polys_seconds` each), plus the sympy
    logarithm of the largest ratio, whose terms are about ``min(degree, 2^groups)``:
    ``1.3e-5 * terms^2`` (measured ``check_dp`` on the scores 0..n-1, 2n + 1 vectors,
    n = 15 / 20 / 25 / 30: 0.8 / 2.4 / 8.0 / 20 s, the logarithm 0.3 / 0.45 / 0.9 / 2.4 s).
    ``symbolic=True`` (a symbolic epsilon: ``certify_dp``'s exponential polynomials in
    epsilon) adds each vector's sympy closed form and its parsing, ``3e-5 * (n *
    terms)^1.5`` (measured one vector 0..n-1, n = 10 / 15 / 20 / 25: 0.36 / 2.0 / 7.5 /
    20 s)."""
    if not shapes:
        return 0.0
    terms = [min(d + 1, 2 ** min(g, 60)) for g, _, d in shapes]
    seconds = sum(laplace_polys_seconds(g, n, d) for g, n, d in shapes) + 1.3e-5 * max(terms)**2
    if symbolic:
        seconds += sum(3e-5 * (n * t) ** 1.5 for (_, n, _), t in zip(shapes, terms, strict=True))
    return seconds


#: Estimated seconds of one float64 RNM-Laplace view (``to_numpy()``: the bisection of
#: :func:`exactdp.numeric.laplace.float64.laplace_float`), about flat in n (measured 5 to 40
#: scores: 0.013-0.041 s).
LAPLACE_FLOAT_SECONDS = 0.04


def laplace_sympy_seconds(groups: int, n: int, degree: int) -> float:
    """Estimated seconds of the exact sympy RNM-Laplace probabilities of one score vector
    (``distribution(q).probabilities``: :func:`~exactdp.numeric.laplace.closed_form.
    laplace_exact`) and their rigorous balls (``privacy_loss_distribution``), for ``n``
    integer gaps with ``groups`` distinct ones and ``degree = sum G``: about ``terms = n *
    min(degree + 1, 2^groups)`` sympy terms, ``3e-6 * terms^1.5`` (measured the PLD of
    the scores 0..n-1 and a neighbour, two vectors, n = 15 / 20 / 25 / 30: 0.59 / 1.40 /
    3.29 / 8.74 s CPU, estimated 0.38 / 1.41 / 3.92 / 8.98 s)."""
    terms = n * min(degree + 1, 2 ** min(groups, 60))
    return 3e-6 * float(terms) ** 1.5


def composition_screen_seconds(pairs: int, k: int) -> float:
    """Estimated seconds of the float64 screen of ``pairs`` ordered pairs by their k-fold
    composed curves (``composition._float_curve``: FFT convolutions of a 2048-bin loss
    histogram, the last of about ``2048 k`` bins): ``1e-3 * pairs * k`` (measured one pair
    of 40 outputs, k = 30 / 300 / 3000: 0.019 / 0.21 / 2.8 s)."""
    return 1e-3 * pairs * max(k, 1)


def laplace_general_sums(gaps) -> tuple[int, int, int]:
    """The work units of the sympy RNM-Laplace closed form on the exact ``gaps`` (sympy
    numbers, repeats allowed): ``(groups, classes, sums)``, the distinct gaps, the distinct
    irrational parts of the sums ``sum_j c_j g_j`` over the gaps' sub-multisets (each a
    sympy ``exp`` atom of its own, no merging) and the distinct sums themselves (the
    expansion's ``exp(-t)`` terms; rational parts merge into powers of ``E``), counted by
    the rational coordinates of each gap in its atoms (``as_coefficients_dict``), no
    evaluation; each count stops at 20,000 (already past the limit from 6 groups).

    Parameters
    ----------
    gaps : iterable of sympy-compatible numbers
        The exact gaps (sympified and expanded here; repeats count as a tied group).

    Returns
    -------
    groups : int
        The number of distinct gaps.
    classes : int
        The distinct irrational parts of the sub-multisets' sums.
    sums : int
        The distinct sums of the sub-multisets, capped at 20,000.
    """
    import sympy

    counts: dict = {}
    for g in gaps:
        g = sympy.expand(sympy.sympify(g))
        counts[g] = counts.get(g, 0) + 1
    coords = [dict(g.as_coefficients_dict()) for g in counts]
    atoms = sorted({a for c in coords for a in c if a != 1}, key=sympy.default_sort_key)
    vecs = [(tuple(c.get(a, 0) for a in (sympy.Integer(1), *atoms)), n)
            for c, n in zip(coords, counts.values(), strict=True) if any(c.values())]
    sums = {tuple(0 for _ in range(len(atoms) + 1))}
    for v, n in vecs:
        sums |= {tuple(x + j * y for x, y in zip(s, v, strict=True))
                 for s in sums for j in range(1, n + 1)}
        if len(sums) > 20_000:
            break
    return len(counts), len({s[1:] for s in sums}), min(len(sums), 20_000)


def _general_work(gaps) -> float:
    n = len(gaps)
    groups, classes, sums = laplace_general_sums(gaps)
    return groups**2 * (n / groups) ** 1.5 * (classes + 0.27 * sums)


def laplace_general_seconds(gaps) -> float:
    """Estimated seconds of the sympy RNM-Laplace closed form (``laplace_exact_general``) on
    the exact ``gaps`` (not all rational; ``n`` of them): each of the ``groups`` pieces
    multiplies up to ``groups`` factors (a tied group's a power of ``n / groups`` on
    average) whose terms are ``exp(-t)`` of the sub-multisets' sums
    (:func:`laplace_general_sums`): ``1e-3 * groups^2 * (n / groups)^1.5 * (classes +
    0.27 * sums)``, an irrational class a sympy atom of its own, a rational sum merged
    (measured CPU, ``docs/benchmarks.md``: sqrt of primes, 3 / 5 / 6 / 7 groups: 0.05 /
    0.47 / 1.27 / 3.39 s (4 to 64 classes and sums); ``0, 1/3, log 2, 5/7, 1 + log 2,
    3``: 0.38 s (3 classes, 32 sums); ``sqrt(k + 1) - 1``, k < 9: 16.8 s (64, 256);
    14 gaps in 4 tied groups: 4.7 s (25, 100); all within 2.5x).

    Parameters
    ----------
    gaps : iterable of sympy-compatible numbers
        The exact gaps, ``n`` of them (not all rational; repeats form tied groups).

    Returns
    -------
    float
        The estimated CPU seconds of the closed form.
    """
    return 1e-3 * _general_work(list(gaps))


def check_gap_digits(func: str, digits: int, dps: int) -> int:
    """The extra working digits for ``exp(-d)`` when the largest scaled gap ``d`` has
    ``digits`` digits before its point: ``digits`` itself (an exponent of size 1e50 needs
    50 more digits than the answer).

    Raises
    ------
    TooCostly
        When ``digits`` exceeds :data:`MAX_GAP_DIGITS`.
    """
    if digits > MAX_GAP_DIGITS:
        raise refuse(
            func, f"{dps} digits of exp(-d) at a scaled gap d = epsilon*gap/(c*sensitivity) "
            f"of ~10^{digits}", f"{dps + digits} working digits and a probability below "
            f"10^(-10^{digits - 1})", f"gaps below 10^{MAX_GAP_DIGITS}",
            "use .probabilities (exact expressions) or a smaller epsilon",
        )
    return max(digits, 0)


#: Largest estimated run time (seconds) of the finer balls :func:`exactdp.exact.sign` tries
#: after the first one (one sign; a call deciding many signs pays it for each undecided one).
SIGN_SECONDS_LIMIT = 1.5


def sign_ball_seconds(nodes: float, prec: int) -> float:
    """Estimated seconds of one ball of an expression with ``nodes`` transcendental nodes
    (exp, log, roots) at ``prec`` bits: ``2e-9 * nodes * prec^1.55``, the dearer nodes
    (measured under load, arb exp of an irrational or of -5e299 at 2^16 / 2^18 / 2^20 bits:
    0.015-0.08 / 0.2-0.5 / 3 s, of -100000 or 1/3 four times less; one sign at 2^20 bits of
    a privacy loss at a score gap of 1e300, 9 exponentials, took 5.4 s)."""
    return 2e-9 * max(nodes, 1.0) * float(prec) ** 1.55


def sign_prec_limit(nodes: float, limit: float = SIGN_SECONDS_LIMIT) -> int:
    """The highest precision (bits) whose ball of ``nodes`` transcendental nodes stays
    within ``limit`` seconds (:func:`sign_ball_seconds`)."""
    return int((limit / (2e-9 * max(nodes, 1.0))) ** (1 / 1.55))


#: Most bits in a numerator or denominator of a rational inside a number given to the exact
#: zero test (``exact.signs.exact_zero``): sympy's ``expand`` there asks the rationals'
#: signs through mpmath floats, quadratic in their size (measured 1e5 / 4e5 digits: 0.9 /
#: 13 s), so beyond about 1.2e5 digits (about 1.3 s) the test refuses.
EXACT_ZERO_BITS_LIMIT = 400_000


#: Most decimal digits of an exponent ``d`` in ``exp(-d)`` inside a number given to the
#: exact zero test of :func:`exactdp.exact.sign` after its balls failed: sympy's rewriting
#: there evaluates ``exp(-d)`` numerically, about cubic in the digits of ``d`` (measured
#: on a privacy loss at score gaps 1e30 / 1e100 / 1e200 / 1e300 / 1e1000: 0.4 / 0.4 / 0.8 /
#: 2.5 / 48 s); beyond, the test is skipped (no proof of zero, the sign stays undecided).
EXACT_ZERO_EXPONENT_DIGITS = 100

#: Most nodes of the expression tree of a number given to that exact zero test: its sympy
#: rewriting (``expand``, ``powsimp``) grows steeply with the number's size (measured: the
#: largest numbers the tests prove zero, up to 26 nodes, 0.1 s; a ratio of RNM-Laplace
#: probabilities at a score of 1e20, 361 nodes and 66 exponentials, 10-60 s, proving
#: nothing); beyond, the test is skipped as above.
EXACT_ZERO_NODES = 200


def check_exact_zero_bits(func: str, bits: int) -> None:
    """Refuse the exact zero test of a number holding a rational of ``bits`` bits."""
    if bits > EXACT_ZERO_BITS_LIMIT:
        raise refuse(
            func, f"the exact zero test of a number holding a rational of ~10^"
            f"{bits * 0.30103:.0f}", f"about {fmt_size(9e-11 * (bits * 0.30103) ** 2)} s of "
            "sympy rewriting", f"rationals of {EXACT_ZERO_BITS_LIMIT} bits",
            "use exactdp.exact.signs.sign (rigorous balls decide a number not too close "
            "to 0) or smaller rationals",
        )


#: Most decimal digits of an exponent ``d`` in ``exp(-d)`` inside an exact sympy result
#: (a privacy loss's closed form, a Renyi sum): beyond, sympy's own numeric sign and
#: simplification steps evaluate ``exp(-d)`` with about ``d`` bits (measured: the loss of
#: PF(10^1000) on a two-score pair 4.6 s, its Renyi divergence of order 2 over 20 s;
#: 10^300: 0.2 / 2.5 s).
MAX_EXACT_EXPONENT_DIGITS = 300


#: :data:`MAX_EXACT_EXPONENT_DIGITS` for ``check_dp``, whose verdict is decided on the
#: polynomials and whose loss alone goes through sympy (measured PF on (0, -1) vs (-1, 0):
#: epsilon = 1e300 / 1e1000 / 1e4000: 0.13 / 2.4 / over 20 s; the searched (0, 1): 0.02 s
#: at 1e4000).
CHECK_DP_EXPONENT_DIGITS = 1000


def check_exact_exponent(func: str, digits: int, cheaper: str,
                         limit: int = MAX_EXACT_EXPONENT_DIGITS) -> None:
    """Refuse an exact sympy result holding ``exp(-d)`` with ``d`` of ``digits`` digits
    (more than ``limit``)."""
    if digits > limit:
        raise refuse(
            func, f"an exact closed form holding exp(-d) with d ~ 10^{digits}",
            f"sympy arithmetic on numbers of ~10^{digits} bits",
            f"exponents below 10^{limit}", cheaper)


def exponent_digits(values) -> int:
    """Decimal digits of the largest numeric exponent ``d`` of the ``exp`` atoms in the
    sympy expressions ``values`` (0 when there is none): bit lengths, no evaluation."""
    import sympy

    best = 0
    for v in values:
        if not isinstance(v, sympy.Basic):
            continue
        for a in v.atoms(sympy.exp):
            arg = a.args[0]
            for r in arg.atoms(sympy.Rational):
                size = max(abs(int(r.p)).bit_length() - int(r.q).bit_length(), 0)
                best = max(best, int(size * 0.30103))
    return best
