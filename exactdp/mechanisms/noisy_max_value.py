"""Report-noisy-max releasing the noisy maximum *value* ``V = max_r (q_r + Z_r)``.

The suite's RNM3 (Laplace noise) and RNM4 (exponential noise) of the DP-testing tools
(StatDP, DP-Sniper): not private, because V moves with the scores. With i.i.d. noise of
density f and CDF F (scale ``b = c*Delta/epsilon``), V has the CDF and density

.. math::

    F_V(v) = \\prod_r F(v - q_r), \\qquad
    f_V(v) = \\sum_r f(v - q_r) \\prod_{s \\ne r} F(v - q_s),

and the privacy loss of a pair is ``sup_v |ln f_q(v) / f_q'(v)|`` (an output of
probability 0 under one input and positive under the other gives ``oo``).

The privacy loss is the program engine's
(:mod:`exactdp.mechanisms.noisy_max_value_engine`: the library's ``noisy_max_value_*``
programs, the same algorithm; its Gumbel and epsilon = oo closed forms are there too),
installed here as :func:`engine_route` ``("loss")``. So are the exact density and CDF with
Laplace or exponential noise: at a rational point (``"view"``) and as sympy expressions of
the value on the cells between the scores, a symbolic epsilon too (``"law"``, the engine's
:mod:`exactdp.programs.release_law`: :attr:`ValueDistribution.density_expr`,
:attr:`ValueDistribution.cdf_expr`). This module keeps the Gumbel-only closed form
(:func:`gumbel_forms`: outside the engine's released values, whose noises are Laplace or
exponential), the float64 and mpmath views (the product ``prod_r F(v - q_r)`` evaluated
directly, ``O(n)`` a point, where the engine's law expands it into up to ``2**n``
exponential terms a cell) and the sampler.

References
----------
Y. Wang, Z. Ding, G. Wang, D. Kifer, D. Zhang, "Proving differential privacy with shadow
execution", PLDI 2019 (the noisy-max variants); B. Bichsel et al., "DP-Sniper", IEEE S&P
2021, and Z. Ding et al., "Detecting violations of differential privacy" (StatDP), CCS 2018
(their RNM3 / RNM4 rows).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_choice, check_dps
from ..distribution import LossSupremum
from ..exact.signs import compare
from ..numbers import require_numeric_epsilon
from ..result_text import cut_text
from ..rng import as_generator
from ..scores import ScoreVector, as_scores
from .base import Mechanism
from .release_views import ReleasedValues

#: The value V (the symbol of the exact density and CDF).
V = sympy.Symbol("v", real=True)


# ============================================================= Gumbel noise (outside the engine)
def gumbel_forms(b: sympy.Expr, values: tuple[sympy.Expr, ...]) -> tuple[sympy.Expr, sympy.Expr]:
    """``(density, cdf)`` of ``V = max_r (q_r + Z_r)`` with Gumbel noise of scale ``b``, as
    sympy expressions of ``V``: ``V`` is Gumbel with location ``b ln S``, ``S = sum_r
    exp(q_r / b)``, so ``F_V(v) = exp(-S exp(-v/b))`` and ``f_V = F_V S exp(-v/b) / b``
    (Gumbel 1958: the maximum of Gumbel variables of one scale is Gumbel). The program
    engine's released values are linear in Laplace and exponential noises only (its
    densities are exponential polynomials; this CDF is not one), so this closed form is the
    Gumbel-only path of :class:`ValueDistribution`.

    Parameters
    ----------
    b : sympy.Expr
        The noise scale (positive).
    values : tuple of sympy.Expr
        The scores ``q_r``.

    Returns
    -------
    (sympy.Expr, sympy.Expr)
        The density and the CDF.

    Examples
    --------
    >>> gumbel_forms(sympy.Integer(1), (sympy.Integer(0),))
    (exp(-v)*exp(-exp(-v)), exp(-exp(-v)))
    """
    g = sympy.Add(*[sympy.exp(q / b) for q in values]) * sympy.exp(-V / b)
    cdf = sympy.exp(-g)
    return g * cdf / b, cdf


#: The one pattern of report-noisy-max returning the value: one released value.
PATTERN = (True,)

#: The program engine's routes for the released value (:mod:`exactdp.mechanisms.
#: noisy_max_value_engine` installs them when the package loads it: importing
#: :mod:`exactdp.mechanisms` imports each of its modules): ``"loss"``, the exact privacy
#: loss (``route(mechanism, noise, q, q2, func) -> LossSupremum``), and ``"view"``, the
#: exact density (``which`` 0) or CDF (``which`` 1) at a rational point (``route(mechanism,
#: noise, scores, which, v) -> sympy.Expr``), and ``"law"``, the exact piecewise law of the
#: value (``route(mechanism, noise, scores) -> ValueLaw``, :mod:`exactdp.programs.
#: release_law`: density and CDF on the cells between the scores, as sympy expressions of
#: the value, a symbolic epsilon too). Inverted so that this module, which the
#: package imports by name, never reaches the program engine (which imports the package):
#: no import cycle.
_ROUTES: dict[str, Callable[..., Any]] = {}
ROUTE_NAMES = ("loss", "view", "law")


def set_engine_route(name: str, route: Callable[..., Any]) -> None:
    """Install the engine's route ``name`` (``"loss"``, ``"view"`` or ``"law"``; called once each,
    by :mod:`exactdp.mechanisms.noisy_max_value_engine` when it loads).

    Parameters
    ----------
    name : {"loss", "view", "law"}
        Which route (see :data:`_ROUTES`).
    route : callable
        The engine's function.
    """
    _ROUTES[check_choice("set_engine_route", "name", name, ROUTE_NAMES)] = route


def engine_route(name: str) -> Callable[..., Any]:
    """The installed route ``name`` (``"loss"``: ``-> LossSupremum``; ``"view"``: ``->
    sympy.Expr``; ``"law"``: ``-> ValueLaw``).

    Parameters
    ----------
    name : {"loss", "view", "law"}
        Which route (see :data:`_ROUTES`).

    Returns
    -------
    callable
        The engine's function.

    Raises
    ------
    RuntimeError
        When :mod:`exactdp.mechanisms.noisy_max_value_engine` was not loaded (never, once
        the package is imported).
    """
    if name not in _ROUTES:
        raise RuntimeError(f"ReportNoisyMax(output='value'): no {name} route installed "
                           "(import exactdp.mechanisms)")
    return _ROUTES[name]


@dataclass(frozen=True)
class ValueDistribution(ReleasedValues):
    """The distribution of the released value ``V = max_r (q_r + Z_r)`` of
    ``ReportNoisyMax(..., output="value")`` on one score vector (output kind
    ``"release"``: it follows :class:`~exactdp.distribution.ReleaseDistribution`).

    One pattern, ``(True,)`` (one released value), of probability 1; V has an exact
    piecewise density and CDF in ``v`` (:attr:`density_expr`, :attr:`cdf_expr`), their
    values at a point (exact, mpmath, float64), the exact loss against a neighbour and a
    sampler that runs the algorithm.

    Attributes
    ----------
    mechanism : Mechanism
        The mechanism (report-noisy-max returning the value).
    scores : ScoreVector
    noise : {"laplace", "exponential", "gumbel"}
        The noise of every score.
    """

    mechanism: Mechanism
    scores: ScoreVector
    noise: str
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:  # the answer first: what is released, then the call
        scores = "one score" if self.scores.n == 1 else f"{self.scores.n} scores"
        return (f"ValueDistribution(the noisy maximum of {scores} with "
                f"{self.noise} noise, one pattern of exact density; "
                f"{cut_text(repr(self.mechanism), 100)})")

    @property
    def n(self) -> int:
        """Number of scores."""
        return self.scores.n

    @property
    def capabilities(self) -> frozenset[str]:
        """The mechanism's: ``"density"`` and the sampler."""
        return self.mechanism.capabilities

    @property
    def scale(self) -> sympy.Expr:
        """The noise scale ``b = c*sensitivity/epsilon``."""
        return 1 / self.mechanism.rate

    @property
    def outputs(self) -> tuple[tuple[bool], ...]:
        """The patterns: the one pattern ``(True,)``."""
        return (PATTERN,)

    @property
    def probabilities(self) -> tuple[sympy.Expr, ...]:
        """The pattern's probability, 1."""
        return (sympy.Integer(1),)

    def pmf(self, pattern: Any, /) -> sympy.Expr:
        """The exact probability of the pattern ``(True,)``: 1."""
        self._check_pattern("pmf", pattern)
        return sympy.Integer(1)

    def __len__(self) -> int:
        return 1

    def to_numpy(self) -> np.ndarray:
        """The pattern's probability in float64: ``[1.0]``."""
        return np.ones(1)

    def split(self, draws: object) -> tuple[np.ndarray, np.ndarray]:
        """Draws of :meth:`sample` (values) as pattern positions (all 0) and values, shape
        (size, 1).

        Raises
        ------
        ValueError
            Draws that are not real numbers.
        """
        try:
            values = np.asarray(draws, dtype=np.float64).reshape(-1, 1)
        except (TypeError, ValueError) as exc:
            raise argument_error("goodness_of_fit", "draws", "real values of V", draws) from exc
        return np.zeros(len(values), dtype=np.int64), values

    def cdf_float(self, pattern: object, i: int, v: np.ndarray) -> np.ndarray:
        """:meth:`cdf` in float64 at the points ``v``."""
        return np.asarray(self.cdf(pattern, i, np.asarray(v, dtype=np.float64),
                                   method="float"))

    def _check_pattern(self, func: str, pattern: object) -> None:
        if not (isinstance(pattern, (tuple, list)) and tuple(pattern) == PATTERN):
            raise argument_error(f"ValueDistribution.{func}", "pattern", "(True,) (the one "
                                 "pattern: the value released)", pattern)

    def loss_supremum(self, neighbour: object) -> LossSupremum:
        """The exact ``sup_v |ln f_q(v) / f_q'(v)|`` against ``neighbour``, with its witness
        (the mechanism's ``"density"`` view, what :func:`exactdp.privacy_loss` reads)."""
        func = f"{type(self.mechanism).__name__}.loss_supremum"
        return self.mechanism.evaluate("density", self.scores,
                                       as_scores(neighbour, "neighbour", func))

    # ------------------------------------------------------------------ exact
    def _oriented(self) -> tuple[sympy.Expr, ...]:
        return self.scores.exact

    @property
    def breakpoints(self) -> tuple[sympy.Expr, ...]:
        """The sorted distinct scores: where the density changes its closed form."""
        return tuple(sorted(set(self._oriented())))

    def _law(self, func: str) -> Any:
        """The program engine's law of V (Laplace and exponential noise: :data:`_ROUTES`
        ``"law"``, a :class:`~exactdp.programs.release_law.ValueLaw`), computed once."""
        if self.mechanism.epsilon_limit is not None:
            scale = "scale 0" if self.mechanism.epsilon_limit == "infinity" else "infinite scale"
            raise ValueError(f"{func}: at epsilon = {self.mechanism.epsilon} the noise has "
                             f"{scale}: V has no density")
        if "law" not in self._cache:
            self._cache["law"] = engine_route("law")(self.mechanism, self.noise, self.scores)
        return self._cache["law"]

    def _piece(self, k: int) -> tuple[sympy.Expr, sympy.Expr]:
        """Density and CDF of V, sympy expressions of ``V``, on the k-th piece (``v`` below
        the k-th breakpoint, k = 0 the leftmost; k = len(breakpoints) the rightmost): the
        engine's law on the cell holding the piece (Gumbel noise: :func:`gumbel_forms`)."""
        if self.noise == "gumbel":
            return gumbel_forms(self.scale, self._oriented())
        law, t = self._law("ValueDistribution"), self.breakpoints
        inside = t[0] - 1 if k == 0 else t[k - 1] + 1 if k == len(t) else (t[k - 1] + t[k]) / 2
        return self._cell(law, inside)

    def _cell(self, law: Any, x: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
        """Density and CDF on the engine's cell holding the real number ``x`` (at a cell
        end the right one)."""
        cell = next(p for p in law.pieces if p.hi is None or compare(
            x, sympy.Rational(p.hi.numerator, p.hi.denominator)) < 0)
        mass = law.term_expr(law.mass, V)
        return (law.term_expr(cell.density, V) / mass, law.term_expr(cell.cdf, V) / mass)

    @property
    def density_expr(self) -> sympy.Expr:
        """The exact density of V as a sympy ``Piecewise`` in ``v`` (the symbol ``V``): the
        program engine's law (:mod:`exactdp.programs.release_law`, a symbolic epsilon
        too); Gumbel noise: one expression (:func:`gumbel_forms`).

        Raises
        ------
        ValueError
            epsilon 0 or oo; the engine's cost model (many distinct scores: the law has
            up to ``2**n`` exponential terms a cell; the exact density at rational points
            and the float view are cheaper).
        """
        if self.noise == "gumbel":
            return gumbel_forms(self.scale, self._oriented())[0]
        return self._law("ValueDistribution.density_expr").expr(0, V)

    @property
    def cdf_expr(self) -> sympy.Expr:
        """The exact CDF ``prod_r F(v - q_r)`` of V as a sympy ``Piecewise`` in ``v`` (as
        :attr:`density_expr`).

        Raises
        ------
        ValueError
            As :attr:`density_expr`.
        """
        if self.noise == "gumbel":
            return gumbel_forms(self.scale, self._oriented())[1]
        return self._law("ValueDistribution.cdf_expr").expr(1, V)

    def _at(self, v: object, which: int, method: str, dps: int) -> object:
        func = "ValueDistribution.density" if which == 0 else "ValueDistribution.cdf"
        method = check_choice(func, "method", method, ("exact", "mpmath", "float"))
        dps = check_dps(func, dps)
        mech = self.mechanism
        if method != "exact" and (mech.epsilon.free_symbols or mech.epsilon_limit is not None):
            raise ValueError(f"{func}: epsilon is {mech.epsilon}; the {method} view needs a "
                             "number epsilon > 0 and finite")
        if method == "float":
            return _float_view(self, np.asarray(v, dtype=float), which)
        if method == "mpmath":
            with mpmath.workdps(dps + 10):
                point = v if isinstance(v, mpmath.mpf) else mpmath.mpf(
                    sympy.N(as_scores([v], "v", func).exact[0], dps + 20))
                out = _mp_view(self, point, which)
            with mpmath.workdps(dps):
                return +out
        exact = as_scores([v], "v", func).exact[0]
        if self.noise == "gumbel":
            return gumbel_forms(self.scale, self._oriented())[which].subs(V, exact)
        if exact.is_Rational and not mech.epsilon.free_symbols:  # the engine's, at a point
            if mech.epsilon_limit is not None:
                self._law(func)  # refused in one line
            return engine_route("view")(mech, self.noise, self.scores, which, exact)
        # the exponentials of one point merged: (a + b) exp(c) -> exp(a + c) + exp(b + c)
        return sympy.powsimp(sympy.expand(self._cell(self._law(func), exact)[which].subs(V, exact)))

    def density(self, v: object, method: str = "exact", dps: int = 30) -> object:
        """The density of V at ``v``: exact (sympy), ``"mpmath"`` (``dps`` digits) or
        ``"float"`` (float64, ``v`` may be an array)."""
        return self._at(v, 0, method, dps)

    def cdf(self, pattern: object, i: int, v: object, method: str = "exact",
            dps: int = 30) -> object:
        """``Pr[V <= v]`` (the pattern ``(True,)``, value ``i = 0``): exact (sympy),
        ``"mpmath"`` or ``"float"`` (as :meth:`density`)."""
        self._check_pattern("cdf", pattern)
        if i != 0:
            raise argument_error("ValueDistribution.cdf", "i", "0 (the one released value)", i)
        return self._at(v, 1, method, dps)

    def sample(self, size: int | None = None, rng: Any = None) -> Any:
        """Draws of V from the algorithm itself: ``max_r (q_r + Z_r)`` with numpy noise."""
        gen = as_generator(rng)
        if self.mechanism.epsilon_limit == "zero":
            raise ValueError("ValueDistribution.sample: at epsilon = 0 the noise has infinite "
                             "scale and V has no distribution to draw from")
        require_numeric_epsilon("ValueDistribution.sample", self.mechanism.epsilon,
                                "the mechanism at a number (mechanism.with_epsilon(1))")
        m = 1 if size is None else int(size)
        q = self.scores.floats[:, None] if self.scores.kind == "float" else np.array(
            [float(s) for s in self._oriented()])[:, None]
        b = float(self.scale)
        if self.noise == "laplace":
            z = gen.laplace(0.0, b, (self.n, m))
        elif self.noise == "exponential":
            z = gen.exponential(b, (self.n, m))
        else:
            z = gen.gumbel(0.0, b, (self.n, m))
        out = (q + z).max(axis=0)
        return float(out[0]) if size is None else out


def _mp_view(dist: ValueDistribution, v: mpmath.mpf, which: int) -> mpmath.mpf:
    """Density or CDF in mpmath at the working precision (positive terms only:
    ``-expm1`` for the exponential CDF, no cancellation)."""
    key = ("mp", mpmath.mp.prec)
    if key not in dist._cache:  # the scale and the scores at this precision, once
        dist._cache[key] = (mpmath.mpf(sympy.N(dist.scale, mpmath.mp.dps + 10)),
                            [mpmath.mpf(sympy.N(q, mpmath.mp.dps + 10))
                             for q in dist._oriented()])
    b, qs = dist._cache[key]
    fs, Fs = [], []
    for q in qs:
        z = v - q
        if dist.noise == "laplace":
            e = mpmath.exp(-abs(z) / b)
            fs.append(e / (2 * b))
            Fs.append(e / 2 if z < 0 else 1 - e / 2)
        elif dist.noise == "exponential":
            fs.append(mpmath.exp(-z / b) / b if z >= 0 else mpmath.mpf(0))
            Fs.append(-mpmath.expm1(-z / b) if z >= 0 else mpmath.mpf(0))
        else:
            g = mpmath.exp(-z / b)
            fs.append(g * mpmath.exp(-g) / b)
            Fs.append(mpmath.exp(-g))
    if which == 1:
        return mpmath.fprod(Fs)
    return mpmath.fsum(fs[i] * mpmath.fprod(Fs[:i] + Fs[i + 1:]) for i in range(len(fs)))


def _float_view(dist: ValueDistribution, v: np.ndarray, which: int) -> np.ndarray:
    """Density or CDF in float64 (log-sum over the factors: no underflow of the product)."""
    q = np.array([float(s) for s in dist._oriented()])[:, None]
    b = float(dist.scale)
    z = np.atleast_1d(v)[None, :] - q
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if dist.noise == "laplace":
            lf = -np.abs(z) / b - math.log(2 * b)
            lF = np.where(z < 0, z / b - math.log(2), np.log1p(-0.5 * np.exp(-np.abs(z) / b)))
        elif dist.noise == "exponential":
            lf = np.where(z >= 0, -z / b - math.log(b), -np.inf)
            lF = np.where(z >= 0, np.log(-np.expm1(-np.maximum(z, 0) / b)), -np.inf)
        else:
            lf = -z / b - np.exp(-z / b) - math.log(b)
            lF = -np.exp(-z / b)
        total = lF.sum(axis=0)
        if which == 1:
            out = np.exp(total)
        else:
            terms = lf + total[None, :] - lF
            terms = np.where(np.isnan(terms), -np.inf, terms)
            out = np.exp(np.logaddexp.reduce(terms, axis=0))
    return out if np.ndim(v) else out[0]
