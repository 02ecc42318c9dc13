"""The result of a goodness-of-fit audit (:func:`exactdp.audit.goodness_of_fit`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..result import Result


@dataclass(frozen=True)
class GoodnessOfFit(Result):
    """Result of :func:`goodness_of_fit`.

    Attributes
    ----------
    test : str
        ``"chi2"`` (Pearson) or ``"gtest"`` (likelihood ratio): the test asked for.
    algorithm : str
        The test actually run: ``test``;
        ``test + "+binomial"`` when some outputs were pooled for their small expected
        count (the pooled-cell test is then combined with an exact binomial test of those
        rare outputs, see ``p_value``); or
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
        the two tests, so the level stays <= alpha); for ``algorithm="binomial"`` the
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
        power here (``algorithm == "binomial-each"``, i.e. ``dof = 0`` after pooling, or
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

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): ``holds`` is
    ``verdict == "consistent"``; the headline ``p_value`` is a float (``value`` is None,
    ``float()`` gives it); ``certified`` is False: a statistical test is no proof.
    """

    headline = "p_value"
    repr_fields = ("verdict", "test", "n_samples", "alpha")
    certified = False
    caveat = "a statistical test at level alpha, not a proof"

    test: str
    algorithm: str
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
    def holds(self) -> bool:
        """True if the verdict is ``"consistent"`` (False for rejected and inconclusive)."""
        return self.verdict == "consistent"

    @property
    def max_deviation_outputs(self) -> tuple[int, ...]:
        """Output indices of the cell with the largest standardized deviation."""
        if self.max_deviation_cell < 0:
            return ()
        return self.cells[self.max_deviation_cell]

    def summary(self) -> str:
        """Lines: the short repr; test, samples, statistic, p-value, verdict; the counts."""
        text = (
            f"{self.algorithm}: n_samples={self.n_samples}, cells={len(self.cells)}, "
            f"statistic={self.statistic:.6g}, dof={self.dof}, p={self.p_value:.3g}, "
            f"max |z|={abs(self.max_deviation):.3g} at outputs {list(self.max_deviation_outputs)}"
            f" -> {self.verdict} at alpha={self.alpha:g}"
        )
        text += f" ({self.note})" if self.note else ""
        return "\n".join([repr(self), text, f"observed: {list(self.observed)}",
                          f"expected: {[round(e, 3) for e in self.expected]}"])


@dataclass(frozen=True)
class ValueTest:
    """One Kolmogorov-Smirnov test of :class:`ReleaseFit`: the values released at query
    ``position`` in the draws of ``pattern`` against their exact conditional CDF."""

    pattern: tuple
    position: int
    n: int
    statistic: float
    p_value: float


@dataclass(frozen=True)
class ReleaseFit(Result):
    """Result of :func:`goodness_of_fit` on a release sampler (output kind ``"release"``).

    Attributes
    ----------
    n_samples : int
        Number of draws.
    alpha : float
        Significance level of the verdict (family-wise, over every test).
    p_value : float
        The smallest Holm-Bonferroni adjusted p-value over the tests (the chi-square on the
        patterns and each Kolmogorov-Smirnov test): the verdict rejects iff it is below
        ``alpha``.
    verdict : str
        ``"rejected"`` (some test rejects after Holm's adjustment), ``"consistent"``, or the
        pattern test's verdict when no value was tested.
    patterns : GoodnessOfFit
        The test of the pattern counts against the exact pattern probabilities.
    values : tuple of ValueTest
        The Kolmogorov-Smirnov tests, one per pattern and released position observed.
    adjusted : tuple of float
        Holm's adjusted p-values, the patterns' first, then ``values`` in order.
    note : str
        Remarks (values tested on their first draws only).

    Notes
    -----
    Holm (1979): with the ``K`` p-values sorted, ``p_(1) <= ... <= p_(K)``, the adjusted
    ``p~_(j) = max_{l <= j} min(1, (K - l + 1) p_(l))``; rejecting where ``p~ < alpha``
    keeps the family-wise error at most ``alpha``.
    """

    headline = "p_value"
    repr_fields = ("verdict", "n_samples", "alpha")
    certified = False
    caveat = "statistical tests at family-wise level alpha, not a proof"

    n_samples: int
    alpha: float
    p_value: float
    verdict: str
    patterns: GoodnessOfFit
    values: tuple[ValueTest, ...]
    adjusted: tuple[float, ...]
    note: str = ""

    @property
    def holds(self) -> bool:
        """True if the verdict is ``"consistent"``."""
        return self.verdict == "consistent"
