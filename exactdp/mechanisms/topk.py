"""Top-k selection: the exact distribution over ordered k-tuples of distinct outputs.

``TopK(mechanism, k)`` returns the k best outputs in order.

- Peeling (``ExponentialMechanism``, ``PermuteAndFlip`` and any other exactdp mechanism
  except report-noisy-max): run the mechanism on the remaining outputs, remove the winner,
  repeat k times. ``Pr[(r_1..r_k)] = prod_j Pr[M(q restricted to R minus {r_1..r_{j-1}})
  = r_j]``; for EM this is ``prod_j w_{r_j} / sum_{s not yet chosen} w_s`` (docs/formulas.md
  section 9).
- One-shot (``ReportNoisyMax``): add the noise once and report the indices of the k largest
  noisy scores in order. Exact by the iterated integral of
  :mod:`exactdp.mechanisms.topk_integral` (exponential, Gumbel and Laplace noise).

Every view lists the tuples in ``itertools.permutations(range(n), k)`` order
(``.outputs``).

References
----------
D. Durfee and R. Rogers, "Practical differentially private top-k selection with
pay-what-you-get composition", NeurIPS 2019 (peeling EM = one-shot Gumbel top-k);
OpenDP ``make_noisy_top_k`` (peeling permute-and-flip / exponential mechanism);
McKenna & Sheldon (2020) (permute-and-flip).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import permutations
from typing import ClassVar

import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_dps, check_instance, check_int, choices_text
from ..answer import notebook_latex, shipped_html, shipped_repr
from ..cost import check_seconds, fmt_size, refuse, topk_analysis_seconds, topk_one_shot_seconds
from ..distribution import DiscreteDistribution
from ..numbers import exact_epsilon_or_limit
from ..printing import latex_array
from ..progress import progress_bar
from ..rational_form import RationalForm
from ..rng import as_generator
from ..scores import ScoreVector, as_scores
from ._sampling import NoiseDraw
from .base import Mechanism, X
from .exponential import ExponentialMechanism
from .gaussian_noisy_max import GaussianNoisyMax
from .noisy_max import ReportNoisyMax
from .parameters import parameter
from .registry import register
from .topk_integral import one_shot_topk

#: Largest number of ordered k-tuples ``n!/(n-k)!`` a TopK distribution enumerates.
MAX_TUPLES = 100_000

_ONE_SHOT_NOISES = ("exponential", "gumbel", "laplace")


def _sub_scores(sv: ScoreVector, keep: tuple[int, ...]) -> ScoreVector:
    """The scores of the outputs ``keep`` (same kind: ints stay ints, floats stay floats)."""
    if sv.kind == "float":
        return as_scores(np.asarray(sv.raw)[list(keep)], sv.name)
    return as_scores([sv.raw[i] for i in keep], sv.name)


def _inner(func: str, name: str, value: object) -> Mechanism:
    check_instance(func, name, value, Mechanism, "an exactdp Mechanism")
    if isinstance(value, TopK):
        raise argument_error(func, name, "a selection mechanism (not a TopK)", value)
    return value  # type: ignore[return-value]


def _k(func: str, name: str, value: object) -> int:
    return check_int(func, name, value, 1)


#: The cheaper route of a refused one-shot top-k: its exact views all go through the exact
#: probabilities, the sampler does not.
_SAMPLE_ROUTE = "estimate the probabilities by sampling (.distribution(q).sample(size))"


@register("top-k", label="Top-k",
          example={"mechanism": ExponentialMechanism(1), "k": 2})
@dataclass(frozen=True)
class TopK(Mechanism):
    """The top-k version of a selection mechanism: ordered k-tuples of distinct outputs.

    Parameters
    ----------
    mechanism : Mechanism
        ``ReportNoisyMax`` with exponential, Gumbel or Laplace noise gives one-shot top-k
        (noise added once, the k largest reported in order); every other exactdp mechanism
        (``ExponentialMechanism``, ``PermuteAndFlip``, ...) is peeled (run k times on the
        remaining outputs).
    k : int
        Number of outputs reported, ``1 <= k <= n``.

    Raises
    ------
    ValueError
        ``k`` not a positive integer; not an exactdp mechanism; report-noisy-max with
        Gaussian noise (no exact distribution).

    Examples
    --------
    >>> from exactdp import TopK, ExponentialMechanism
    >>> d = TopK(ExponentialMechanism("2*log(2)"), 2).distribution([0, -1, -2])
    >>> d.outputs[:2], d.probabilities[:2]
    (((0, 1), (0, 2)), (8/21, 4/21))
    """

    output_kind: ClassVar[str] = "top-k"
    mechanism: Mechanism = parameter(_inner, "an exactdp selection Mechanism", exact=False)
    k: int = parameter(_k, "a positive integer", exact=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        rnm = self._one_shot_mechanism
        if rnm is not None and rnm.noise not in _ONE_SHOT_NOISES:
            raise argument_error(
                "TopK", "mechanism.noise", f"{choices_text(_ONE_SHOT_NOISES)} for one-shot "
                "top-k (other noises have no exact distribution)", rnm.noise)

    @property
    def _one_shot_mechanism(self) -> ReportNoisyMax | GaussianNoisyMax | None:
        """The report-noisy-max mechanism of one-shot top-k; None when peeling."""
        m = self.mechanism
        return m if isinstance(m, (ReportNoisyMax, GaussianNoisyMax)) else None

    # -------------------------------------------------------------- what the analyzer reads
    def analysis_seconds(self, vectors: Sequence[ScoreVector]) -> float:
        """Estimated seconds of an exact analysis of ``vectors``: the comparisons of their
        ordered k-tuples (:func:`exactdp.cost.topk_analysis_seconds`) and, one-shot, each
        vector's iterated integrals (:func:`exactdp.cost.topk_one_shot_seconds`)."""
        n = vectors[0].n
        outputs = math.perm(n, self.k)
        seconds = topk_analysis_seconds(len(vectors), outputs)
        rnm = self._one_shot_mechanism
        if self._integral and rnm is not None:
            seconds += len(vectors) * topk_one_shot_seconds(rnm.noise, n, outputs)
        return seconds

    def check_cost(self, func: str, vectors: Sequence[ScoreVector]) -> None:
        """Refuse, naming ``func``, an exact analysis of ``vectors`` whose ordered k-tuples
        would take over :data:`exactdp.cost.SECONDS_LIMIT` (:meth:`analysis_seconds`).

        Raises
        ------
        TooCostly
            With the estimate and the cheaper route.
        """
        outputs = math.perm(vectors[0].n, self.k)
        check_seconds(func, f"an exact analysis of {len(vectors)} score vectors of top-{self.k} "
                      f"over n = {vectors[0].n} scores ({outputs} ordered tuples)",
                      self.analysis_seconds(vectors),
                      "analyse fewer scores or a smaller k, " + (
                          "pass the one neighbour to check (neighbour=...), "
                          if len(vectors) > 2 else "") + "or " + (
                          _SAMPLE_ROUTE if self._integral else "compare the float64 views "
                          "(mechanism.distribution(q).to_numpy()) of the pair that matters"))

    @property
    def one_shot(self) -> bool:
        """True for report-noisy-max (noise added once), False for peeling."""
        return self._one_shot_mechanism is not None

    @property
    def _integral(self) -> bool:
        """One-shot at a finite positive epsilon (at epsilon = 0 and oo, one-shot top-k is
        peeling: uniform over the tuples, and uniform over the orders of tied scores)."""
        return self.one_shot and self.mechanism.epsilon_limit is None

    @property
    def epsilon(self) -> sympy.Expr:
        """``k * epsilon`` of the mechanism: the level basic composition gives top-k (and the
        level :func:`exactdp.check_dp` checks by default)."""
        return self.k * self.mechanism.epsilon

    @property
    def selection_epsilon(self) -> sympy.Expr:
        """Epsilon of one selection (the mechanism's)."""
        return self.mechanism.epsilon

    @property
    def sensitivity(self) -> sympy.Expr:
        return self.mechanism.sensitivity

    @property
    def monotonic(self) -> bool:
        """The mechanism's ``monotonic`` flag."""
        return self.mechanism.monotonic

    @property
    def optimize(self) -> str:
        """The mechanism's ``optimize``."""
        return self.mechanism.optimize

    @property
    def capabilities(self) -> frozenset[str]:
        """The views of :class:`TopKDistribution`: exact probabilities and mpmath / float
        views where the mechanism has them, a rational form where the mechanism has one
        (one-shot Laplace: none), the sampler; no arb balls."""
        inner = self.mechanism.capabilities
        caps = {"exact", "mpmath", "float", "sample"} & (inner | {"mpmath", "float"})
        if "exact" not in inner:
            caps -= {"exact", "mpmath", "float"}
        if "rational_form" in inner:
            caps.add("rational_form")
        return frozenset(caps)

    def capabilities_on(self, sv: ScoreVector) -> frozenset[str]:
        """:attr:`capabilities` on ``sv`` (no form in x for irrational scores or at the
        epsilon limits; no numeric view for a symbolic epsilon)."""
        caps = set(self.capabilities)
        if self.mechanism.epsilon_limit is not None or not sv.is_rational:
            caps.discard("rational_form")
        eps = self.mechanism.epsilon
        if isinstance(eps, sympy.Basic) and eps.free_symbols:
            caps -= {"mpmath", "float", "sample"}
        return frozenset(caps)

    @property
    def name(self) -> str:
        rnm = self._one_shot_mechanism
        kind = "peeling" if rnm is None else "one-shot"
        return f"top-{self.k} {kind} {self.mechanism.name}"  # RNM's name says its noise

    def with_epsilon(self, epsilon: object) -> TopK:
        """The same top-k at total epsilon ``epsilon`` (each selection at ``epsilon / k``)."""
        value = exact_epsilon_or_limit(epsilon)
        return TopK(self.mechanism.with_epsilon(value / self.k), self.k)

    def distribution(self, scores: object) -> TopKDistribution:
        """The exact distribution over ordered k-tuples on ``scores`` (lazy views).

        Raises
        ------
        ValueError
            Invalid scores; ``k > n``.
        exactdp.TooCostly
            More than :data:`MAX_TUPLES` tuples (a ``ValueError``), naming the cheaper route.
        """
        sv = as_scores(scores, func="TopK.distribution")
        if self.k > sv.n:
            raise argument_error("TopK", "k", f"at most the number of outputs n = {sv.n}", self.k)
        count = math.perm(sv.n, self.k)
        if count > MAX_TUPLES:
            raise refuse(
                "TopK.distribution", f"n = {sv.n}, k = {self.k}",
                f"{fmt_size(count)} ordered tuples",
                f"MAX_TUPLES = {MAX_TUPLES}",
                "use a smaller k or n (n!/(n-k)! at most MAX_TUPLES), or draw top-k by peeling: "
                "k draws of mechanism.distribution(remaining scores).sample()")
        return TopKDistribution(self, sv)


@dataclass(frozen=True, eq=False)
class TopKDistribution(DiscreteDistribution):
    """Distribution of ``TopK(M, k)`` on one score vector over ordered k-tuples.

    Build it with ``TopK(mechanism, k).distribution(scores)``. Views (all in the order of
    ``outputs``): ``probabilities`` (exact sympy), ``rational_form()`` (functions of
    ``x = exp(-epsilon/(c*Delta*L))`` where they exist), ``evalf(dps)`` (mpmath),
    ``to_numpy()`` (float64), ``sample(size, rng)`` (the algorithm itself).
    """

    mechanism: TopK
    scores: ScoreVector

    # ------------------------------------------------------------------ sizes and labels
    @property
    def n(self) -> int:
        """Size of the range."""
        return self.scores.n

    @property
    def k(self) -> int:
        return self.mechanism.k

    @cached_property
    def outputs(self) -> tuple[tuple[int, ...], ...]:
        """The ordered k-tuples, in ``itertools.permutations(range(n), k)`` order."""
        return tuple(permutations(range(self.n), self.k))

    @property
    def capabilities(self) -> frozenset[str]:
        """The views this distribution has (see :attr:`TopK.capabilities`)."""
        return self.mechanism.capabilities_on(self.scores)

    @cached_property
    def _position(self) -> dict:
        return {t: i for i, t in enumerate(self.outputs)}

    def __len__(self) -> int:
        return len(self.outputs)

    def index(self, output) -> int:
        """Position of an ordered k-tuple in :attr:`outputs`.

        Raises
        ------
        ValueError
            If ``output`` is not an ordered k-tuple of distinct indices in ``0..n-1``.
        """
        try:
            key = tuple(int(v) for v in output)
        except (TypeError, ValueError):
            key = None
        if key not in self._position:
            raise argument_error("TopK", "output", f"an ordered {self.k}-tuple of distinct "
                                 f"output indices in 0..{self.n - 1}", output)
        return self._position[key]

    def pmf(self, output) -> sympy.Expr:
        """Exact probability of one ordered k-tuple."""
        return self.probabilities[self.index(output)]

    @cached_property
    def _oriented(self) -> ScoreVector:
        """The scores the mechanism maximizes (``-q`` under ``optimize="min"``)."""
        return self.mechanism.mechanism.oriented(self.scores)

    # ------------------------------------------------------------------ peeling helpers
    def _peel_steps(self):
        """For each tuple, its k steps ``(chosen-before, remaining, position of r_j)``."""
        for t in self.outputs:
            steps = []
            for j, r in enumerate(t):
                rest = tuple(i for i in range(self.n) if i not in t[:j])
                steps.append((frozenset(t[:j]), rest, rest.index(r)))
            yield steps

    def _sub_distribution(self, rest: tuple[int, ...]):
        """The mechanism on the outputs ``rest`` (its base measure restricted to them)."""
        inner = self.mechanism.mechanism
        if isinstance(inner, ExponentialMechanism) and inner.base_measure is not None:
            measure = inner.base_measure
            if all(measure[i] == 0 for i in rest):
                raise ValueError(
                    f"TopK: the base measure is 0 on every output left after "
                    f"{self.n - len(rest)} selections; top-{self.k} is undefined"
                )
            inner = replace(inner, base_measure=tuple(measure[i] for i in rest))
        return inner.distribution(_sub_scores(self.scores, rest))

    def _peel(self, view):
        """``prod_j view(sub-distribution)[position]`` over the tuples (cached by set)."""
        cache: dict[frozenset, object] = {}
        out = []
        for steps in self._peel_steps():
            factors = []
            for chosen, rest, pos in steps:
                if chosen not in cache:
                    cache[chosen] = view(self._sub_distribution(rest), rest)
                factors.append(cache[chosen][pos])
            out.append(factors)
        return out

    # ------------------------------------------------------------------ exact views
    def _one_shot_seconds(self) -> float:
        """Estimated seconds of the exact one-shot probabilities
        (:func:`exactdp.cost.topk_one_shot_seconds`)."""
        rnm = self.mechanism._one_shot_mechanism
        assert rnm is not None  # called on the one-shot route only
        return topk_one_shot_seconds(rnm.noise, self.n, len(self.outputs))

    def _check_one_shot(self, func: str) -> None:
        """Refuse, naming ``func``, exact one-shot probabilities estimated beyond
        :data:`exactdp.cost.SECONDS_LIMIT`; nothing on the other routes or once they are
        built."""
        if not self.mechanism._integral or "_one_shot_field" in self.__dict__:
            return
        rnm = self.mechanism._one_shot_mechanism
        assert rnm is not None
        gumbel = (
            "; one-shot Gumbel top-k is peeling the exponential mechanism: "
            "TopK(ExponentialMechanism(...), k) with the same epsilon, sensitivity and "
            "monotonic takes well under a second" if rnm.noise == "gumbel" else "")
        check_seconds(func, f"the exact one-shot top-{self.k} probabilities of {rnm.noise} "
                      f"noise on n = {self.n} scores ({len(self.outputs)} ordered tuples)",
                      self._one_shot_seconds(),
                      f"use a smaller k or fewer scores, or {_SAMPLE_ROUTE}{gumbel}")

    @cached_property
    def _one_shot_field(self) -> list:
        if not self._oriented.is_rational:
            raise ValueError("TopK: the exact one-shot route needs rational scores")
        L, G = self._oriented.integer_gaps()
        rnm = self.mechanism._one_shot_mechanism
        assert rnm is not None  # called on the one-shot route only
        self._check_one_shot("TopK.distribution")
        with progress_bar(len(self.outputs), "TopK", seconds=self._one_shot_seconds(),
                          unit="tuple") as bar:
            return one_shot_topk(rnm.noise, G, self.outputs, step=bar.update)

    @cached_property
    def probabilities(self) -> tuple[sympy.Expr, ...]:
        """Exact probabilities of the ordered tuples (sympy), in ``outputs`` order."""
        self._check_one_shot("probabilities")
        if self.mechanism._integral:
            L, _ = self._oriented.integer_gaps()
            lam = self.mechanism.mechanism.rate / L
            subs = {sympy.Symbol("x"): sympy.exp(-lam), sympy.Symbol("lam"): lam}
            return tuple(
                sympy.expand(f.numer.as_expr().xreplace(subs))
                / sympy.expand(f.denom.as_expr().xreplace(subs))
                for f in self._one_shot_field
            )
        rows = self._peel(lambda d, rest: d.probabilities)
        return tuple(sympy.Mul(*f) for f in rows)

    def rational_form(self) -> RationalForm:
        """Probabilities as rational functions of ``x = exp(-epsilon/(c*Delta*L))``.

        Raises
        ------
        ValueError
            Irrational scores; one-shot Laplace noise (not rational in x); a peeled
            mechanism without a rational form.
        """
        self._check_one_shot("rational_form")
        return self._rational_form

    @cached_property
    def _rational_form(self) -> RationalForm:
        if self.mechanism.mechanism.epsilon_limit is not None:
            raise ValueError(f"TopK: no rational form in x at epsilon = {self.mechanism.epsilon}")
        L, G = self._oriented.integer_gaps()
        value = self.mechanism.mechanism.x_value(L)
        if self.mechanism._integral:
            forms = []
            for f in self._one_shot_field:
                if f.numer.degree(1) > 0 or f.denom.degree(1) > 0:  # lam = epsilon/(c Delta L)
                    raise ValueError(
                        "TopK: one-shot Laplace probabilities are not rational in "
                        "x = exp(-epsilon/(c*sensitivity*L)); use .probabilities"
                    )
                forms.append(sympy.cancel(f.numer.as_expr().xreplace({sympy.Symbol("x"): X})
                                          / f.denom.as_expr().xreplace({sympy.Symbol("x"): X})))
            return RationalForm(X, tuple(forms), value, L, G)

        def view(d, rest):
            rf = d.rational_form()
            power = L // rf.L
            return [f.xreplace({rf.x: X**power}) for f in rf.forms]

        rows = self._peel(view)
        return RationalForm(X, tuple(sympy.cancel(sympy.Mul(*f)) for f in rows), value, L, G)

    # ------------------------------------------------------------------ numeric views
    def evalf(self, dps: int = 30) -> tuple[mpmath.mpf, ...]:
        """Probabilities as mpmath numbers correct to about ``dps`` significant digits.

        Peeling multiplies the mechanism's own mpmath views (k factors at ``dps + 10``
        digits); one-shot evaluates the exact closed form with sympy at ``dps + 10``.
        """
        dps = check_dps("evalf", dps)
        self._check_one_shot("evalf")
        if self.mechanism._integral:
            self.mechanism.mechanism._float_rate()  # refuses a symbolic epsilon
            with mpmath.workdps(dps + 10):
                vals = [mpmath.mpf(sympy.N(p, dps + 10)) for p in self.probabilities]
        else:
            rows = self._peel(lambda d, rest: d.evalf(dps + 10))
            with mpmath.workdps(dps + 10):
                vals = [mpmath.fprod(f) for f in rows]
        with mpmath.workdps(dps):
            return tuple(+v for v in vals)

    def to_numpy(self) -> np.ndarray:
        """Probabilities as float64, shape ``(n!/(n-k)!,)``, in ``outputs`` order."""
        self._check_one_shot("to_numpy")
        if self.mechanism._integral:
            out = np.array([float(v) for v in self.evalf(20)])
        else:
            rows = self._peel(lambda d, rest: d.to_numpy())
            out = np.array([math.prod(float(v) for v in f) for f in rows])
        out.setflags(write=False)
        return out

    # ------------------------------------------------------------------ sampling
    def sample(self, size: int | None = None, rng=None):
        """Draw ordered k-tuples by running the algorithm (peeling, or noise once).

        Returns
        -------
        tuple of int (``size=None``) or numpy.ndarray of int64, shape (size, k)
        """
        idx = self.sample_index(1 if size is None else size, rng)
        table = np.array(self.outputs, dtype=np.int64).reshape(len(self.outputs), self.k)
        draws = table[idx]
        return tuple(int(v) for v in draws[0]) if size is None else draws

    def sample_index(self, size: int, rng=None) -> np.ndarray:
        """Draws as positions in :attr:`outputs`, shape (size,) (for goodness_of_fit)."""
        gen = as_generator(rng, "sample")
        total = check_int("sample", "size", size, 0)
        rows = self._one_shot_rows(total, gen) if self.mechanism._integral else \
            self._peel_rows(total, gen)
        weights = self.n ** np.arange(self.k - 1, -1, -1)
        codes = rows @ weights
        lookup = {sum(v * self.n ** (self.k - 1 - j) for j, v in enumerate(t)): i
                  for i, t in enumerate(self.outputs)}
        return np.array([lookup[int(c)] for c in codes], dtype=np.int64)

    def _one_shot_rows(self, size: int, gen: np.random.Generator) -> np.ndarray:
        rnm = self.mechanism._one_shot_mechanism
        assert rnm is not None  # called on the one-shot route only
        d = rnm.scaled_gaps_float(self._oriented)
        draws: dict[str, NoiseDraw] = {"exponential": gen.standard_exponential,
                                       "gumbel": gen.gumbel, "laplace": gen.laplace}
        draw = draws[rnm.noise]
        out = np.empty((size, self.k), dtype=np.int64)
        step = max(1, 2_000_000 // self.n)
        for a in range(0, size, step):
            b = min(size, a + step)
            noisy = -d + draw(size=(b - a, self.n))
            out[a:b] = np.argsort(-noisy, axis=1, kind="stable")[:, : self.k]
        return out

    def _peel_rows(self, size: int, gen: np.random.Generator) -> np.ndarray:
        out = np.empty((size, self.k), dtype=np.int64)
        for j in range(self.k):
            prefixes, inverse = np.unique(out[:, :j], axis=0, return_inverse=True)
            inverse = np.asarray(inverse).reshape(-1)
            for g, prefix in enumerate(prefixes):
                rows = np.flatnonzero(inverse == g)
                rest = tuple(i for i in range(self.n) if i not in set(prefix.tolist()))
                sub = self._sub_distribution(rest)
                picks = np.asarray(sub.sample(rows.size, gen)).reshape(-1)
                out[rows, j] = np.array(rest, dtype=np.int64)[picks]
        return out

    def __repr__(self) -> str:
        return shipped_repr(self, "TopKDistribution", self.mechanism.name,
                            f"n={self.n}, k={self.k}")

    def _latex(self, printer=None, rows: int = 40) -> str:
        """The tuples and their exact probabilities as a LaTeX array (first ``rows``)."""
        body = [[f"({', '.join(map(str, t))})", sympy.latex(p)]
                for t, p in zip(self.outputs[:rows], self.probabilities[:rows], strict=False)]
        if len(self.outputs) > rows:
            body.append(["\\vdots", f"({len(self.outputs) - rows} more)"])
        return latex_array(["(r_1, \\dots, r_k)", "\\Pr"], body)

    def _repr_html_(self) -> str:  # the notebook's table, as every distribution's
        return shipped_html(self, "TopKDistribution")

    def _repr_latex_(self) -> str:  # the full table only when cheap (exactdp.answer)
        return notebook_latex(self, "TopKDistribution", lambda d: d._latex())
