"""The output distribution of a selection mechanism on one score vector.

One object, four views computed on demand and never fed into each other silently:

- ``probabilities``: exact sympy expressions (``sum - 1`` simplifies to 0);
- ``evalf(dps)``: mpmath numbers correct to ``dps`` significant digits;
- ``to_numpy()``: float64, relative accuracy about 1e-12 or better;
- ``rational_form()``: for rational scores, functions of ``x = exp(-eps/(c*Delta*L))``;

plus ``sample`` (draws from the float probabilities by default; ``algorithm="mechanism"``
runs the mechanism's own randomized algorithm, an independent route for audits) and the
utility summaries users expect from ``scipy.stats`` (``pmf``, ``entropy``, ``expect``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

import mpmath
import numpy as np
import sympy

from ._validate import check_choice, check_dps, check_size
from .answer import notebook_latex, shipped_html, shipped_repr
from .cost import (
    MAX_BALLS_N,
    MAX_SAMPLE_CELLS,
    MAX_SAMPLE_DRAWS,
    as_caller,
    check_exact_n,
    check_numeric_n,
    refuse,
)
from .lazy_probabilities import LazyProbabilities
from .printing import distribution_latex
from .result import Result
from .result_text import supremum_parts
from .rng import as_generator
from .scores import ScoreVector
from .summaries import Summaries

if TYPE_CHECKING:
    from .rational_form import RationalForm


class SourceMechanism(Protocol):
    """What a distribution reads of its mechanism: the members of
    :class:`~exactdp.mechanisms.base.Mechanism` this layer calls, declared here so that it
    knows no mechanism class (every ``Mechanism`` has them)."""

    @property
    def name(self) -> str:
        """The mechanism's label."""

    @property
    def epsilon(self) -> Any:
        """The privacy parameter."""

    @property
    def capabilities(self) -> frozenset[str]:
        """The views the mechanism's hooks give."""

    def capabilities_on(self, sv: ScoreVector, /) -> frozenset[str]:
        """The views on these scores."""

    def evaluate(self, view: str, sv: ScoreVector, /, *args: Any) -> Any:
        """One view on ``sv`` through the mechanism's hooks."""

    def oriented(self, sv: ScoreVector, /) -> ScoreVector:
        """The scores the mechanism maximizes."""

    def balls_certified(self, sv: ScoreVector, /) -> tuple[bool, str | None]:
        """Whether the radii of the balls view are proved, and why not."""

    def with_epsilon(self, epsilon: object, /) -> Any:
        """The same mechanism at another epsilon."""


class OnScores(Protocol):
    """What every distribution names: its mechanism and the score vector it is on."""

    @property
    def mechanism(self) -> SourceMechanism:
        """The mechanism."""

    @property
    def scores(self) -> ScoreVector:
        """The score vector (query answers), shape (n,)."""

    @property
    def n(self) -> int:
        """The number of scores (the size of a selection's range)."""


class Distribution(OnScores, Protocol):
    """What the distribution of a discrete output kind on one score vector offers: the
    interface of :meth:`Mechanism.distribution <exactdp.mechanisms.base.Mechanism.distribution>`.

    :class:`OutputDistribution` (over the n inputs), ``TopKDistribution`` (ordered k-tuples)
    and ``SparseVectorDistribution`` (answer sequences) follow it; each view is in the order
    of ``outputs``. The release kinds follow :class:`ReleaseDistribution`."""

    @property
    def outputs(self) -> tuple[Any, ...]:
        """The output space: the indices ``0..n-1``, or the ordered k-tuples of top-k."""

    @property
    def capabilities(self) -> frozenset[str]:
        """The views this distribution has (``exactdp.mechanisms.CAPABILITIES``)."""

    @property
    def probabilities(self) -> Sequence[sympy.Expr]:
        """Exact probabilities (sympy), in the order of ``outputs`` (a tuple or a
        :class:`LazyProbabilities`)."""

    def pmf(self, output: Any, /) -> sympy.Expr:
        """The exact probability of one output."""

    def rational_form(self) -> RationalForm:
        """The probabilities as functions of ``x = exp(-epsilon/(c*Delta*L))``."""

    def evalf(self, dps: int = 30) -> tuple[mpmath.mpf, ...]:
        """The probabilities as mpmath numbers correct to ``dps`` digits."""

    def to_numpy(self) -> np.ndarray:
        """The probabilities as float64."""

    def sample(self, size: int | None = None, rng: Any = None) -> Any:
        """Draws of the mechanism's output."""

    def __len__(self) -> int:
        """The number of outputs."""


