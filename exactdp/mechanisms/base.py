"""The selection-mechanism base class: privacy parameters and the four views' hooks."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import fields, is_dataclass
from dataclasses import replace as dataclass_replace
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import mpmath
import numpy as np
import sympy

from .._validate import check_bool
from ..cost import check_gap_digits, exponent_digits, refuse
from ..distribution import Distribution, LossSupremum, OutputDistribution
from ..exact import dps_to_prec, enclose, to_arb
from ..exact.arb import flint_prec
from ..numbers import require_numeric_epsilon
from ..printing import value_repr
from ..rational_form import RationalForm
from ..scores import ScoreVector, as_scores, check_score_domain
from .declarations import Declarations
from .parameters import Parameter, declared_parameters


def monotonic_flag(monotonic: object, func: str) -> bool:
    """The ``monotonic`` flag: None (not given) means False; a value that is not a bool
    raises ValueError naming ``func``."""
    return False if monotonic is None else check_bool(func, "monotonic", monotonic)


def negated(sv: ScoreVector) -> ScoreVector:
    """The score vector ``-q`` (same kind: ints stay ints, floats stay floats)."""
    if sv.kind == "float":
        return as_scores(-np.asarray(sv.raw), sv.name)
    return as_scores([-v for v in sv.raw], sv.name)


#: The symbol of the x-form, ``x = exp(-epsilon / (c * sensitivity * L))``, in ``(0, 1)``.
X = sympy.Symbol("x", positive=True)

HOOKS = {
    "exact": "_exact",  # exact sympy probabilities (a closed form)
    "rational_form": "_rational_form",  # forms in x = exp(-epsilon/(c Delta L)), every epsilon
    "numeric_rational_form": "_numeric_rational_form",  # forms in x at this epsilon only
    "mpmath": "_mp",  # mpmath numbers correct to dps digits
    "float": "_float",  # float64
    "balls": "_balls",  # rigorous python-flint arb enclosures
    "sample": "_sample",  # the mechanism's own randomized algorithm
    "density": "_loss_supremum",  # released real values: the loss as a supremum of densities
}
CAPABILITIES = tuple(HOOKS)
#: :attr:`Mechanism.output_kind`: an index of ``range(n)``, an ordered k-tuple of distinct
#: indices, a finite answer tuple (sparse vector), outputs holding real numbers.
OUTPUT_KINDS = ("selection", "top-k", "sequence", "release")
#: The view names of :meth:`Mechanism.evaluate` -> the capability each needs.
VIEWS = {"exact": "exact", "rational_form": "rational_form",
         "numeric_rational_form": "numeric_rational_form", "mp": "mpmath", "float": "float",
         "balls": "balls", "sample": "sample", "density": "density"}
_NEEDS_NUMBER = frozenset({"mpmath", "float", "balls", "sample", "numeric_rational_form"})

@lru_cache(maxsize=256)
def _float_rate_of(epsilon: sympy.Expr, c: int, sensitivity: sympy.Expr) -> float:
    """``epsilon / (c * sensitivity)`` in float64, correctly rounded from 20 digits (cached:
    the fixed cost of every float view)."""
    return float(sympy.N(epsilon / (c * sensitivity), 20))

class Mechanism(Declarations):
    """The declared protocol of a mechanism: what the analyzer, the audit, the report and
    the CLI may read.

    A mechanism is a frozen dataclass subclass whose parameters are declared fields
    (:mod:`exactdp.mechanisms.parameters`): the constructor, validation, ``repr``,
    :meth:`replace`, :meth:`with_epsilon` and the registry entry derive from them. The
    protocol:

    - parameters: :meth:`parameters` (declared), ``epsilon`` (the privacy level, a field or
      a property; None when the noise is not set by epsilon), ``sensitivity``,
      ``monotonic``, ``name``; :meth:`with_epsilon`, :meth:`replace`;
    - ``distribution(scores)``: the output distribution, whose views are computed by
      :meth:`evaluate` through the hooks;
    - :attr:`capabilities`: which views exist, computed from the hooks the class overrides
      (:data:`HOOKS`), and :meth:`capabilities_on` (narrowed to one score vector);
    - the declarations ``regular``, ``adjacency``, ``score_domain`` and :meth:`check_cost`
      (:class:`~exactdp.mechanisms.declarations.Declarations`).

    The hooks (``_exact``, ``_rational_form``, ``_numeric_rational_form``, ``_mp``,
    ``_float``, ``_balls``, ``_sample``, ``_balls_certified``) are called only by
    :meth:`evaluate` and :meth:`balls_certified`, never from outside ``mechanisms/``.

    Every mechanism with an ``epsilon`` parameter (EM, PF, RNM, the optimal mechanism)
    takes it exactly (int, Fraction, decimal string, sympy; a float by its exact binary value
    with a warning) or as a positive Symbol; ``epsilon=0`` is the uniform distribution over
    the outputs and ``epsilon=sympy.oo`` (also ``float("inf")``, ``"oo"``) the uniform
    distribution over the maximizers, in every view. ``sensitivity`` ``Delta`` > 0;
    ``monotonic`` (the score function moves all scores in one direction between neighbours,
    OpenDP's and diffprivlib's word) sets ``c = 1`` instead of 2 (McKenna & Sheldon 2020,
    section 2); ``optimize="min"`` (keyword) selects the minimum: the mechanism runs on ``-q``.

    Examples
    --------
    >>> from exactdp import Mechanism, PermuteAndFlip
    >>> isinstance(PermuteAndFlip(1), Mechanism)
    True
    >>> PermuteAndFlip(1).distribution([0, 0]).probabilities
    (1/2, 1/2)
    """

    #: What the outputs are (:data:`OUTPUT_KINDS`); a property where instances differ.
    if TYPE_CHECKING:
        @property
        def output_kind(self) -> str: ...
    else:
        output_kind = "selection"
    #: Whether the exact route builds permute-and-flip's product tree over the sorted integer
    #: gaps (its cost: :func:`exactdp.pf_cost.pf_tree_product_seconds`).
    product_tree: ClassVar[bool] = False
    #: The capabilities the class's hooks give (set for each subclass when it is defined).
    hook_capabilities: ClassVar[frozenset[str]] = frozenset()
    #: ``(fixed parameters, label)`` of each registry entry of this very class, written by
    #: :func:`~exactdp.mechanisms.registry.register` (read by :attr:`name`).
    _labels: ClassVar[tuple[tuple[Any, str], ...]] = ()

    @cached_property  # not a property: a subclass may declare a field ``name``
    def name(self) -> str:
        """The mechanism's one label, its registry entry's ``MechanismSpec.label`` (the entry
        of its class, or of the nearest registered base class, whose fixed parameters it
        has, the most specific one: ``"RNM-Laplace"``); the class name for an unregistered
        class. The CLI, the report, the tables and the messages print it.
        ``FunctionMechanism`` and ``TopK`` name their instances themselves."""
        for cls in type(self).__mro__:
            fits = [(len(fixed), label) for fixed, label in cls.__dict__.get("_labels", ())
                    if all(getattr(self, k) == v for k, v in fixed.items())]
            if fits:
                return max(fits, key=lambda fit: fit[0])[1]
        return type(self).__name__

    if TYPE_CHECKING:  # declared by each subclass: a parameter field or a property
        @property
        def epsilon(self) -> Any: ...
        @property
        def sensitivity(self) -> Any: ...
        @property
        def monotonic(self) -> bool: ...
        @property
        def optimize(self) -> str: ...

        def __init__(self, *args: Any, **kwargs: Any) -> None:  # the dataclass's, by field
            ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = {cap for cap, hook in HOOKS.items() if cls._overrides(hook)}
        if "exact" in own:
            own |= {"mpmath", "balls"}
        if "mpmath" in own:
            own.add("float")
        cls.hook_capabilities = frozenset(own)
        if "__repr__" not in cls.__dict__:  # before @dataclass, which then keeps it
            setattr(cls, "__repr__", Mechanism._repr)  # noqa: B010 - the class, not an instance

    def _repr(self) -> str:
        """The dataclass repr, but a number beyond :data:`exactdp.printing.REPR_DIGITS`
        digits (epsilon = 10**5000) in decimals with an exponent: Python cannot print it."""
        parts = [f"{f.name}={value_repr(getattr(self, f.name))}" for f in fields(self)  # type: ignore[arg-type]
                 if f.repr]
        return f"{type(self).__qualname__}({', '.join(parts)})"

    @classmethod
    def _overrides(cls, hook: str) -> bool:
        """Whether the class defines ``hook`` itself (not the base class's default)."""
        return getattr(cls, hook) is not getattr(Mechanism, hook)

    def __post_init__(self) -> None:
        func = type(self).__name__
        for p in self.parameters():
            object.__setattr__(self, p.name, p.validate(func, getattr(self, p.name)))

    # ------------------------------------------------------------------ declaration
    @classmethod
    def parameters(cls) -> tuple[Parameter, ...]:
        """The declared parameters, in constructor order (:class:`Parameter`)."""
        return declared_parameters(cls) if is_dataclass(cls) else ()

    @classmethod
    def calibrated(cls) -> bool:
        """Whether epsilon alone sets the noise: the first parameter is a required
        ``epsilon``, or the class defines :meth:`from_epsilon`."""
        if cls.from_epsilon.__func__ is not Mechanism.from_epsilon.__func__:  # type: ignore[attr-defined]
            return True
        params = cls.parameters()
        return bool(params) and params[0].name == "epsilon" and params[0].required

    @classmethod
    def from_epsilon(cls, epsilon: object, **parameters: Any) -> Mechanism:
        """The mechanism calibrated to ``epsilon``-DP, other parameters as given.

        The default passes ``epsilon`` as the ``epsilon`` parameter; a mechanism whose first
        parameter is another privacy parameter (``eta`` of the base-2 exponential mechanism)
        overrides it with the conversion.

        Raises
        ------
        TypeError
            If the class is not :meth:`calibrated`.
        """
        if not cls.calibrated():
            raise TypeError(f"{cls.__name__}: epsilon does not set the noise")
        return cls(epsilon=epsilon, **parameters)

    def parameter_values(self) -> dict[str, Any]:
        """``name -> value`` of every declared parameter."""
        return {p.name: getattr(self, p.name) for p in self.parameters()}

    def replace(self, **changes: Any) -> Mechanism:
        """The same mechanism with some parameters changed (validated again)."""
        return dataclass_replace(self, **changes)  # type: ignore[type-var]

    def with_epsilon(self, epsilon: object) -> Mechanism:
        """The same mechanism at privacy level ``epsilon``.

        Calibrated mechanisms are rebuilt by :meth:`from_epsilon` (the first parameter is
        the one epsilon sets); a mechanism with an optional ``epsilon`` parameter that does
        not set the noise (``GaussianNoisyMax``: the level to check) gets it replaced.

        Raises
        ------
        ValueError
            If the mechanism has no epsilon at all.
        """
        values = self.parameter_values()
        if self.calibrated():
            del values[self.parameters()[0].name]
            return type(self).from_epsilon(epsilon, **values)
        if "epsilon" in values:
            return self.replace(epsilon=epsilon)
        raise ValueError(f"{type(self).__name__}: no epsilon parameter")

    # ------------------------------------------------------------------ capabilities
    @property
    def capabilities(self) -> frozenset[str]:
        """The views this mechanism has (:data:`CAPABILITIES`), from the hooks its class
        overrides (a class serving several variants narrows them per instance)."""
        return self.hook_capabilities

    def capabilities_on(self, sv: ScoreVector) -> frozenset[str]:
        """:attr:`capabilities` on the scores ``sv``: no form in x for irrational scores or at
        epsilon = 0 / oo (there x is 0 or 1); no numeric view for a symbolic epsilon; at
        epsilon = 0 / oo every exact and numeric view (the exact limits)."""
        caps = set(self.capabilities)
        eps = self.epsilon
        limit = self.epsilon_limit
        if limit is not None:
            caps |= {"exact", "mpmath", "float", "balls", "sample"}
        if limit is not None or not sv.is_rational:
            caps -= {"rational_form", "numeric_rational_form"}
        if isinstance(eps, sympy.Basic) and eps.free_symbols:
            caps -= _NEEDS_NUMBER
        return frozenset(caps)

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
        return _float_rate_of(self.epsilon, self.c, self.sensitivity)

    def _mp_rate(self, dps: int) -> mpmath.mpf:
        self._float_rate()
        with mpmath.workdps(dps + 10):
            return mpmath.mpf(sympy.N(self.rate, dps + 20))

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
        rate = self._mp_rate(20)  # 20 significant digits, rounded once to float64
        with mpmath.workdps(30):
            d = [g * rate for g in sv.gaps_mp(30)]
        out = np.empty(len(d))
        for i, v in enumerate(d):
            out[i] = math.inf if v > mpmath.mpf("1e308") else float(v)
        return out

    def scaled_gaps_mp(self, sv: ScoreVector, dps: int, func: str = "evalf") -> list[mpmath.mpf]:
        """The scaled gaps in mpmath, to ``dps`` + 10 digits after the point: ``exp(-d)``
        keeps ``dps`` relative digits only if ``d`` is known to ``10^-dps`` absolutely, so a
        gap of size 1e50 is carried with 50 more significant digits (refused by
        :func:`exactdp.cost.check_gap_digits` beyond its limit, naming ``func``)."""
        wp = dps + 10 + self._gap_digits(sv, dps, func)
        rate = self._mp_rate(wp)
        with mpmath.workdps(wp):
            return [g * rate for g in sv.gaps_mp(wp)]

    def scaled_gap_groups_mp(
        self, sv: ScoreVector, dps: int, func: str = "evalf"
    ) -> tuple[list[mpmath.mpf], list[int], list[int]]:
        """:meth:`scaled_gaps_mp` grouped by value: ``(values, counts, inverse)``, output
        r's gap ``values[inverse[r]]`` (many tied outputs cost one gap)."""
        wp = dps + 10 + self._gap_digits(sv, dps, func)
        rate = self._mp_rate(wp)
        if sv.kind == "float":
            uniq, inv, cnt = np.unique(sv.floats, return_inverse=True, return_counts=True)
            with mpmath.workdps(wp):
                top = mpmath.mpf(float(uniq[-1]))
                vals = [(top - mpmath.mpf(v)) * rate for v in uniq.tolist()]
            return vals, cnt.tolist(), inv.ravel().tolist()
        values, counts, inverse = sv.distinct_gaps()
        with mpmath.workdps(wp):
            if sv.kind == "int":
                vals = [mpmath.mpf(g) * rate for g in values]
            else:
                vals = [mpmath.mpf(sympy.N(g, wp + 10)) * rate if not g.is_Rational
                        else mpmath.mpf(int(g.p)) / int(g.q) * rate for g in values]
        return vals, counts, inverse

    def _gap_digits(self, sv: ScoreVector, dps: int, func: str) -> int:
        """Decimal digits before the point of the largest scaled gap (0 below 1)."""
        top = float(np.max(sv.gaps_float))
        with mpmath.workdps(15):
            big = mpmath.mpf(top) if math.isfinite(top) else max(sv.gaps_mp(15))
            d = big * self._mp_rate(5)
            digits = max(0, math.ceil(mpmath.mag(d) * math.log10(2))) if d else 0
        return check_gap_digits(func, digits, dps)

    def x_value(self, L: int) -> sympy.Expr:
        """``exp(-epsilon/(c*Delta*L))``, the value the x-form's symbol stands for.

        Raises
        ------
        TooCostly
            When the exponent holds a logarithm and is astronomically large (epsilon =
            10**5000 log 3): sympy would expand the value to ``3**(-N)`` and never finish.
        """
        arg = -self.rate / L
        if arg.has(sympy.log) and arg.is_number and exponent_digits([sympy.exp(
                arg, evaluate=False)]) > 6:
            raise refuse(
                "rational_form", f"the value of x = exp({value_repr(arg)})",
                "a power with an astronomical exponent (epsilon holds a logarithm)",
                "exponents below 10^6", "use .evalf(dps), .evalf_balls(dps) or .to_numpy(), "
                "or a rational epsilon")
        return sympy.exp(arg)

    # ------------------------------------------------------------------ public entry
    def distribution(self, scores: object) -> Distribution:
        """The exact output distribution on ``scores`` (lazy: views computed on demand).

        Parameters
        ----------
        scores : sequence of numbers, shape (n,)
            Quality scores of the n outputs of the range.

        Returns
        -------
        Distribution
            An :class:`~exactdp.distribution.OutputDistribution` over the n inputs (a
            mechanism over another output space, such as top-k, returns its own
            :class:`~exactdp.distribution.Distribution`).

        Raises
        ------
        ValueError
            For invalid scores (see :class:`~exactdp.scores.ScoreVector`).
        """
        func = f"{type(self).__name__}.distribution"
        sv = as_scores(scores, func=func)
        check_score_domain(self.score_domain, sv, func, owner=self.name)
        return OutputDistribution(self, sv)

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

    def evaluate(self, view: str, sv: ScoreVector, *args):
        """One view of the distribution on ``sv``: ``exact``, ``rational_form``,
        ``numeric_rational_form``, ``mp`` (``dps``), ``float``, ``balls`` (``dps``) or
        ``sample`` (``size, rng``); or, for a mechanism releasing real values, ``density``
        (``neighbour``, a ScoreVector): the pair's
        :class:`~exactdp.distribution.LossSupremum`, what :func:`exactdp.privacy_loss`
        reads. The one place every view passes through: it orients the scores
        (``optimize``), answers the epsilon limits exactly (``density``: its hook does),
        refuses a view the mechanism does not have (ValueError) and otherwise calls the
        hook. ``numeric_rational_form`` is None where it does not apply."""
        sv = self.oriented(sv)
        if view == "density":
            if "density" not in self.capabilities:
                raise ValueError(self._absent(view))
            return self._loss_supremum(sv, self.oriented(args[0]))
        limit = self._limit_probabilities(sv)
        if limit is None:
            if view == "numeric_rational_form" and view not in self.capabilities:
                return None
            if view in ("mp", "float", "balls", "sample"):
                require_numeric_epsilon(self.name, self.epsilon)
            if VIEWS[view] not in self.capabilities:
                raise ValueError(self._absent(view))
            if view == "float":
                grouped = self._float_by_group(sv)
                if grouped is not None:
                    return grouped
            return getattr(self, HOOKS[VIEWS[view]])(sv, *args)
        if view == "numeric_rational_form":
            return None
        if view == "exact":
            return limit
        if view == "rational_form":
            raise ValueError(f"{type(self).__name__}: no rational form in x at epsilon = "
                             f"{self.epsilon} (x = exp(-epsilon/(c*Delta*L)) is 0 or 1); use "
                             ".probabilities")
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

    def balls_certified(self, sv: ScoreVector) -> tuple[bool, str | None]:
        """``(certified, caveat)``: whether the radii of the ``balls`` view on ``sv`` are
        proved (True for every exact route; RNM-Gaussian beyond 24 items: argued)."""
        return self._balls_certified(self.oriented(sv))

    def _absent(self, view: str) -> str:
        """The message refusing a view this mechanism does not have."""
        func = type(self).__name__
        if view in ("rational_form", "numeric_rational_form"):
            return f"{func}: no rational form in x for this mechanism"
        if view == "exact":
            return f"{func}: no closed form exists; use .evalf(dps) or .to_numpy()"
        if view == "density":
            return (f"{func}: the outputs are discrete, with exact probabilities: no density "
                    "view; use exactdp.privacy_loss")
        return f"{func}: no {view} view for this mechanism"

    # ------------------------------------------------------------------ hooks
    def _exact(self, sv: ScoreVector) -> Sequence[sympy.Expr]:
        raise NotImplementedError

    def _loss_supremum(self, sv: ScoreVector, sv2: ScoreVector) -> LossSupremum:
        raise NotImplementedError

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        raise NotImplementedError

    def _numeric_rational_form(self, sv: ScoreVector) -> RationalForm | None:
        raise NotImplementedError

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
        if not self._overrides("_float_grouped"):
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
        return [enclose(p, dps) for p in self._exact(sv)]

    def scaled_gaps_arb(self, sv: ScoreVector, dps: int, func: str = "evalf_balls") -> list:
        """Rigorous balls of the scaled gaps ``rate*(q* - q_r)`` (:func:`exactdp.exact.enclose`).

        Each has about ``dps`` correct digits plus as many as its integer part has, so that
        ``exp(-d)`` keeps ``dps`` relative digits.
        """
        balls, _, inverse = self.scaled_gap_groups_arb(sv, dps, func)
        return [balls[k] for k in inverse]

    def scaled_gap_groups_arb(
        self, sv: ScoreVector, dps: int, func: str = "evalf_balls"
    ) -> tuple[list, list[int], list[int]]:
        """:meth:`scaled_gaps_arb` grouped by exact value: ``(balls, counts, inverse)``,
        output r's ball ``balls[inverse[r]]``. Integer scores need no sympy: the rate is
        enclosed once and multiplied by each distinct integer gap (arb)."""
        if self.epsilon.free_symbols:
            raise ValueError(
                f"{type(self).__name__}: epsilon is symbolic ({self.epsilon}); balls need a "
                "number"
            )
        extra = self._gap_digits(sv, dps, func)
        values, counts, inverse = sv.distinct_gaps()
        if sv.kind == "int":
            rate = enclose(self.rate, dps + extra + 5)
            bits = max(int(g).bit_length() for g in values)  # flint rounds to its context
            with flint_prec(dps_to_prec(dps + extra + 5) + bits + 20):
                return [rate * int(g) for g in values], counts, inverse
        return [enclose(self.rate * g, dps + extra + 5) for g in values], counts, inverse

    def _balls_certified(self, sv: ScoreVector) -> tuple[bool, str | None]:
        """``(certified, caveat)`` of :meth:`_balls` on ``sv`` (True: radii proved)."""
        return True, None

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError
