"""The selection-mechanism base class: privacy parameters and the four views' hooks."""

from __future__ import annotations

import math
from dataclasses import InitVar, dataclass, field
from functools import cached_property

import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_bool, check_choice
from ..deprecation import deprecated_keyword_property, renamed_keyword
from ..distribution import OutputDistribution
from ..exact import ball as exact_ball
from ..exact import dps_to_prec, enclose, to_arb
from ..numbers import exact_epsilon_or_limit, exact_sensitivity
from ..scores import ScoreVector, as_scores
from ..xform import Atoms, paused_gc, poly_expr

__all__ = ["Mechanism", "OPTIMIZE", "RationalForm", "X", "ball", "monotonic_flag", "negated"]

#: Values of the ``optimize`` constructor argument of every mechanism.
OPTIMIZE = ("max", "min")


def monotonic_flag(monotonic: object, monotone: object, func: str) -> bool:
    """The ``monotonic`` flag from ``monotonic=`` or its deprecated spelling ``monotone=``.

    None (not given) means False. ``monotone=`` warns DeprecationWarning once; both given
    with different values, or a value that is not a bool, raise ValueError naming ``func``.
    """
    flag = renamed_keyword(func, "monotonic", monotonic, "monotone", monotone)
    if flag is None:
        return False
    return check_bool(func, "monotone" if monotone is not None else "monotonic", flag)


def negated(sv: ScoreVector) -> ScoreVector:
    """The score vector ``-q`` (same kind: ints stay ints, floats stay floats)."""
    if sv.kind == "float":
        return as_scores(-np.asarray(sv.raw), sv.name)
    return as_scores([-v for v in sv.raw], sv.name)  # type: ignore[union-attr]


def ball(mid: mpmath.mpf, rad: mpmath.mpf, dps: int | None = None):
    """A python-flint ``arb`` ball containing ``[mid - |rad|, mid + |rad|]`` (both mpf).

    Both numbers are converted exactly, sign kept (:func:`exactdp.exact.ball`), so the ball
    is rigorous whenever ``rad`` bounds the error of ``mid``. ``dps`` is accepted for
    compatibility and unused.
    """
    return exact_ball(mid, rad)


#: The symbol of the x-form, ``x = exp(-epsilon / (c * sensitivity * L))``, in ``(0, 1)``.
X = sympy.Symbol("x", positive=True)


@dataclass(frozen=True, init=False, eq=False)
class RationalForm:
    """Output probabilities as functions of ``x = exp(-epsilon/(c*sensitivity*L))``.

    Unpacks as ``x, forms = dist.rational_form()``. ``forms[r]`` is a sympy expression in
    the Symbol ``x`` (a polynomial for PF and RNM-exponential, a rational function for EM);
    ``value`` is what ``x`` stands for, ``L`` the common denominator of the score gaps and
    ``gaps`` the integer exponents ``G_r = L*(q* - q_r)``.

    When built from flint polynomials (``polys``: one ``flint.fmpq_poly`` per output, the
    same object for outputs with equal gaps) the sympy ``forms`` are made only when first
    asked for, one expression per distinct polynomial, shared by equal gaps; exact
    consumers (the analyzer) can read ``polys`` directly: ``forms[r]`` equals
    ``polys[r] / denominator`` (``denominator`` None means 1).
    """

    x: sympy.Symbol
    value: sympy.Expr
    L: int
    gaps: tuple[int, ...]
    polys: tuple | None
    denominator: object | None

    def __init__(self, x, forms=None, value=None, L=1, gaps=(), *, polys=None,
                 denominator=None):
        if forms is None and (polys is None or denominator is not None):
            raise ValueError("RationalForm: give forms, or polys without a denominator")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "L", L)
        object.__setattr__(self, "gaps", tuple(gaps))
        object.__setattr__(self, "polys", None if polys is None else tuple(polys))
        object.__setattr__(self, "denominator", denominator)
        if forms is not None:
            self.__dict__["forms"] = tuple(forms)

    @cached_property
    def forms(self) -> tuple[sympy.Expr, ...]:
        """The probabilities as sympy expressions in ``x`` (built once per distinct poly)."""
        atoms = Atoms.powers(self.x)
        built: dict[int, sympy.Expr] = {}
        out = []
        with paused_gc():
            for p in self.polys:  # type: ignore[union-attr]
                e = built.get(id(p))
                if e is None:
                    e = built[id(p)] = poly_expr(p, atoms)
                out.append(e)
        return tuple(out)

    def __iter__(self):
        return iter((self.x, self.forms))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int):
        if i in (0, -2):
            return self.x  # without building the sympy forms
        return (self.x, self.forms)[i]

    def __repr__(self) -> str:
        return f"RationalForm(x={self.x}, n={len(self.gaps)}, value={self.value}, L={self.L})"

    def substituted(self) -> tuple[sympy.Expr, ...]:
        """The forms with ``x`` replaced by its value (equal to ``.probabilities``)."""
        return tuple(f.subs(self.x, self.value) for f in self.forms)


@dataclass(frozen=True)
class Mechanism:
    """A selection mechanism with privacy parameter ``epsilon`` and sensitivity ``Delta``.

    Parameters
    ----------
    epsilon : number or positive sympy Symbol
        Privacy parameter, > 0. Exact input (int, Fraction, decimal string, sympy); a float
        is converted by its exact binary value with a warning. The two limits are exact
        too: ``epsilon=0`` is the uniform distribution over the outputs and
        ``epsilon=sympy.oo`` (also ``float("inf")``, ``"oo"``) is the uniform distribution
        over the maximizers (the argmax), in every view.
    sensitivity : number, default 1
        Sensitivity ``Delta`` of the score function, > 0.
    monotonic : bool, default False
        Whether the score function is monotonic (all scores move in the same direction
        between neighbours, the word OpenDP and diffprivlib use); then the factor ``c`` is 1
        instead of 2 (McKenna & Sheldon 2020, section 2). None means False.
    monotone : bool, keyword only, optional
        Deprecated spelling of ``monotonic`` (warns DeprecationWarning); giving both with
        different values raises. The attribute ``.monotone`` is a deprecated alias of
        ``.monotonic``.
    optimize : {"max", "min"}, keyword only, default "max"
        Select the maximum (``q* - q_r`` is the error of output r) or the minimum
        (the mechanism runs on ``-q``; the error of r is ``q_r - min q``).

    Raises
    ------
    ValueError
        If epsilon is negative or NaN, sensitivity not positive and finite, ``monotonic``
        not a bool, or ``optimize`` not "max" / "min".
    """

    epsilon: object
    sensitivity: object = 1
    monotonic: bool | None = None
    name: str = field(default="mechanism", init=False, repr=False)
    optimize: str = field(default="max", kw_only=True)
    monotone: InitVar[bool | None] = field(default=None, kw_only=True)

    def __post_init__(self, monotone: bool | None = None) -> None:
        func = type(self).__name__
        self._merge_monotonic(monotone)
        object.__setattr__(self, "epsilon", exact_epsilon_or_limit(self.epsilon, func))
        self._check_optimize()
        object.__setattr__(self, "sensitivity", exact_sensitivity(self.sensitivity, func))
        if self.sensitivity.free_symbols:
            raise argument_error(func, "sensitivity", "a number, not a symbolic expression",
                                 self.sensitivity)

    def _merge_monotonic(self, monotone: bool | None) -> None:
        """Set ``monotonic`` (a bool) from ``monotonic=`` or the deprecated ``monotone=``."""
        flag = monotonic_flag(self.monotonic, monotone, type(self).__name__)
        object.__setattr__(self, "monotonic", flag)

    def _check_optimize(self) -> None:
        check_choice(type(self).__name__, "optimize", self.optimize, OPTIMIZE)

    # ------------------------------------------------------------------ parameters
    @property
    def epsilon_limit(self) -> str | None:
        """``"zero"`` at epsilon = 0, ``"infinity"`` at epsilon = oo, else None."""
        eps = self.epsilon
        if eps is None or not isinstance(eps, sympy.Basic):
            return None
        if eps == sympy.oo:
            return "infinity"
        return "zero" if eps.is_zero is True else None

    @property
    def c(self) -> int:
        """2 for general score functions, 1 for monotonic ones."""
        return 1 if self.monotonic else 2

    @property
    def scale(self) -> sympy.Expr:
        """Noise scale / temperature ``b = c * sensitivity / epsilon`` (oo at epsilon = 0)."""
        if self.epsilon_limit == "zero":
            return sympy.oo
        return self.c * self.sensitivity / self.epsilon

    @property
    def rate(self) -> sympy.Expr:
        """``epsilon / (c * sensitivity)``: the scaled gap is ``rate * (q* - q_r)``."""
        return self.epsilon / (self.c * self.sensitivity)

    def _float_rate(self) -> float:
        """``epsilon/(c*Delta)`` in float64 (``inf`` or 0 beyond the float range)."""
        if self.epsilon.free_symbols:
            raise ValueError(
                f"{type(self).__name__}: epsilon is symbolic ({self.epsilon}); numeric views "
                "need a number: use .subs(epsilon=...) on the distribution first"
            )
        return float(sympy.N(self.rate, 20))

    def _mp_rate(self, dps: int) -> mpmath.mpf:
        self._float_rate()
        with mpmath.workdps(dps + 10):
            return mpmath.mpf(sympy.N(self.rate, dps + 20))

    def with_epsilon(self, epsilon: object) -> Mechanism:
        """The same mechanism at another epsilon."""
        from dataclasses import replace

        return replace(self, epsilon=epsilon)

    # ------------------------------------------------------------------ scaled gaps
    def scaled_gaps_float(self, sv: ScoreVector) -> np.ndarray:
        """``d_r = epsilon*(q* - q_r)/(c*Delta)`` as float64 (``inf`` where it overflows).

        The product is formed in float64 when the rate and the gaps are representable;
        otherwise (epsilon beyond the float range, or exact gaps that underflow or overflow
        float64 although their product does not) it is formed in mpmath and rounded once.
        """
        rate = self._float_rate()
        lossy = not (math.isfinite(rate) and rate > 0)
        if sv.kind == "float" or sv._int_arr is not None:
            gaps = sv.fresh_gaps_float()  # a new array: scaled in place
        else:
            gaps = sv.gaps_float
            if not lossy:
                lossy = bool(np.any(np.isinf(gaps)))
            if not lossy and sv.kind == "exact":  # a tiny exact gap may underflow to 0
                lossy = any(gf == 0 and ge != 0
                            for gf, ge in zip(gaps, sv.gaps_exact, strict=True))
            gaps = gaps.copy()
        if not lossy:
            with np.errstate(over="ignore"):
                gaps *= rate
            return gaps
        d = self.scaled_gaps_mp(sv, 20)
        out = np.empty(len(d))
        for i, v in enumerate(d):
            out[i] = math.inf if v > mpmath.mpf("1e308") else float(v)
        return out

    def scaled_gaps_mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        """The scaled gaps in mpmath at ``dps`` (+guard) digits."""
        rate = self._mp_rate(dps)
        with mpmath.workdps(dps + 10):
            return [g * rate for g in sv.gaps_mp(dps + 10)]

    def x_value(self, L: int) -> sympy.Expr:
        """``exp(-epsilon/(c*Delta*L))``, the value the x-form's symbol stands for."""
        return sympy.exp(-self.rate / L)

    # ------------------------------------------------------------------ public entry
    def distribution(self, scores: object) -> OutputDistribution:
        """The exact output distribution on ``scores`` (lazy: views computed on demand).

        Parameters
        ----------
        scores : sequence of numbers, shape (n,)
            Quality scores of the n outputs of the range.

        Returns
        -------
        OutputDistribution

        Raises
        ------
        ValueError
            For invalid scores (see :class:`~exactdp.scores.ScoreVector`).
        """
        func = f"{type(self).__name__}.distribution"
        return OutputDistribution(self, as_scores(scores, func=func))

    # ------------------------------------------------------------------ routing
    def oriented(self, sv: ScoreVector) -> ScoreVector:
        """The scores the mechanism maximizes: ``q``, or ``-q`` under ``optimize="min"``."""
        return negated(sv) if self.optimize == "min" else sv

    def _limit_probabilities(self, sv: ScoreVector) -> tuple[sympy.Rational, ...] | None:
        """Exact probabilities at epsilon = 0 (uniform) or oo (uniform on the argmax of the
        oriented scores ``sv``); None at any other epsilon."""
        limit = self.epsilon_limit
        if limit is None:
            return None
        if limit == "zero":
            return tuple(sympy.Rational(1, sv.n) for _ in range(sv.n))
        top = set(sv.argmax_set)
        share = sympy.Rational(1, len(top))
        return tuple(share if i in top else sympy.Integer(0) for i in range(sv.n))

    def _route(self, view: str, sv: ScoreVector, *args):
        """One view (``exact``, ``rational_form``, ``mp``, ``float``, ``balls``, ``sample``)
        of the distribution on ``sv``: orients the scores (``optimize``) and answers the
        epsilon limits exactly; otherwise calls the mechanism's hook."""
        sv = self.oriented(sv)
        limit = self._limit_probabilities(sv)
        if limit is None:
            if view == "float":
                grouped = self._float_by_group(sv)
                if grouped is not None:
                    return grouped
            return getattr(self, "_" + view)(sv, *args)
        if view == "exact":
            return limit
        if view == "rational_form":
            raise ValueError(
                f"{type(self).__name__}: no rational form in x at epsilon = {self.epsilon} "
                "(x = exp(-epsilon/(c*Delta*L)) is 0 or 1); use .probabilities"
            )
        if view == "mp":
            with mpmath.workdps(args[0] + 10):
                return [mpmath.mpf(int(p.p)) / int(p.q) for p in limit]
        if view == "float":
            return np.array([float(p) for p in limit])
        if view == "balls":
            return [to_arb(p, dps_to_prec(args[0]) + 10) for p in limit]
        size, rng = args
        support = np.flatnonzero([p != 0 for p in limit])
        weights = np.array([float(limit[i]) for i in support])
        return rng.choice(support, size=size, p=weights / weights.sum()).astype(np.int64)

    # ------------------------------------------------------------------ hooks
    def _exact(self, sv: ScoreVector) -> tuple[sympy.Expr, ...]:
        raise NotImplementedError

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        raise ValueError(f"{type(self).__name__}: no rational form in x for this mechanism")

    def _mp(self, sv: ScoreVector, dps: int) -> list[mpmath.mpf]:
        with mpmath.workdps(dps + 10):
            vals = [mpmath.mpf(sympy.N(p, dps + 10)) for p in self._exact(sv)]
        return vals

    def _float(self, sv: ScoreVector) -> np.ndarray:
        return np.array([float(v) for v in self._mp(sv, 20)])

    def _float_grouped(self, d: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
        """Float probabilities of one output per distinct scaled gap ``d[k]`` (which
        ``counts[k]`` outputs share), for mechanisms whose output probabilities depend only
        on the output's own gap and the multiset of gaps; ``None``: not available."""
        return None

    def _float_by_group(self, sv: ScoreVector) -> np.ndarray | None:
        """The float view computed once per distinct score and gathered (integer scores
        with few distinct values); ``None`` when that does not apply."""
        if type(self)._float_grouped is Mechanism._float_grouped:
            return None
        groups = sv.gap_groups()
        rate = self._float_rate()
        if groups is None or not (math.isfinite(rate) and rate > 0):
            return None
        with np.errstate(over="ignore"):
            d = groups.gaps * rate
        vals = self._float_grouped(d, groups.counts)
        return None if vals is None else groups.gather(vals)

    def _balls(self, sv: ScoreVector, dps: int) -> list:
        """Rigorous enclosures of the probabilities (python-flint arb balls).

        Default: each exact probability evaluated node by node in ball arithmetic
        (:func:`exactdp.exact.enclose`), so every radius is proved by the arithmetic, with
        about ``dps`` correct digits. Subclasses with a faster certified route override it.

        Raises
        ------
        ValueError
            For a symbolic epsilon, or a mechanism without exact probabilities.
        """
        if self.epsilon.free_symbols:
            raise ValueError(
                f"{type(self).__name__}: epsilon is symbolic ({self.epsilon}); balls need a "
                "number"
            )
        try:
            probs = self._exact(sv)
        except NotImplementedError:
            raise ValueError(
                f"{type(self).__name__}: no exact probabilities, so no certified enclosure"
            ) from None
        return [enclose(p, dps) for p in probs]

    def scaled_gaps_arb(self, sv: ScoreVector, dps: int) -> list:
        """Rigorous balls of the scaled gaps ``rate*(q* - q_r)`` (:func:`exactdp.exact.enclose`).

        Each has about ``dps`` correct digits plus as many as its integer part has, so that
        ``exp(-d)`` keeps ``dps`` relative digits.
        """
        if self.epsilon.free_symbols:
            raise ValueError(
                f"{type(self).__name__}: epsilon is symbolic ({self.epsilon}); balls need a "
                "number"
            )
        out = []
        for g in sv.gaps_exact:
            d = self.rate * g
            extra = len(str(int(abs(enclose(d, 5)).upper().floor().unique_fmpz())))
            out.append(enclose(d, dps + extra + 5))
        return out

    def _balls_certified(self, sv: ScoreVector) -> tuple[bool, str | None]:
        """``(certified, caveat)`` of :meth:`_balls` on ``sv`` (True: radii proved)."""
        return True, None

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def _latex_name(self) -> str:
        return type(self).__name__


# ``.monotone`` (the old attribute) reads ``.monotonic`` with a DeprecationWarning; set after
# the class is built because ``monotone`` is also the deprecated constructor keyword.
Mechanism.monotone = deprecated_keyword_property("monotonic", "monotone")  # type: ignore[assignment,method-assign]