class ReleaseDistribution(OnScores, Protocol):
    """The distribution of a mechanism of output kind ``"release"``: outputs holding real
    numbers (report-noisy-max returning the value, the sparse vector variants releasing
    noisy answers). An output's *pattern* is its discrete part (per query ``True`` where a
    value is released, ``False`` below, ``None`` not answered; ``(True,)`` for one released
    value); the released values have a density given the pattern."""

    @property
    def capabilities(self) -> frozenset[str]:
        """The views this distribution has (``"density"``, ``"sample"``)."""

    @property
    def outputs(self) -> tuple[Any, ...]:
        """The patterns."""

    @property
    def probabilities(self) -> Sequence[sympy.Expr]:
        """Exact probabilities of the patterns, in the order of ``outputs``."""

    def pmf(self, pattern: Any, /) -> sympy.Expr:
        """The exact probability of one pattern."""

    def density(self, output: Any, /) -> Any:
        """The density of one output: exact where a closed form exists, else a ball."""

    def cdf(self, pattern: Any, i: int, v: object, /) -> Any:
        """``Pr[i-th released value <= v | pattern]``, exact: the conditional law."""

    def loss_supremum(self, neighbour: object, /) -> LossSupremum:
        """The exact ``sup_o |ln f(o) / f'(o)|`` against the neighbour, with its witness."""

    def sample(self, size: int | None = None, rng: Any = None) -> Any:
        """Draws of the mechanism's output (the algorithm itself)."""

    def __len__(self) -> int:
        """The number of patterns."""


class OutputLaw:
    """The base of every distribution class: it declares its mechanism's output kind
    (``output_kind``), which the analysis and the audit read (:func:`output_kind_of`)."""

    __slots__ = ()
    mechanism: Any

    @property
    def output_kind(self) -> str:
        """The mechanism's declared output kind (selection, top-k, sequence, release)."""
        return self.mechanism.output_kind


#: The output kinds whose distributions have finite outputs with exact probabilities.
DISCRETE_KINDS = ("selection", "top-k", "sequence")


def output_kind_of(obj: object) -> str | None:
    """The declared output kind of a distribution, or None for anything else (a plain
    sequence of probabilities): the one place that tells distributions apart."""
    return obj.output_kind if isinstance(obj, OutputLaw) else None


class DiscreteDistribution(OutputLaw):
    """The base of the :class:`Distribution` classes of the discrete output kinds: what the
    divergences and ``goodness_of_fit`` accept beside a sequence of probabilities."""

    __slots__ = ()
    if TYPE_CHECKING:
        @property
        def probabilities(self) -> Sequence[sympy.Expr]: ...
        def to_numpy(self) -> np.ndarray: ...


@dataclass(frozen=True)
class LossSupremum(Result):
    """The privacy loss of one pair for a mechanism that releases real values: the exact
    supremum over outputs ``o`` of ``|ln(f_q(o) / f_q'(o))|``, with ``f`` the density of the
    output's continuous part times the probability of its discrete part (capability
    ``"density"``; what :func:`exactdp.privacy_loss` reads for such a mechanism).

    The result protocol (:class:`exactdp.result.Result`): the headline is ``loss``
    (``value`` is it, None for an enclosed supremum, whose ``ball`` comes from
    ``interval``).

    Attributes
    ----------
    loss : sympy.Expr
        The supremum, exact (``oo`` when an event has positive probability under one input
        and probability 0 under the other).
    attained : bool
        Whether some output attains it; False when outputs only approach it (the loss of
        report-noisy-max returning the value tends to its supremum as the value grows).
    direction : int
        +1 if the density on ``q`` is the larger one at the witness, -1 if smaller, 0 if the
        supremum is 0.
    witness : str
        The output or event attaining the supremum, or the family of events approaching it,
        in words (``"the value v > 2 (probability 0 on q')"``).
    approaching : tuple of (str, sympy.Expr)
        When not attained: events and their exact losses, increasing towards ``loss``.
    interval : tuple of sympy.Float or None
        Set when the supremum is not a closed form (a value at an interior critical point
        of the log density ratio, a root of an equation with transcendental coefficients):
        certified ``(lo, hi)`` around it (exact binary end points); ``loss`` is then the
        midpoint, a sympy Float, not an exact number.
    """

    headline = "loss"
    repr_fields = ("attained", "witness")

    loss: sympy.Expr
    attained: bool
    direction: int
    witness: str
    approaching: tuple[tuple[str, sympy.Expr], ...] = ()
    interval: tuple[sympy.Float, sympy.Float] | None = None

    @property
    def value(self) -> sympy.Expr | None:
        """The loss as an exact sympy expression (symbolic in epsilon when epsilon is);
        None for an enclosed supremum, whose enclosure is ``ball``."""
        return None if self.interval is not None else self.loss

    def repr_parts(self) -> list[str]:
        """After the value: ``attained``, then the witness cut short (``supremum_parts``)."""
        return supremum_parts(self)


