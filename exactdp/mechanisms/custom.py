"""User-defined mechanisms and a catalogue of deliberately wrong variants.

:func:`mechanism_from_function` wraps a function from scores to an exact probability vector
into an object every analyzer function accepts. The catalogue (:data:`WRONG_VARIANTS`)
holds three textbook mistakes: each uses the monotone constant ``c = 1`` while being
declared for general (non-monotone) score functions, so its noise or temperature is half of
what privacy needs. The analyzer finds each violation with its exact loss
(docs/analyzer.md).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import ClassVar

import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_bool, check_callable, check_choice
from ..distribution import OutputDistribution
from ..exact import enclose
from ..exact.poly import xform_from_probabilities
from ..numbers import (
    exact_epsilon,
    exact_number,
    exact_sensitivity,
    safe_sympify,
    sequence_items,
)
from ..scores import ADJACENCIES, SCORE_DOMAINS, ScoreVector, as_scores, check_score_domain
from .base import Mechanism, monotonic_flag
from .exponential import ExponentialMechanism
from .noisy_max import ReportNoisyMax
from .parameters import parameter
from .permute_flip import PermuteAndFlip


def _score_vector(scores: object, func: str | None = None) -> ScoreVector:
    """The scores as a ScoreVector; scores in a family parameter are kept as given (an
    exact vector of expressions, as :func:`~exactdp.analysis.supremum.symbolic_probabilities`
    builds), since only the exact view applies to them."""
    if isinstance(scores, ScoreVector):
        return scores
    items = sequence_items(scores, "scores", "a sequence of numbers", func=func)
    if any(isinstance(v, sympy.Basic) and v.free_symbols for v in items):
        return ScoreVector(tuple(safe_sympify(v) for v in items), "exact", "scores")
    sv = as_scores(items, func=func)
    sv.exact  # noqa: B018  (float scores convert, with their one warning, here)
    return sv


@dataclass(frozen=True, eq=False)
class FunctionDistribution(OutputDistribution):
    """Output distribution of a :class:`FunctionMechanism` on one score vector.

    An :class:`~exactdp.distribution.OutputDistribution`: every method works on it
    (``probabilities``, ``pmf``, ``evalf``, ``evalf_balls``, ``to_numpy``, ``sample``,
    ``rational_form``, ``subs``, ``expected_error``, ``error_tail``, ``entropy``,
    ``expect``, ``_repr_latex_``). The exact view is the user function's (validated); the
    numeric views evaluate it (sympy ``N``, rigorous balls by :func:`exactdp.exact.enclose`);
    ``sample`` draws from the float64 probabilities (inverse CDF, numpy ``Generator``), since
    the function has no randomized algorithm of its own.

    Attributes
    ----------
    mechanism : FunctionMechanism
    scores : ScoreVector, shape (n,)
        The scores; the function gets ``scores.exact``, a tuple of sympy numbers (they may
        contain a family parameter, see :func:`~exactdp.analysis.supremum.sup_privacy_loss`;
        then only the exact view applies and the numeric views raise ValueError).
    """

    mechanism: FunctionMechanism

    @property
    def balls_certified(self) -> tuple[bool, str | None]:
        """``(True, None)``: the balls enclose exact closed forms (``exact.enclose``)."""
        return True, None

    @cached_property
    def _oriented(self) -> ScoreVector:
        """The scores as a ScoreVector (the errors of ``expected_error`` are their gaps)."""
        free = set().union(*(v.free_symbols for v in self.scores.exact))
        if free:
            raise ValueError(
                f"{self.mechanism.name}: the scores contain symbols "
                f"({sorted(map(str, free))}); errors need numeric scores"
            )
        return self.scores

    def _view(self, view: str, *args):
        if view == "exact":
            return self._function_probabilities()
        if view == "rational_form":
            return self._xform()
        probs = self._numeric_probabilities(view)
        if view == "mp":
            (dps,) = args
            with mpmath.workdps(dps):
                return tuple(mpmath.mpf(sympy.N(p, dps + 5)) for p in probs)
        if view == "balls":
            (dps,) = args
            return tuple(enclose(p, dps) for p in probs)
        p = np.array([float(sympy.N(v, 20)) for v in probs], dtype=np.float64)
        if view == "float":
            return p
        if view == "sample":
            size, gen = args
            return np.asarray(gen.choice(self.n, size=size, p=p / p.sum()), dtype=np.int64)
        raise ValueError(f"{self.mechanism.name}: unknown view {view!r}")

    def _numeric_probabilities(self, view: str) -> Sequence[sympy.Expr]:
        probs = self.probabilities
        free = set().union(*(p.free_symbols for p in probs))
        if free:
            raise ValueError(
                f"{self.mechanism.name}: the probabilities depend on "
                f"{sorted(map(str, free))}; the {view} view needs numbers: use "
                ".subs(epsilon=...) first (or numeric scores)"
            )
        return probs

    def _function_probabilities(self) -> tuple[sympy.Expr, ...]:
        """Exact probabilities returned by the user function (validated)."""
        mech = self.mechanism
        scores = self.scores.exact
        out = mech.func(scores, mech.epsilon) if mech.takes_epsilon else mech.func(scores)
        try:
            items = list(out)
        except TypeError as exc:
            raise ValueError(
                f"{mech.name}: the function must return a sequence of probabilities, got "
                f"{out!r}"
            ) from exc
        if len(items) != self.n:
            raise ValueError(
                f"{mech.name}: the function returned {len(items)} probabilities for "
                f"{self.n} scores"
            )
        probs = []
        for i, p in enumerate(items):
            if isinstance(p, (float, np.floating)) or (
                isinstance(p, sympy.Basic) and p.atoms(sympy.Float)
            ):
                raise ValueError(
                    f"{mech.name}: probability {i} is a float ({p!r}); return exact numbers "
                    "(sympy expressions, Fractions or ints)"
                )
            probs.append(exact_number(p, f"{mech.name} probability", i, allow_symbols=True))
        return tuple(probs)

    def _xform(self):
        """``(x, forms)``-like result with ``x = exp(-epsilon/N)`` (see
        :func:`exactdp.exact.poly.xform_from_probabilities`).

        Raises
        ------
        ValueError
            If there is no epsilon or the probabilities are not rational in
            ``exp(epsilon/N)``.
        """
        if self.mechanism.epsilon is None:
            raise ValueError(f"{self.mechanism.name}: no epsilon, no x-form")
        x, forms, kappa = xform_from_probabilities(self.probabilities, self.mechanism.epsilon)
        return _XForm(x, forms, sympy.exp(-self.mechanism.epsilon * kappa))


@dataclass(frozen=True)
class _XForm:
    x: sympy.Symbol
    forms: tuple
    value: sympy.Expr

    def __getitem__(self, i: int):
        return (self.x, self.forms)[i]

    def __iter__(self):
        return iter((self.x, self.forms))


def _function(func: str, name: str, value: object) -> Callable:
    return check_callable("mechanism_from_function", "f", value)


def _optional_epsilon(func: str, name: str, value: object) -> sympy.Expr | None:
    return None if value is None else exact_epsilon(value, "mechanism_from_function")


def _sensitivity(func: str, name: str, value: object) -> sympy.Expr:
    return exact_sensitivity(value, "mechanism_from_function")


def _flag(func: str, name: str, value: object) -> bool:
    return monotonic_flag(value, "mechanism_from_function")


@dataclass(frozen=True, eq=False)
class FunctionMechanism(Mechanism):
    """A mechanism given by a function ``scores -> probabilities`` (exact).

    Build it with :func:`mechanism_from_function`. Its distribution has exact probabilities
    (the function's), the numeric views and balls derived from them, and a sampler drawing
    from them; the analyzer extracts a form in ``x = exp(-epsilon/N)`` from the exact
    probabilities when they are rational in it.
    """

    func: Callable = parameter(_function, "a callable", exact=False)
    epsilon: sympy.Expr | None = parameter(_optional_epsilon, "None or a number > 0",
                                           default=None, symbolic=True)
    sensitivity: sympy.Expr = parameter(_sensitivity, "a number > 0", default=1)
    monotonic: bool = parameter(_flag, "a bool", default=False, exact=False)
    name: str = "user mechanism"
    takes_epsilon: bool = field(default=False, repr=False)
    regular: bool = field(default=False, kw_only=True)
    adjacency: str = field(default="all", kw_only=True)
    score_domain: str = field(default="real", kw_only=True)
    #: ``regular=True`` is the user's claim: checked on the scores each analysis runs on.
    regular_claimed: ClassVar[bool] = True

    @property
    def capabilities(self) -> frozenset[str]:
        """Exact probabilities (the function's) and every view derived from them."""
        return frozenset({"exact", "mpmath", "float", "balls", "sample"})

    def capabilities_on(self, sv: ScoreVector) -> frozenset[str]:
        """:attr:`capabilities`; the numeric views need a numeric epsilon."""
        eps = self.epsilon
        if eps is not None and eps.free_symbols:
            return frozenset({"exact"})
        return self.capabilities

    @property
    def optimize(self) -> str:
        """``"max"``: the function gives the probabilities of the scores as they are."""
        return "max"

    def with_epsilon(self, epsilon: object) -> FunctionMechanism:
        """The same mechanism at another epsilon (needs a function of (scores, epsilon))."""
        if not self.takes_epsilon:
            raise ValueError(
                f"{self.name}: the function takes no epsilon; build it with "
                "mechanism_from_function(f, epsilon=...) and f(scores, epsilon)"
            )
        return replace(self, epsilon=epsilon)

    def distribution(self, scores: object) -> FunctionDistribution:
        """The exact output distribution on ``scores`` (sympy expressions allowed)."""
        func = f"{type(self).__name__}.distribution"
        sv = _score_vector(scores, func)
        check_score_domain(self.score_domain, sv, func, owner=self.name)
        return FunctionDistribution(self, sv)


def mechanism_from_function(
    f: Callable,
    *,
    epsilon: object = None,
    sensitivity: object = 1,
    monotonic: bool | None = None,
    name: str | None = None,
    regular: bool = False,
    adjacency: str = "all",
    score_domain: str = "real",
) -> FunctionMechanism:
    """Wrap a function from scores to an exact probability vector into a mechanism.

    Parameters
    ----------
    f : callable
        ``f(scores)`` or, when ``epsilon`` is given, ``f(scores, epsilon)``: ``scores`` is a
        tuple of sympy numbers (or expressions in a family parameter, see
        :func:`~exactdp.analysis.supremum.sup_privacy_loss`), the result a sequence of n
        exact probabilities (sympy expressions, ints, Fractions) summing to 1. Floats are
        refused.
    epsilon : number or positive Symbol, optional
        The privacy parameter passed to ``f``; enables ``with_epsilon`` and certificates.
    sensitivity : number, default 1
        Sensitivity of the score function (the neighbour radius).
    monotonic : bool, default False
        Whether the mechanism is declared for monotonic score functions only.
    name : str, optional
    regular : bool, default False
        The user's declaration that the mechanism is regular (symmetric, shift-invariant and
        monotone: McKenna & Sheldon 2020, Def. 3; docs/formulas.md section 3), so the
        reduced neighbour search is exact for it beyond six scores. It is checked on the
        scores each search uses it for (every adjacent transposition, the shifts by
        ``+-sensitivity`` and every elementary monotone move of size ``sensitivity``): a
        failure raises ValueError with the witness. Undeclared, the search is exhaustive
        up to six scores and heuristic beyond.
    adjacency : {"all", "one"}, default "all"
        Which score vectors are neighbours: ``"all"``, every score moves by at most the
        sensitivity; ``"one"``, one score moves (``q +- sensitivity * e_i``: histograms,
        sums).
    score_domain : {"real", "integer"}, default "real"
        ``"integer"``: the function is defined on integer scores only; a fraction is
        refused (ValueError) before ``f`` is called.

    Returns
    -------
    FunctionMechanism
        A :class:`~exactdp.mechanisms.base.Mechanism`: ``.distribution(scores)`` gives
        ``.probabilities`` (exact), ``evalf``, ``to_numpy``,
        ``rational_form`` (when rational in ``exp(epsilon/N)``).

    Raises
    ------
    ValueError
        If ``f`` is not callable or a parameter is invalid; on use, if ``f`` returns floats
        or the wrong number of probabilities, if a score is outside ``score_domain``, or if
        ``regular=True`` fails on the scores a search uses it for.

    Examples
    --------
    >>> import sympy
    >>> from exactdp.mechanisms.custom import mechanism_from_function
    >>> def em(q, eps):
    ...     w = [sympy.exp(eps * v / 2) for v in q]
    ...     return [x / sum(w) for x in w]
    >>> m = mechanism_from_function(em, epsilon=1)
    >>> m.distribution([0, 0]).probabilities
    (1/2, 1/2)
    """
    takes = epsilon is not None
    if takes and callable(f) and not _accepts_two(f):
        raise argument_error("mechanism_from_function", "f", "a function of (scores, epsilon) "
                             "when epsilon=... is given", f)
    label = name or str(getattr(f, "__name__", "user mechanism"))
    func = "mechanism_from_function"
    return FunctionMechanism(
        f, epsilon, sensitivity, monotonic_flag(monotonic, func), label, takes,
        regular=check_bool(func, "regular", regular),
        adjacency=check_choice(func, "adjacency", adjacency, ADJACENCIES),
        score_domain=check_choice(func, "score_domain", score_domain, SCORE_DOMAINS),
    )


def _accepts_two(f: Callable) -> bool:
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return True
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2


# ============================================================================ wrong variants
@dataclass(frozen=True, eq=False)
class MisdeclaredMechanism(Mechanism):
    """A correct mechanism used outside its assumptions.

    ``inner`` computes the distribution (exactly, with exactdp's formulas); the wrapper
    declares ``monotonic=False`` (general score functions) although ``inner`` uses the
    monotonic constant ``c = 1``.
    """

    inner: Mechanism
    name: str
    description: str = ""
    monotonic: bool = False

    @property
    def regular(self) -> bool:
        """The inner mechanism's (the distribution is the inner mechanism's)."""
        return self.inner.regular

    @property
    def capabilities(self) -> frozenset[str]:
        """The inner mechanism's."""
        return self.inner.capabilities

    def capabilities_on(self, sv: ScoreVector) -> frozenset[str]:
        """The inner mechanism's on ``sv``."""
        return self.inner.capabilities_on(sv)

    @property
    def optimize(self) -> str:
        return self.inner.optimize

    @property
    def epsilon(self) -> sympy.Expr:
        return self.inner.epsilon

    @property
    def sensitivity(self) -> sympy.Expr:
        return self.inner.sensitivity

    @property
    def c(self) -> int:
        """The constant the declaration needs (2), not the one used (``inner.c``)."""
        return 1 if self.monotonic else 2

    def with_epsilon(self, epsilon: object) -> MisdeclaredMechanism:
        return replace(self, inner=self.inner.with_epsilon(epsilon))

    def distribution(self, scores: object):
        return self.inner.distribution(scores)


def wrong_rnm_laplace(epsilon: object, sensitivity: object = 1) -> MisdeclaredMechanism:
    """Report-noisy-max with Laplace noise of scale ``sensitivity/epsilon`` on general scores.

    The correct scale for non-monotone score functions is ``2*sensitivity/epsilon``; at
    half of it the loss approaches ``2*epsilon`` (gap -> oo).

    References
    ----------
    Dwork & Roth (2014), Claim 3.9 (proved for counting queries, i.e. monotone scores).
    """
    inner = ReportNoisyMax(epsilon, sensitivity, monotonic=True, noise="laplace")
    return MisdeclaredMechanism(inner, "RNM-Laplace(Delta/eps) on general scores",
                                "Laplace noise of scale Delta/eps, needs 2*Delta/eps")


def wrong_exponential(epsilon: object, sensitivity: object = 1) -> MisdeclaredMechanism:
    """Exponential mechanism with weights ``exp(epsilon*q/Delta)`` on general scores.

    It is ``2*epsilon``-DP, not epsilon-DP (the exponent needs ``2*Delta``).

    References
    ----------
    McSherry & Talwar (2007), Thm 6; Dwork & Roth (2014), Thm 3.10.
    """
    inner = ExponentialMechanism(epsilon, sensitivity, monotonic=True)
    return MisdeclaredMechanism(inner, "EM exp(eps*q/Delta) on general scores",
                                "exponent eps*q/Delta, needs eps*q/(2*Delta)")


def wrong_permute_and_flip(epsilon: object, sensitivity: object = 1) -> MisdeclaredMechanism:
    """Permute-and-flip with coins ``exp(epsilon*(q - q*)/Delta)`` on general scores.

    References
    ----------
    McKenna & Sheldon (2020), Algorithm 1 (coins ``exp(eps*(q - q*)/(2*Delta))``).
    """
    inner = PermuteAndFlip(epsilon, sensitivity, monotonic=True)
    return MisdeclaredMechanism(inner, "PF coins exp(eps*(q-q*)/Delta) on general scores",
                                "coins exp(eps*(q - q*)/Delta), need 2*Delta")


#: name -> constructor ``(epsilon, sensitivity=1) -> mechanism`` of each wrong variant.
WRONG_VARIANTS: dict[str, Callable[..., MisdeclaredMechanism]] = {
    "rnm_laplace_half_scale": wrong_rnm_laplace,
    "em_exponent_eps_q_over_delta": wrong_exponential,
    "pf_coins_eps_over_delta": wrong_permute_and_flip,
}

