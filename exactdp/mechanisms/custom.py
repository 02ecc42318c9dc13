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
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field, replace
from functools import cached_property

import mpmath
import numpy as np
import sympy

from ..deprecation import deprecated_keyword_property, deprecated_property
from ..numbers import (
    exact_epsilon,
    exact_number,
    exact_sensitivity,
    safe_sympify,
    sequence_items,
)
from ..rng import as_generator
from ..scores import ScoreVector, as_scores
from .base import Mechanism, monotonic_flag
from .exponential import ExponentialMechanism
from .noisy_max import ReportNoisyMax
from .permute_flip import PermuteAndFlip

__all__ = [
    "FunctionMechanism",
    "FunctionDistribution",
    "MisdeclaredMechanism",
    "mechanism_from_function",
    "wrong_rnm_laplace",
    "wrong_exponential",
    "wrong_permute_and_flip",
    "WRONG_VARIANTS",
]


def _scores_tuple(scores: object) -> tuple[sympy.Expr, ...]:
    if isinstance(scores, ScoreVector):
        return scores.exact
    items = sequence_items(scores, "scores", "a sequence of numbers")
    if any(isinstance(v, sympy.Basic) and v.free_symbols for v in items):
        return tuple(safe_sympify(v) for v in items)
    return as_scores(items).exact


@dataclass(frozen=True, eq=False)
class FunctionDistribution:
    """Output distribution of a :class:`FunctionMechanism` on one score vector.

    Offers the exact view ``probabilities`` and, through sympy, ``evalf(dps)``,
    ``to_numpy()``, ``pmf(r)``, ``rational_form()`` and ``sample``.
    """

    mechanism: FunctionMechanism
    scores: tuple

    @property
    def n(self) -> int:
        return len(self.scores)

    def __len__(self) -> int:
        return self.n

    @cached_property
    def probabilities(self) -> tuple[sympy.Expr, ...]:
        """Exact probabilities returned by the user function (validated)."""
        mech = self.mechanism
        out = mech.func(self.scores, mech.epsilon) if mech.takes_epsilon else mech.func(
            self.scores
        )
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

    def pmf(self, r: int) -> sympy.Expr:
        """Exact ``Pr[M(q) = r]``."""
        if not isinstance(r, (int, np.integer)) or not 0 <= r < self.n:
            raise IndexError(f"pmf: output index must be an integer in [0, {self.n}), got {r!r}")
        return self.probabilities[int(r)]

    def evalf(self, dps: int = 30) -> tuple[mpmath.mpf, ...]:
        """Probabilities as mpmath numbers with ``dps`` significant digits (sympy evalf)."""
        if isinstance(dps, bool) or not isinstance(dps, (int, np.integer)) or dps < 1:
            raise ValueError(f"evalf: dps must be a positive integer, got {dps!r}")
        with mpmath.workdps(dps):
            return tuple(mpmath.mpf(sympy.N(p, dps + 5)) for p in self.probabilities)

    def to_numpy(self) -> np.ndarray:
        """Probabilities as float64, shape (n,)."""
        out = np.array([float(sympy.N(p, 20)) for p in self.probabilities], dtype=np.float64)
        out.setflags(write=False)
        return out

    def rational_form(self):
        """``(x, forms)``-like result with ``x = exp(-epsilon/N)`` (see
        :func:`exactdp.exact.poly.xform_from_probabilities`).

        Raises
        ------
        ValueError
            If the probabilities are not rational in ``exp(epsilon/N)``.
        """
        from ..exact.poly import xform_from_probabilities

        if self.mechanism.epsilon is None:
            raise ValueError(f"{self.mechanism.name}: no epsilon, no x-form")
        x, forms, kappa = xform_from_probabilities(self.probabilities, self.mechanism.epsilon)
        return _XForm(x, forms, sympy.exp(-self.mechanism.epsilon * kappa))

    def sample(self, size: int | None = None, rng=None):
        """Draw outputs from the float probabilities (for Monte Carlo cross-checks)."""
        gen = as_generator(rng, "sample")
        p = self.to_numpy()
        p = p / p.sum()
        if size is None:
            return int(gen.choice(self.n, p=p))
        return gen.choice(self.n, size=size, p=p)


@dataclass(frozen=True)
class _XForm:
    x: sympy.Symbol
    forms: tuple
    value: sympy.Expr

    def __getitem__(self, i: int):
        return (self.x, self.forms)[i]

    def __iter__(self):
        return iter((self.x, self.forms))


@dataclass(frozen=True, eq=False)
class FunctionMechanism:
    """A mechanism given by a function ``scores -> probabilities`` (exact).

    Build it with :func:`mechanism_from_function`.
    """

    func: Callable
    epsilon: object = None
    sensitivity: object = 1
    monotonic: bool | None = None
    name: str = "user mechanism"
    takes_epsilon: bool = field(default=False, repr=False)
    monotone: InitVar[bool | None] = field(default=None, kw_only=True)

    def __post_init__(self, monotone: bool | None = None) -> None:
        if not callable(self.func):
            raise ValueError(f"mechanism_from_function: f must be callable, got {self.func!r}")
        if self.epsilon is not None:
            object.__setattr__(self, "epsilon", exact_epsilon(self.epsilon))
        object.__setattr__(self, "sensitivity", exact_sensitivity(self.sensitivity))
        flag = monotonic_flag(self.monotonic, monotone, "mechanism_from_function")
        object.__setattr__(self, "monotonic", flag)

    @property
    def c(self) -> int:
        """2 for general score functions, 1 for monotonic ones (as declared)."""
        return 1 if self.monotonic else 2

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
        return FunctionDistribution(self, _scores_tuple(scores))


# ``.monotone`` reads ``.monotonic`` with a DeprecationWarning (``monotone`` is also the
# deprecated constructor keyword, so the property is set after the class is built)
FunctionMechanism.monotone = deprecated_keyword_property("monotonic", "monotone")  # type: ignore[assignment,method-assign]


def mechanism_from_function(
    f: Callable,
    *,
    epsilon: object = None,
    sensitivity: object = 1,
    monotonic: bool | None = None,
    name: str | None = None,
    monotone: bool | None = None,
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
    monotone : bool, optional
        Deprecated spelling of ``monotonic`` (warns DeprecationWarning).

    Returns
    -------
    FunctionMechanism
        ``.distribution(scores)`` gives ``.probabilities`` (exact), ``evalf``,
        ``to_numpy``, ``rational_form`` (when rational in ``exp(epsilon/N)``).

    Raises
    ------
    ValueError
        If ``f`` is not callable or a parameter is invalid; on use, if ``f`` returns floats
        or the wrong number of probabilities.

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
        raise ValueError(
            "mechanism_from_function: with epsilon=..., f must accept (scores, epsilon)"
        )
    flag = monotonic_flag(monotonic, monotone, "mechanism_from_function")
    return FunctionMechanism(
        f, epsilon, sensitivity, flag, name or getattr(f, "__name__", "user mechanism"),
        takes,
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
class MisdeclaredMechanism:
    """A correct mechanism used outside its assumptions.

    ``inner`` computes the distribution (exactly, with exactdp's formulas); the wrapper
    declares ``monotonic=False`` (general score functions) although ``inner`` uses the
    monotonic constant ``c = 1``.
    """

    inner: Mechanism
    name: str
    description: str = ""
    monotonic: bool = False

    monotone = deprecated_property("monotonic", "monotone")

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