class OutputIndexError(ValueError, IndexError):
    """An output index outside ``0..n-1`` (a ValueError, and an IndexError for indexing code)."""


def _check_sample_cost(total: int, n: int, algorithm: str) -> None:
    cells = total * n if algorithm == "mechanism" else total + n
    if total > MAX_SAMPLE_DRAWS or cells > MAX_SAMPLE_CELLS:
        raise refuse(
            "sample", f"size = {total:.3g} draws over n = {n} outputs",
            f"{8 * total:.3g} bytes of output and about {cells:.3g} random numbers",
            f"{MAX_SAMPLE_DRAWS:.0e} draws and {MAX_SAMPLE_CELLS:.0e} draws*outputs per call",
            "call sample() in a loop over smaller sizes, or draw from the probabilities: "
            "rng.choice(n, size, p=dist.to_numpy()) (or rng.multinomial for counts)",
        )


_ALGORITHMS = ("pmf", "mechanism")


@dataclass(frozen=True, eq=False)
class OutputDistribution(Summaries, DiscreteDistribution):
    """Distribution of ``M(q)`` over the output indices ``0..n-1`` (input order).

    Build it with ``mechanism.distribution(scores)``.

    Examples
    --------
    >>> from exactdp import PermuteAndFlip
    >>> d = PermuteAndFlip(2).distribution([1, 0])
    >>> d.probabilities
    (1 - exp(-1)/2, exp(-1)/2)
    >>> d.to_numpy()
    array([0.81606028, 0.18393972])
    """

    mechanism: SourceMechanism
    scores: ScoreVector

    # ------------------------------------------------------------------ sizes
    @property
    def n(self) -> int:
        """Size of the range."""
        return self.scores.n

    def __len__(self) -> int:
        return self.n

    @cached_property
    def outputs(self) -> tuple[int, ...]:
        """The output space: the indices ``0..n-1`` of the scores (top-k lists tuples)."""
        return tuple(range(self.n))

    @property
    def capabilities(self) -> frozenset[str]:
        """The views this distribution has (``exactdp.mechanisms.CAPABILITIES``): the
        mechanism's, from the hooks its class overrides, narrowed to these scores."""
        return self.mechanism.capabilities_on(self.scores)

    def _view(self, view: str, *args):
        """The one place the views are computed: the mechanism's hooks through
        ``Mechanism.evaluate`` (``"exact"``, ``"rational_form"``, ``"numeric_rational_form"``,
        ``"mp"``, ``"balls"``, ``"float"``, ``"sample"``). A distribution whose scores are not
        a ScoreVector (``mechanism_from_function``) overrides this one method; validation,
        caching and the summaries stay here."""
        return self.mechanism.evaluate(view, self.scores, *args)

    # ------------------------------------------------------------------ exact view
    @cached_property
    def probabilities(self) -> tuple[sympy.Expr, ...] | LazyProbabilities:
        """Exact output probabilities as sympy expressions, in input order.

        Their sum is exactly 1 (``exactdp.exact.signs.is_zero(sum(p) - 1)``). A tuple, or
        for permute-and-flip on rational scores a :class:`LazyProbabilities` (which
        compares, hashes and prints as that tuple) building each output's expression on
        first access.

        Raises
        ------
        ValueError
            For more than :data:`exactdp.cost.MAX_EXACT_N` outputs, or when the mechanism's
            exact route would be too large (the message gives the estimate and the numeric
            views to use instead).
        """
        check_exact_n("probabilities", self.n, getattr(self.mechanism, "exact_n_route", None))
        with as_caller("probabilities"):
            probs = self._view("exact")
        return probs if isinstance(probs, LazyProbabilities) else tuple(probs)

    def pmf(self, r: int) -> sympy.Expr:
        """Exact ``Pr[M(q) = r]``.

        Raises
        ------
        OutputIndexError
            (a ValueError and an IndexError) if ``r`` is not an output index.
        """
        if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 0 <= r < self.n:
            raise OutputIndexError(
                f"pmf: output index must be an integer in [0, {self.n}), got {r!r}"
            )
        return self.probabilities[int(r)]

    def rational_form(self) -> RationalForm:
        """Probabilities as functions of ``x = exp(-epsilon/(c*sensitivity*L))``.

        Returns
        -------
        RationalForm
            Unpacks as ``(x, forms)``: ``x`` a positive Symbol, ``forms[r]`` a polynomial in
            ``x`` with rational coefficients (PF, RNM-exponential) or a rational function
            (EM, RNM-Gumbel); ``.value`` is the expression ``x`` stands for.

        Raises
        ------
        ValueError
            If the scores are not all rational, or the mechanism has no such form
            (RNM-Laplace's probabilities are not rational in x).
        """
        return self._rational_form

    @cached_property
    def _rational_form(self) -> RationalForm:
        check_exact_n("rational_form", self.n)
        return self._view("rational_form")

    def numeric_rational_form(self) -> RationalForm | None:
        """The probabilities as polynomials in ``x`` valid at this numeric epsilon only
        (capability ``"numeric_rational_form"``: RNM-Laplace at a rational epsilon, where
        ``A_r(x) + lam B_r(x)`` has rational coefficients); None where none exists."""
        if "numeric_rational_form" not in self.capabilities:
            return None
        check_exact_n("numeric_rational_form", self.n)
        return self._view("numeric_rational_form")

    def subs(self, *args, **kwargs) -> Distribution:
        """The distribution at a numeric epsilon: ``d.subs(epsilon=1)`` or ``d.subs(eps, 1)``."""
        eps = self.mechanism.epsilon
        if eps is None:
            raise ValueError("subs: the mechanism has no epsilon to substitute")
        eps = sympy.sympify(eps)
        if kwargs and set(kwargs) == {"epsilon"} and not args:
            value = kwargs["epsilon"]
            if eps.free_symbols:
                value = eps.subs({s: value for s in eps.free_symbols}) if eps.is_Symbol else None
                if value is None:
                    raise ValueError("subs(epsilon=...) needs epsilon to be a plain Symbol")
        elif len(args) == 2 and not kwargs:
            value = eps.subs(args[0], args[1])
        else:
            raise ValueError("subs: use d.subs(epsilon=value) or d.subs(symbol, value)")
        return self.mechanism.with_epsilon(value).distribution(self.scores)

    # ------------------------------------------------------------------ numeric views
    def evalf(self, dps: int = 30) -> tuple[mpmath.mpf, ...]:
        """Probabilities as mpmath numbers, each correct to ``dps`` significant digits.

        The returned ``mpf`` values carry about ``dps`` digits; use ``mpmath.workdps`` to print
        them in full. Python turns at most 4300 digits of an integer into text by default,
        and ``mpmath.nstr`` goes through one: above about 4000 digits call
        ``sys.set_int_max_str_digits(0)`` (or a larger limit) before printing.

        Raises
        ------
        ValueError
            If ``dps`` is not a positive integer or epsilon is symbolic.
        """
        dps = check_dps("evalf", dps)
        check_numeric_n("evalf", self.n)
        with as_caller("evalf"):
            vals = self._view("mp", dps)
        rounded: dict[int, mpmath.mpf] = {}  # outputs sharing a value share its rounding
        with mpmath.workdps(dps):
            return tuple(rounded[id(v)] if id(v) in rounded
                         else rounded.setdefault(id(v), +v) for v in vals)

    def evalf_balls(self, dps: int = 30) -> tuple:
        """Enclosures of the probabilities as python-flint ``arb`` balls.

        Every radius is proved: PF / RNM-Exp by the ball-arithmetic integral
        (:func:`exactdp.numeric.pf.pf_arb`), EM / RNM-Gumbel by the softmax in ball
        arithmetic, other closed forms by :func:`exactdp.exact.enclose` of the exact
        probabilities, RNM-Gaussian by the quadrature's error bound
        (:func:`exactdp.numeric.gaussian.gaussian_mp_bounds`) - proved up to 24 items only;
        :attr:`balls_certified` says whether it is proved here.

        Raises
        ------
        ValueError
            If ``dps`` is not a positive integer or epsilon is symbolic.
        """
        dps = check_dps("evalf_balls", dps)
        check_numeric_n("evalf_balls", self.n, MAX_BALLS_N)
        with as_caller("evalf_balls"):
            return tuple(self._view("balls", dps))

    @property
    def balls_certified(self) -> tuple[bool, str | None]:
        """``(certified, caveat)``: whether the radii of :meth:`evalf_balls` are proved."""
        return self.mechanism.balls_certified(self.scores)

    def to_numpy(self) -> np.ndarray:
        """Probabilities as a float64 array of shape (n,), summing to 1 within 1e-12;
        computed once per distribution (read-only: the summaries and ``sample`` share it)."""
        return self._float_view

    @cached_property
    def _float_view(self) -> np.ndarray:
        out = np.asarray(self._view("float"), dtype=np.float64)
        out.setflags(write=False)
        return out

    # ------------------------------------------------------------------ sampling
    def sample(self, size: int | tuple[int, ...] | None = None, rng=None,
               algorithm: str = "pmf"):
        """Draw outputs of the mechanism on these scores.

        Parameters
        ----------
        size : int or tuple, optional
            Number of draws; ``None`` gives one int.
        rng : numpy.random.Generator, numpy.random.SeedSequence, non-negative int or None
            Source of randomness.
        algorithm : {"pmf", "mechanism"}
            ``"pmf"`` (default): inverse-CDF draws from the float probabilities
            (:meth:`to_numpy`, computed once per distribution), as fast as
            ``rng.choice(n, size, p=...)``. ``"mechanism"``: run the mechanism's own
            randomized algorithm (shuffle and flip coins, argmax of noisy scores), an
            independent route: the one to audit the algorithm itself against the exact
            probabilities. Mechanisms without a float view always run their algorithm.

        Returns
        -------
        int or numpy.ndarray of int64
            Output indices in ``0..n-1``.

        Raises
        ------
        ValueError
            Bad ``size``, ``rng`` or ``algorithm`` (the message names it); more than
            :data:`exactdp.cost.MAX_SAMPLE_DRAWS` draws, or (``"mechanism"``) more than
            :data:`exactdp.cost.MAX_SAMPLE_CELLS` draws times outputs (the draws are made in
            chunks of bounded memory; beyond these limits call ``sample`` in a loop).
        """
        gen = as_generator(rng, "sample")
        algorithm = check_choice("sample", "algorithm", algorithm, _ALGORITHMS)
        if algorithm == "pmf" and "float" not in self.mechanism.capabilities_on(self.scores):
            algorithm = "mechanism"
        if size is None:
            shape: tuple[int, ...] = ()
            total = 1
        else:
            shape = check_size("sample", size)
            total = math.prod(shape)
        _check_sample_cost(total, self.n, algorithm)
        if algorithm == "pmf":
            cdf, last = self._cdf
            draws = np.searchsorted(cdf, gen.random(total) * cdf[-1], side="right")
            np.minimum(draws, last, out=draws)  # rounding at the top: the last possible output
            out = draws.astype(np.int64, copy=False)
        else:
            out = self._view("sample", total, gen)
        return int(out[0]) if size is None else out.reshape(shape)

    @cached_property
    def _cdf(self) -> tuple[np.ndarray, int]:
        """Cumulative float probabilities and the last output of non-zero probability."""
        p = self.to_numpy()
        return np.cumsum(p), int(np.flatnonzero(p)[-1])

    def __repr__(self) -> str:  # the answer first (exactdp.answer)
        return shipped_repr(self, "OutputDistribution", repr(self.mechanism), f"n={self.n}")

    def _latex(self, printer=None) -> str:
        return distribution_latex(self)

    def _repr_html_(self) -> str:  # the notebook's table, as every distribution's
        return shipped_html(self, type(self).__name__)

    def _repr_latex_(self) -> str:  # the full table only when cheap (exactdp.answer)
        return notebook_latex(self, type(self).__name__, distribution_latex)

