"""Audit a sampler against an exact output distribution (chi-square or G-test).

exactdp knows the true output distribution of a selection mechanism, so it can tell any
implementation (its own samplers, diffprivlib's, OpenDP's) whether the draws it produces
are consistent with that distribution. :func:`goodness_of_fit` draws ``n_samples`` outputs,
counts them per output index, pools the cells whose expected count is too small for the
chi-square approximation, and runs Pearson's chi-square test or the G-test
(:func:`scipy.stats.power_divergence`).

Sampler protocol
----------------
``sample`` is any callable. Its signature decides how it is called (decided once, by
:func:`inspect.signature`, never by trial and error, so a ``TypeError`` raised inside a
sampler is never mistaken for a protocol mismatch):

1. it has a parameter named ``size``: one call ``sample(size=n_samples)`` must return a
   batch (a sequence / array of ``n_samples`` output indices);
2. otherwise, it has a parameter named ``n``: one call ``sample(n=n_samples)``, a batch;
3. otherwise: ``n_samples`` calls ``sample()``, each returning one output index.

In every case, if the callable also has a parameter named ``rng``, it receives
``rng=as_generator(rng)`` (the generator made from the ``rng`` argument of
:func:`goodness_of_fit`: None, a non-negative int seed, a Generator or a SeedSequence;
anything else raises ValueError), so a seed makes the audit reproducible. ``dist.sample`` of an
:class:`~exactdp.distribution.OutputDistribution` follows protocol 1.

An output index is an ``int`` / numpy integer in ``0..n-1``, or a float with an integral
value (``2.0``); anything else (``1.5``, NaN, a string, ``None``, a bool, an index out of
range) raises :class:`ValueError` naming the value.

Pooling
-------
Outputs with probability exactly 0 form no cell: if one is observed the sample is
impossible under the distribution, and the result says so (``impossible`` lists them,
``p_value`` is 0, the verdict is ``"rejected"``). Among the other outputs, every output
whose expected count ``n_samples * p_r`` is below ``min_expected`` (default 5, Cochran's
rule) goes into one pooled cell; if that pooled cell is itself below ``min_expected`` it
absorbs the smallest remaining cell until it is not (or a single cell is left). If a
single cell would be left (for example one output carries almost all the mass), the
outputs of expected count below ``min_expected`` are instead tested together by an exact
two-sided binomial test. And whenever outputs were pooled for a small expected count,
their total count and each of their counts are also tested exactly (binomial), and the
p-values are combined by Bonferroni (see ``GoodnessOfFit.p_value``): a sampler that
returns a very unlikely output too often is caught even though pooling hides it from the
chi-square test. No expected count is ever zero, so nothing is divided by zero.

Verdicts
--------
``"rejected"`` if the p-value is below ``alpha``. Otherwise ``"consistent"`` only if the
test *could* have rejected: the smallest p-value attainable with ``n_samples`` draws and
these cells (``GoodnessOfFit.min_p_value``, attained when every draw is one output) is
below ``alpha``. If it is not, or if every output is rare so that pooling leaves a single
cell (``dof = 0``; only the exact per-output binomial tests run, and they can reject), the
verdict is ``"inconclusive"``: the audit says nothing either way, increase ``n_samples``.
``GoodnessOfFit.consistent`` is True only for ``"consistent"``. The one exception: a
distribution with a single possible output is ``"consistent"`` when every draw is that
output, since the sample then equals the distribution exactly.

References
----------
K. Pearson (1900), the chi-square test of goodness of fit; W. G. Cochran, "Some methods
for strengthening the common chi-square tests", Biometrics 10 (1954) (the rule "expected
count >= 5"); scipy.stats.power_divergence (Cressie & Read 1984; ``lambda_="pearson"`` is
the chi-square test, ``"log-likelihood"`` the G-test).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.stats

from .distribution import OutputDistribution
from .rng import as_generator
from .sampler_outputs import draw, validate_outputs

__all__ = [
    "GoodnessOfFit",
    "as_generator",
    "draw",
    "goodness_of_fit",
    "pool_cells",
    "probability_vector",
    "validate_outputs",
]

_TESTS = {"chi2": "pearson", "gtest": "log-likelihood"}
_SUM_TOL = 1e-9


# ---------------------------------------------------------------------------- result


@dataclass(frozen=True)
class GoodnessOfFit:
    """Result of :func:`goodness_of_fit`.

    Attributes
    ----------
    test : str
        ``"chi2"`` (Pearson) or ``"gtest"`` (likelihood ratio): the test asked for.
    method : str
        The test actually run: ``test``; ``test + "+binomial"`` when some outputs were
        pooled for their small expected count (the pooled-cell test is then combined
        with an exact binomial test of those rare outputs, see ``p_value``); or
        ``"binomial"`` when pooling would leave a single cell (then the rare outputs are
        tested as one cell by an exact two-sided binomial test, plus an upper-tail test of
        each when there are several, Bonferroni-combined); or ``"binomial-each"`` when
        every output is rare (pooling leaves one cell, ``dof = 0``): only the upper-tail
        binomial test of each output's count, Bonferroni-combined.
    n_samples : int
        Number of draws.
    alpha : float
        Significance level of the verdict.
    p_value : float
        Upper-tail probability of ``statistic`` under chi-square with ``dof`` degrees of
        freedom (``p_value_cells``); when rare outputs exist (expected count below
        ``min_expected``), ``min(1, 2*min(p_value_cells, p_value_rare))`` (Bonferroni over
        the two tests, so the level stays <= alpha); for ``method="binomial"`` the
        binomial p-value (``p_value_rare``); for ``"binomial-each"`` the combined
        per-output p-value; 0.0 if an impossible output was observed; 1.0 for a single
        possible output.
    statistic : float
        The test statistic (``inf`` if an impossible output was observed; the count of
        the rare cell for the binomial test; for ``"binomial-each"`` the count of the
        output of smallest upper-tail p-value).
    dof : int
        Degrees of freedom: number of cells minus 1.
    verdict : str
        ``"rejected"`` if ``p_value < alpha``; else ``"inconclusive"`` if the test has no
        power here (``method == "binomial-each"``, i.e. ``dof = 0`` after pooling, or
        ``min_p_value >= alpha``: no sample of this size could be rejected); else
        ``"consistent"``. See the module docstring.
    observed, expected : tuple
        Observed counts (int) and expected counts (float) per cell, after pooling.
    cells : tuple of tuple of int
        The pooling map: ``cells[k]`` lists the output indices merged into cell ``k``.
    pooled : tuple of int
        Outputs that were pooled (their expected count was below ``min_expected``);
        empty if no pooling happened.
    counts : tuple of int
        Observed count of every output index ``0..n-1`` (before pooling).
    probabilities : tuple of float
        The probabilities the sample was tested against (float64, normalised).
    max_deviation : float
        Largest standardized deviation over the cells, signed:
        ``(O_k - E_k) / sqrt(n p_k (1 - p_k))`` (the binomial z-score of the cell).
    max_deviation_cell : int
        Index into ``cells`` of that cell (-1 if there is no cell with ``0 < p_k < 1``).
    impossible : tuple of int
        Outputs of probability 0 that were observed (non-empty means immediate rejection).
    p_value_cells : float or None
        p-value of the chi-square / G-test on the cells alone (None if not run).
    p_value_rare : float or None
        p-value of the exact tests of the rare outputs (None if there are none or the
        test was not run): the two-sided binomial test of their total count and, for each
        rare output r, the upper tail ``Pr[Bin(n_samples, p_r) >= count_r]``,
        Bonferroni-combined (``min(1, (1 + m) * min p)`` over those ``1 + m`` tests). In
        the single-cell case with one rare output, the two-sided binomial test of the
        total count only; with every output rare, the per-output tests only.
    min_p_value : float or None
        The smallest ``p_value`` any sample of ``n_samples`` draws could produce with these
        cells (None after an impossible output). Each component test is smallest when
        every draw falls in one cell / output (both statistics are convex in the counts),
        so this minimum is attained. If it is ``>= alpha`` the verdict is
        ``"inconclusive"``. None also for a single possible output (nothing to test).
    note : str
        Plain-language remarks (pooling, impossible outputs, degenerate test).
    """

    test: str
    method: str
    n_samples: int
    alpha: float
    p_value: float
    statistic: float
    dof: int
    verdict: str
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    cells: tuple[tuple[int, ...], ...]
    pooled: tuple[int, ...]
    counts: tuple[int, ...]
    probabilities: tuple[float, ...]
    max_deviation: float
    max_deviation_cell: int
    impossible: tuple[int, ...]
    p_value_cells: float | None = None
    p_value_rare: float | None = None
    note: str = ""
    min_p_value: float | None = None

    @property
    def consistent(self) -> bool:
        """True if the verdict is ``"consistent"`` (False for rejected and inconclusive)."""
        return self.verdict == "consistent"

    @property
    def max_deviation_outputs(self) -> tuple[int, ...]:
        """Output indices of the cell with the largest standardized deviation."""
        if self.max_deviation_cell < 0:
            return ()
        return self.cells[self.max_deviation_cell]

    def summary(self) -> str:
        """A one-line description: test, samples, statistic, p-value, verdict."""
        text = (
            f"{self.method}: n_samples={self.n_samples}, cells={len(self.cells)}, "
            f"statistic={self.statistic:.6g}, dof={self.dof}, p={self.p_value:.3g}, "
            f"max |z|={abs(self.max_deviation):.3g} at outputs {list(self.max_deviation_outputs)}"
            f" -> {self.verdict} at alpha={self.alpha:g}"
        )
        return text + (f" ({self.note})" if self.note else "")


# ---------------------------------------------------------------------------- inputs


def _check_n_samples(n_samples: object) -> int:
    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(
        n_samples, (numbers.Integral, np.integer)
    ):
        raise ValueError(
            f"goodness_of_fit: n_samples must be a positive int (e.g. 100_000), got {n_samples!r}"
        )
    value = int(n_samples)  # type: ignore[arg-type]
    if value < 1:
        raise ValueError(f"goodness_of_fit: n_samples must be >= 1, got {n_samples!r}")
    return value


def _check_alpha(alpha: object) -> float:
    try:
        value = float(alpha)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(alpha, bool) or not 0.0 < value < 1.0:
        raise ValueError(f"goodness_of_fit: alpha must be in (0, 1), got {alpha!r}")
    return value


def probability_vector(distribution: object) -> np.ndarray:
    """The float64 probability vector of a distribution, validated.

    Parameters
    ----------
    distribution : OutputDistribution or array-like of shape (n,)
        An :class:`~exactdp.distribution.OutputDistribution` (its ``to_numpy()`` view; if
        the numeric engine is unavailable, its exact probabilities evaluated to 30 digits
        by sympy and rounded to float64), or probabilities: finite, non-negative, summing
        to 1 within 1e-9.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        The probabilities divided by their sum (a change of at most 1e-9 relative).

    Raises
    ------
    ValueError
        Empty, not 1-D, non-numeric, NaN / infinite, negative entries, or a sum further
        than 1e-9 from 1 (the message names the position or the sum).
    """
    if isinstance(distribution, OutputDistribution):
        try:
            p = np.asarray(distribution.to_numpy(), dtype=np.float64)
        except (ImportError, NotImplementedError):
            import sympy

            p = np.array([float(sympy.N(v, 30)) for v in distribution.probabilities])
    else:
        if isinstance(distribution, (str, bytes)):
            raise ValueError(
                f"goodness_of_fit: distribution must be an OutputDistribution or a "
                f"probability vector, got {distribution!r}"
            )
        try:
            p = np.asarray(distribution, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                "goodness_of_fit: distribution must be an OutputDistribution or a "
                f"probability vector of numbers, got {distribution!r}"
            ) from exc
    if p.ndim != 1 or p.size == 0:
        raise ValueError(
            f"goodness_of_fit: distribution must be a non-empty 1-D vector, got shape {p.shape}"
        )
    bad = np.flatnonzero(~np.isfinite(p))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"goodness_of_fit: distribution[{i}] is not finite: {p[i]!r}")
    neg = np.flatnonzero(p < 0)
    if neg.size:
        i = int(neg[0])
        raise ValueError(f"goodness_of_fit: distribution[{i}] is negative: {p[i]!r}")
    total = math.fsum(p.tolist())
    if abs(total - 1.0) > _SUM_TOL:
        raise ValueError(
            f"goodness_of_fit: distribution must sum to 1 within {_SUM_TOL:g}, sums to {total!r}"
        )
    return p / total


# ---------------------------------------------------------------------------- pooling


def pool_cells(expected: Sequence[float], min_expected: float = 5.0) -> tuple[tuple[int, ...], ...]:
    """Group outputs into cells whose expected counts are all >= ``min_expected``.

    Outputs with expected count 0 are left out (they form no cell). Every output with
    ``0 < expected < min_expected`` goes into one pooled cell (placed last); while that
    cell is below ``min_expected`` and other cells remain, the smallest other cell is
    merged into it.

    Parameters
    ----------
    expected : sequence of float, shape (n,)
        Expected counts per output.
    min_expected : float, default 5
        Smallest acceptable expected count per cell (Cochran 1954).

    Returns
    -------
    tuple of tuple of int
        The cells, each a tuple of output indices (increasing); big cells first in
        output order, then the pooled cell (if any).
    """
    e = np.asarray(expected, dtype=np.float64)
    big = [i for i in range(e.size) if e[i] >= min_expected]
    small = [i for i in range(e.size) if 0 < e[i] < min_expected]
    if not small:
        return tuple((i,) for i in big)
    pooled = list(small)
    pooled_total = float(e[small].sum())
    while pooled_total < min_expected and big:
        j = min(big, key=lambda i: (e[i], i))
        big.remove(j)
        pooled.append(j)
        pooled_total += float(e[j])
    return tuple((i,) for i in big) + (tuple(sorted(pooled)),)


@dataclass(frozen=True)
class _RareTests:
    """Outcome of :func:`_rare_p_value`."""

    p_value: float  # Bonferroni-adjusted
    min_p_value: float  # smallest adjusted p-value any sample of this size could give
    k_total: int
    p_total: float
    n_tests: int
    worst: int  # the rare output of smallest upper-tail p-value (-1 if none tested)


def _rare_p_value(
    counts: np.ndarray,
    p: np.ndarray,
    rare: list[int],
    n_samples: int,
    total: bool = True,
    each: bool = True,
) -> _RareTests:
    """Exact tests of the outputs too rare for the chi-square approximation.

    Up to ``1 + len(rare)`` tests: the total count of the rare outputs (two-sided binomial;
    ``total``), and each rare output's count (upper tail ``Pr[X_r >= k_r]``,
    ``X_r ~ Bin(n, p_r)``; ``each``: a rare output can only be caught appearing too
    often). The p-value is the Bonferroni-adjusted minimum ``min(1, m * min_j p_j)`` over
    the ``m`` tests run. Its smallest attainable value is computed too: each test's p-value
    is smallest when every draw is one output (the two-sided test at ``k = 0`` or
    ``k = n``, the upper tail ``p_r**n`` at ``k_r = n``), so the minimum over the tests is
    attained by some sample.
    """
    p_total = float(p[rare].sum())
    k_total = int(counts[rare].sum())
    pvals: list[float] = []
    floors: list[float] = []
    worst = -1
    if total:
        pvals.append(float(scipy.stats.binomtest(k_total, n_samples, p_total).pvalue))
        floors.append(
            min(
                float(scipy.stats.binomtest(0, n_samples, p_total).pvalue),
                float(scipy.stats.binomtest(n_samples, n_samples, p_total).pvalue),
            )
        )
    if each:
        tails = scipy.stats.binom.sf(counts[rare] - 1, n_samples, p[rare])
        pvals.extend(tails.tolist())
        floors.extend(scipy.stats.binom.sf(n_samples - 1, n_samples, p[rare]).tolist())
        worst = int(rare[int(np.argmin(tails))])
    m = len(pvals)
    return _RareTests(
        p_value=min(1.0, m * min(pvals)),
        min_p_value=min(1.0, m * min(floors)),
        k_total=k_total,
        p_total=p_total,
        n_tests=m,
        worst=worst,
    )


def _max_statistic(cell_p: np.ndarray, n_samples: int, test: str) -> float:
    """Largest value the statistic can take: every draw in the cell of least probability.

    Both statistics are convex functions of the observed counts, so their maximum over
    the simplex ``sum O_k = n`` is at a vertex: Pearson ``n (1/p_k - 1)``, G
    ``2 n ln(1/p_k)``, largest for the smallest ``p_k``.
    """
    pk = float(cell_p.min())
    if test == "chi2":
        return n_samples * (1.0 / pk - 1.0)
    return 2.0 * n_samples * -math.log(pk)


# ---------------------------------------------------------------------------- the test


def goodness_of_fit(
    sample: Callable,
    distribution: object,
    n_samples: int,
    rng=None,
    alpha: float = 0.01,
    test: str = "chi2",
    min_expected: float = 5.0,
) -> GoodnessOfFit:
    """Test whether a sampler's draws follow an exact output distribution.

    Parameters
    ----------
    sample : callable
        The sampler under audit; see the module docstring for how it is called (batch
        through ``size=`` / ``n=``, else one output per call; ``rng=`` if it takes one).
    distribution : OutputDistribution or array-like of float, shape (n,)
        The distribution the draws should follow: an exactdp
        :class:`~exactdp.distribution.OutputDistribution` or a probability vector
        (non-negative, summing to 1 within 1e-9).
    n_samples : int
        Number of draws, >= 1.
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Validated by :func:`as_generator` (a non-negative int seed; bools rejected) and
        passed as a Generator to samplers that take an ``rng`` parameter.
    alpha : float, default 0.01
        Significance level of the verdict, in (0, 1).
    test : {"chi2", "gtest"}
        Pearson's chi-square test or the G-test (likelihood ratio).
    min_expected : float, default 5
        Cells with a smaller expected count are pooled (see :func:`pool_cells`).

    Returns
    -------
    GoodnessOfFit
        p-value, statistic, degrees of freedom, observed and expected counts per cell, the
        pooling map, the largest standardized deviation, the verdict
        (``"consistent"``, ``"rejected"`` or ``"inconclusive"``: see the module
        docstring), the smallest attainable p-value, impossible outputs.

    Raises
    ------
    ValueError
        ``n_samples`` not a positive integer; ``alpha`` outside (0, 1); unknown ``test``;
        an invalid distribution; ``sample`` not callable; a draw that is not an integer
        index in ``0..n-1`` (NaN, 1.5, a string, out of range: the value is named); a
        batch of the wrong length; an invalid ``rng`` (see :func:`as_generator`).

    Notes
    -----
    The chi-square approximation of both statistics needs the expected counts not to be
    small, hence the pooling. The p-value is computed by
    :func:`scipy.stats.power_divergence` with ``dof = cells - 1`` (no parameter is
    estimated from the data). A distribution given in float64 has relative error about
    1e-12 at worst, which shifts the statistic by far less than its sampling noise at any
    practical ``n_samples``.

    References
    ----------
    Pearson (1900); Cochran (1954); Cressie & Read (1984), J. R. Stat. Soc. B 46, 440-464
    (the power-divergence family, of which chi-square and G are members).

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.audit import goodness_of_fit
    >>> d = exactdp.PermuteAndFlip(2).distribution([3, 1, 0, 0, -2])
    >>> goodness_of_fit(d.sample, d, 20000, rng=1).verdict
    'consistent'
    """
    n_samples = _check_n_samples(n_samples)
    alpha = _check_alpha(alpha)
    if test not in _TESTS:
        raise ValueError(f"goodness_of_fit: test must be 'chi2' or 'gtest', got {test!r}")
    try:
        min_expected = float(min_expected)
    except (TypeError, ValueError):
        min_expected = math.nan
    if not min_expected > 0 or not math.isfinite(min_expected):
        raise ValueError(f"goodness_of_fit: min_expected must be > 0, got {min_expected!r}")
    p = probability_vector(distribution)
    n = p.size
    outputs = validate_outputs(draw(sample, n_samples, rng), n_samples, n)
    counts = np.bincount(outputs, minlength=n)

    impossible = tuple(int(i) for i in np.flatnonzero((p == 0) & (counts > 0)))
    n_possible = int(np.count_nonzero(p > 0))
    expected_all = n_samples * p
    cells = pool_cells(expected_all, min_expected)
    method = test
    p_cells: float | None = None
    p_rare: float | None = None
    min_p: float | None = None
    powerless = False
    rare = [i for i in range(n) if 0 < expected_all[i] < min_expected]
    common = [i for i in range(n) if expected_all[i] >= min_expected]
    if len(cells) == 1 and rare and common:
        # too few cells for chi-square: test the rare outputs as one binomial cell
        cells = (tuple(common), tuple(rare))
        method = "binomial"
    observed = tuple(int(counts[list(c)].sum()) for c in cells)
    expected = tuple(float(expected_all[list(c)].sum()) for c in cells)
    cell_p = np.array([float(p[list(c)].sum()) for c in cells])
    pooled = tuple(sorted(i for c in cells if len(c) > 1 for i in c))

    notes = []
    if rare and method != "binomial" and len(cells) > 1:
        absorbed = sorted(set(pooled) - set(rare))
        text = f"outputs {rare} (expected count < {min_expected:g} each) pooled into one cell"
        if absorbed:
            text += f", together with outputs {absorbed} to reach {min_expected:g}"
        notes.append(text)
    zero_p = np.flatnonzero(p == 0)
    if zero_p.size and not impossible:
        notes.append(f"{zero_p.size} output(s) of probability 0 form no cell")

    # standardized deviations: binomial z-score of each cell
    z = np.zeros(len(cells))
    # 1 - p_k as the sum of the other cells (prefix + suffix sums: no cancellation)
    before = np.concatenate(([0.0], np.cumsum(cell_p)[:-1]))
    after = np.concatenate((np.cumsum(cell_p[::-1])[::-1][1:], [0.0]))
    var = n_samples * cell_p * (before + after)
    ok = var > 0
    z[ok] = (np.array(observed)[ok] - np.array(expected)[ok]) / np.sqrt(var[ok])
    if ok.any():
        absz = np.where(ok, np.abs(z), -1.0)
        # ties (two cells always tie) go to the cell of smallest probability
        near = np.flatnonzero(absz >= absz.max() * (1 - 1e-9))
        k = int(near[np.argmin(cell_p[near])])
        max_dev, max_cell = float(z[k]), k
    else:
        max_dev, max_cell = 0.0, -1

    if impossible:
        notes.append(
            f"outputs {list(impossible)} have probability 0 but were observed "
            f"({[int(counts[i]) for i in impossible]} times): the sample is impossible under "
            "the distribution, rejected with p_value 0"
        )
        statistic, p_value, dof = math.inf, 0.0, max(len(cells) - 1, 0)
    elif method == "binomial":
        rt = _rare_p_value(counts, p, rare, n_samples, total=True, each=len(rare) > 1)
        statistic, p_value, dof = float(observed[1]), rt.p_value, 1
        p_rare, min_p = p_value, rt.min_p_value
        text = (
            f"too few draws for a {test} test (one cell would hold every output); exact "
            f"two-sided binomial test of the rare outputs {rare} (total probability "
            f"{cell_p[1]:.3g}, observed {observed[1]} times)"
        )
        if rt.n_tests > 1:
            text += f" and upper-tail test of each, Bonferroni over {rt.n_tests} tests,"
        notes.append(text + " instead")
    elif n_possible == 1:
        # every draw is the one possible output: the sample *is* the distribution
        statistic, p_value, dof = 0.0, 1.0, 0
        notes.append(
            "a single possible output, and every draw was that output: the sample matches "
            "the distribution exactly (only impossible outputs can be detected; none was)"
        )
    elif len(cells) < 2:
        # every output is rare: no chi-square cell test exists (dof = 0)
        powerless = True
        rt = _rare_p_value(counts, p, rare, n_samples, total=False, each=True)
        method = "binomial-each"
        statistic, p_value, dof = float(counts[rt.worst]), rt.p_value, 0
        p_rare, min_p = p_value, rt.min_p_value
        notes.append(
            f"no {test} test is possible: every output has expected count below "
            f"min_expected = {min_expected:g}, so pooling leaves one cell (dof = 0); only "
            f"the exact upper-tail binomial test of each output's count was run (Bonferroni "
            f"over {rt.n_tests} tests; output {rt.worst} observed {counts[rt.worst]} times, "
            f"expected {expected_all[rt.worst]:.3g}): it can catch an output returned too "
            "often but cannot confirm the distribution; increase n_samples"
        )
    else:
        res = scipy.stats.power_divergence(
            np.array(observed, dtype=np.float64),
            np.array(expected, dtype=np.float64),
            lambda_=_TESTS[test],
        )
        statistic, p_value, dof = float(res.statistic), float(res.pvalue), len(cells) - 1
        p_cells = p_value
        min_p = float(scipy.stats.chi2.sf(_max_statistic(cell_p, n_samples, test), dof))
        if rare:
            # pooling hides which outputs filled the pooled cell: test the rare outputs
            # exactly and combine with the cell test (Bonferroni)
            rt = _rare_p_value(counts, p, rare, n_samples)
            p_rare = rt.p_value
            p_value = min(1.0, 2.0 * min(p_cells, p_rare))
            min_p = min(1.0, 2.0 * min(min_p, rt.min_p_value))
            method = f"{test}+binomial"
            notes.append(
                f"p_value = min(1, 2*min(p_{test} = {p_cells:.3g}, p_rare = {p_rare:.3g})); "
                f"p_rare: exact binomial tests of the rare outputs {rare} (total probability "
                f"{rt.p_total:.3g}, observed {rt.k_total} times; and each one alone), "
                "Bonferroni-combined"
            )

    if p_value < alpha:
        verdict = "rejected"
    elif powerless or (min_p is not None and min_p >= alpha):
        verdict = "inconclusive"
        if not powerless:
            notes.append(
                f"the test cannot reject at alpha = {alpha:g} with n_samples = {n_samples}: "
                f"the smallest attainable p-value is {min_p:.3g}; inconclusive, not "
                "consistent: increase n_samples"
            )
    else:
        verdict = "consistent"

    return GoodnessOfFit(
        test=test,
        method=method,
        n_samples=n_samples,
        alpha=alpha,
        p_value=p_value,
        statistic=statistic,
        dof=dof,
        verdict=verdict,
        min_p_value=min_p,
        p_value_cells=p_cells,
        p_value_rare=p_rare,
        observed=observed,
        expected=expected,
        cells=cells,
        pooled=pooled,
        counts=tuple(int(c) for c in counts),
        probabilities=tuple(float(v) for v in p),
        max_deviation=max_dev,
        max_deviation_cell=max_cell,
        impossible=impossible,
        note="; ".join(notes),
    )
