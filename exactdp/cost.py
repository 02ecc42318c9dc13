"""Cost model of the calls whose cost can explode, and the one way they refuse.

Each estimate is a formula in the sizes that drive the cost (range size n, digits dps,
degree, draws), calibrated on a 2-core x86-64 machine (``docs/benchmarks.md``). A call whose
estimate exceeds its limit raises, before any work, a ``ValueError`` that states the
estimated size and the cheaper route (:func:`refuse`), so every guarded call refuses within
milliseconds instead of running for hours, exhausting memory or ending in a traceback deep
inside numpy or sympy.
"""

from __future__ import annotations

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


def fmt_size(v: int | float) -> str:
    """A size for a message: ``1.23e+08``, or ``~10^5001`` beyond the float range."""
    if isinstance(v, int) and v.bit_length() > 1000:
        return f"~10^{v.bit_length() * 0.30103:.0f}"
    return f"{v:.3g}"


class TooCostly(ValueError):
    """A valid call refused because its route would be too large (time, memory, degree).

    A ``ValueError``, so callers that catch bad input still catch it; a caller that can do
    without the result (a report's optional column, say) catches this class alone.
    """


def refuse(func: str, what: str, estimate: str, limit: str, cheaper: str) -> TooCostly:
    """The refusal of a call whose estimated cost exceeds its limit.

    Returns (does not raise) the ``ValueError`` so the caller writes ``raise refuse(...)``.
    The message reads ``func: what would need estimate (limit limit); cheaper``.
    """
    return TooCostly(f"{func}: {what} would need {estimate} (limit {limit}); {cheaper}")


def gaussian_seconds(n: int, dps: int) -> float:
    """Estimated seconds of the certified RNM-Gaussian quadrature for n items at dps digits.

    One ball integral per item, each over a product of n factors, at a cost growing like
    ``dps^2``: ``2.1e-5 * n^2 * dps^2`` (measured: n = 10 at dps 60 / 120 / 240 took
    11 / 30 / 115 s, n = 3 at dps 240 took 6 s, under load).
    """
    return 2.1e-5 * n * n * dps * dps


def renyi_bits(alpha_height: int, content_bits: int) -> int:
    """Estimated bits of the exact powers ``P_r^alpha Q_r^(1 - alpha)``.

    sympy raises the rational content of each probability to the integer part of alpha
    exactly, so the size is about ``height(alpha) * sum of the contents' bits``.
    """
    return alpha_height * max(content_bits, 1)


def check_exact_n(func: str, n: int) -> None:
    """Refuse exact (sympy) views of more than :data:`MAX_EXACT_N` outputs."""
    if n > MAX_EXACT_N:
        raise refuse(
            func, f"exact sympy expressions for n = {n} outputs",
            f"{n} symbolic objects (about {n * 1e-4:.3g} s or more)", f"n <= {MAX_EXACT_N}",
            "use .to_numpy() (float64), .evalf(dps) or .evalf_balls(dps)",
        )
