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
range) raises :class:`ValueError` naming the value. A distribution of output kind
``"sequence"`` (a program's tuples, the sparse vector's answers) also takes its outputs
themselves, as its ``sample`` returns them (an object array, or a list holding a value
that is not an int): they are counted at their positions in ``outputs``
(``d.sample_index`` gives the positions directly).

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
``GoodnessOfFit.holds`` is True only for ``"consistent"``. The one exception: a
distribution with a single possible output is ``"consistent"`` when every draw is that
output, since the sample then equals the distribution exactly.

References
----------
K. Pearson (1900), the chi-square test of goodness of fit; W. G. Cochran, "Some methods
for strengthening the common chi-square tests", Biometrics 10 (1954) (the rule "expected
count >= 5"); scipy.stats.power_divergence (Cressie & Read 1984; ``lambda_="pearson"`` is
the chi-square test, ``"log-likelihood"`` the G-test).

A release sampler (output kind ``"release"``: report-noisy-max returning the value, the
sparse vector variants releasing noisy answers) is audited against its release
distribution by :mod:`.release_fit`: the test above on the answer patterns and a
Kolmogorov-Smirnov test of each released value against its exact conditional CDF given
the pattern, combined by Holm-Bonferroni into one verdict (:class:`ReleaseFit`).

Modules: :mod:`.fit` (:func:`goodness_of_fit`), :mod:`.result` (:class:`GoodnessOfFit`),
:mod:`.inputs` (argument checks, :func:`probability_vector`), :mod:`.pooling` (the cells,
:func:`pool_cells`, standardized deviations), :mod:`.exact_tests` (the exact binomial tests of
rare outputs and the smallest attainable p-value); the sampler protocol itself is
:mod:`.sampler_outputs` (``draw``, ``validate_outputs``). Beside the audit:
:mod:`.peers` (diffprivlib's and OpenDP's samplers paired with exactdp's mechanisms, the
optional extra ``peers``), :mod:`.sweeps` (exhaustive sweeps over score vectors, locally
or on Dask) and :mod:`.verification` (:func:`verification_suite`: the DP-testing tools'
suite, every program of the library exactly; its search in :mod:`.program_suite`, the
every-epsilon column in :mod:`.every_epsilon`, pairs in :mod:`.suite`, data in
:mod:`.suite_specs` and :mod:`.suite_tools`).
"""

from .fit import goodness_of_fit
from .inputs import probability_vector
from .peers import (
    PeerAdapter,
    diffprivlib_exponential,
    diffprivlib_permute_and_flip,
    opendp_noisy_max,
    opendp_noisy_top_k,
    peer_versions,
)
from .pooling import pool_cells
from .result import GoodnessOfFit, ReleaseFit
from .sampler_outputs import draw, validate_outputs
from .suite import PairLoss, loss_growth
from .suite_specs import AlgorithmSpec, Published
from .sweeps import SweepResult, count_score_vectors, score_vectors, sweep
from .verification import SuiteRow, VerificationSuite, verification_suite

__all__ = [
    "AlgorithmSpec",
    "GoodnessOfFit",
    "PairLoss",
    "PeerAdapter",
    "Published",
    "ReleaseFit",
    "SuiteRow",
    "SweepResult",
    "VerificationSuite",
    "count_score_vectors",
    "diffprivlib_exponential",
    "diffprivlib_permute_and_flip",
    "draw",
    "goodness_of_fit",
    "loss_growth",
    "opendp_noisy_max",
    "opendp_noisy_top_k",
    "peer_versions",
    "pool_cells",
    "probability_vector",
    "score_vectors",
    "sweep",
    "validate_outputs",
    "verification_suite",
]
