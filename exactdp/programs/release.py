"""Programs that release real values (``@program(output="release")``): the release protocol.

A program declared ``output="release"`` may return, inside its output, real values that
are affine in its continuous noises: ``a + laplace(b)``, a gap ``a + nu - (T + rho)``, the
winner's noisy value ``values[argmax(values)]``, a fresh noisy value, a sum of noises
(:mod:`exactdp.programs.release_density` says which are exact). The output's *pattern* is
its discrete skeleton with each released value replaced by the placeholder
:data:`~exactdp.programs.runs.REAL`; the symbolic runs are those of
:func:`~exactdp.programs.trace.enumerate_runs` with the released values recorded (each run
returns one pattern), so:

- a pattern's probability is the sum of its runs' probabilities, by the program integrator
  (:func:`~exactdp.programs.integrate.run_probability`): the released values do not enter
  the runs' events, they are marginalised;
- ``density(output)`` is exact at rational released values
  (:func:`~exactdp.programs.release_density.run_density`, summed over the pattern's runs);
- ``cdf(pattern, i, v) = 1 - Pr[R_i > v, pattern] / Pr[pattern]``: the comparison ``R_i >
  v`` is added to each run of the pattern and the integrator does the rest (exact where
  the runs stay in its exact class);
- ``sample`` runs the program itself with random draws.

:class:`ReleaseProgramMechanism` is the mechanism (output kind ``"release"``, capabilities
``"density"`` and ``"sample"``): :func:`exactdp.privacy_loss` and :func:`exactdp.check_dp`
read its loss through the ``"density"`` view (:mod:`exactdp.programs.release_loss`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache, partial
from typing import Any

import flint
import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_dps, check_size
from ..cost import MAX_SAMPLE_DRAWS, SECONDS_LIMIT, as_caller, check_seconds, fmt_size, refuse
from ..distribution import LossSupremum
from ..exact import arb_mid_to_mpf, enclose
from ..exact.piecewise_exp import Value, value_expr
from ..exact.signs import compare
from ..mechanisms.release_views import ReleasedValues
from ..numbers import exact_number
from ..rng import as_generator
from ..scores import ScoreVector, as_scores
from . import release_patterns
from .display import distribution_html, distribution_latex, distribution_repr
from .integrate import run_cost, run_probability, runs_cost, runs_probability
from .mechanism import ProgramMechanism
from .release_bound import FLOOR, BelowFloor
from .release_classes import representatives
from .release_cost import loss_seconds, max_pairs_seconds, max_patterns_seconds
from .release_density import run_density
from .release_factor import (
    product_estimate,
    product_hint,
    product_supremum,
    release_upper_bound,
    split_pair,
)
from .release_law import pattern_law
from .release_loss import directional_supremum, loss_supremum
from .release_loss_price import pair_seconds
from .release_max import MAX_CHEAPER
from .release_patterns import match, real_count, released_rational, same_pattern
from .release_repeat import known_below, pair_class, record_below
from .release_sampling import release_draws
from .release_sup import magnitude
from .runs import Budget, Constraint, Estimate, Linear, Run
from .structure import structural_trace
from .trace import CHEAPER, Trace, decode, enumerate_runs
from .values import ProgramError

#: The loss supremum a caller is about to compute while the runs are enumerated (its name;
#: None: none): the probes refuse an estimate past the limit (:func:`loss_seconds`).
_LOSS: ContextVar[str | None] = ContextVar("release_loss", default=None)
#: The probabilities a caller is about to integrate (its name; None: none): the probes
#: refuse their integrals' estimated cost.
_INTEGRALS: ContextVar[str | None] = ContextVar("release_integrals", default=None)


def _check_integrals(func: str, estimate: Estimate) -> None:
    check_seconds(func, f"the exact integrals of about {fmt_size(estimate.runs)} runs",
                  estimate.seconds, "use fewer queries, or a cut-off")


def _check_loss(func: str, estimate: Estimate, maximum: bool = False) -> None:
    check_seconds(func, f"the loss supremum over about {fmt_size(estimate.runs)} runs' "
                  "patterns" + " (a released maximum)" * maximum, estimate.seconds,
                  MAX_CHEAPER if maximum else CHEAPER)


@lru_cache(maxsize=256)
def release_trace(mechanism: ProgramMechanism, answers: tuple) -> Trace:
    """The runs of a release program on ``answers``, with their released values (cached; a
    library program's from its tree for this length, :func:`~exactdp.programs.structure.
    structural_trace`). Inside a loss supremum (:data:`_LOSS`) the enumeration's probes
    refuse a loss estimated past :data:`exactdp.cost.SECONDS_LIMIT` (:func:`loss_seconds`)
    after :data:`~exactdp.programs.trace.PROBE_AT` runs."""
    prog = mechanism.program
    call = prog.bind(answers, mechanism.epsilon, mechanism.arguments)
    func = _LOSS.get()
    budget = None if func is None else Budget(loss_seconds, partial(_check_loss, func))
    if budget is None and (func := _INTEGRALS.get()) is not None:
        budget = Budget(run_cost, partial(_check_integrals, func))
    trace = structural_trace(mechanism, answers, budget, f"{prog.name}.distribution")
    if trace is not None:  # a library program: its tree for this length, answers substituted
        return trace
    return enumerate_runs(call, prog.name, prog.filename, func=f"{prog.name}.distribution",
                          release=True, budget=budget)


@dataclass(frozen=True)
class ReleaseProgramMechanism(ProgramMechanism):
    """A program declared ``@program(output="release")`` at given parameters: output kind
    ``"release"``, capabilities ``"density"`` (the privacy loss as a supremum of the log
    density ratio) and ``"sample"``; ``distribution(q)`` is a :class:`ProgramRelease`.

    Examples
    --------
    The Laplace mechanism (Dwork, McSherry, Nissim and Smith, TCC 2006), a library program:

    >>> import exactdp
    >>> from exactdp.programs import library_release as R
    >>> m = R.laplace_mechanism(epsilon=1)
    >>> m, m.output_kind
    (laplace_mechanism(epsilon=1), 'release')
    >>> exactdp.privacy_loss(m, [3], [4]).loss
    1
    """

    def __repr__(self) -> str:  # the program's call, as for every program
        return ProgramMechanism.__repr__(self)

    @property
    def capabilities(self) -> frozenset[str]:
        """``"density"`` and ``"sample"``."""
        return frozenset({"density", "sample"})

    def capabilities_on(self, sv: ScoreVector) -> frozenset[str]:
        """:attr:`capabilities`; no sampler for a symbolic epsilon."""
        return frozenset({"density"}) if self.epsilon.free_symbols else self.capabilities

    def distribution(self, scores: object) -> ProgramRelease:  # type: ignore[override]
        """The distribution on the answers ``scores``: patterns, their exact probabilities,
        ``density(output)``, ``cdf(pattern, i, v)`` and the sampler (lazy).

        Raises
        ------
        ValueError
            Invalid answers, answers outside the declared domain, irrational answers.
        """
        return ProgramRelease(self, super().distribution(scores).scores)

    def trace(self, sv: ScoreVector) -> Trace:
        """The runs of the program on ``sv`` with their released values."""
        return release_trace(self, tuple(sv.exact))

    def output_keys(self, sv: ScoreVector) -> tuple[Hashable, ...]:
        """The canonical keys of the patterns, in canonical order."""
        return tuple(sorted(self.trace(sv).outputs))  # type: ignore[type-var]

    def check_cost(self, func: str, vectors: Sequence[ScoreVector]) -> None:
        """Refuse (:class:`~exactdp.cost.TooCostly`) an analysis of ``vectors`` whose
        integrals are estimated above :data:`exactdp.cost.SECONDS_LIMIT`."""
        with as_caller(func):
            runs = self.trace(vectors[0]).runs
            seconds = sum(run_cost(r) for r in runs) * len(vectors)
        check_seconds(func, f"an exact analysis of {len(vectors)} answer vectors "
                      f"({len(runs)} runs each)", seconds,
                      "use fewer queries, or a cut-off (stop after c answers)")

    def _loss_supremum(self, sv: ScoreVector, sv2: ScoreVector) -> LossSupremum:
        func = f"{self.name}.privacy_loss"
        pair = _loss_distribution(self, tuple(sv.exact)), _loss_distribution(self, tuple(sv2.exact))
        token = _LOSS.set(func)
        try:  # refused at the probes, or here when the runs were enumerated before
            self.trace(sv), self.trace(sv2)
            parts = split_pair(*pair)  # two independent parts: the loss reads the parts
            _check_loss(func, *((product_estimate(parts),) if parts else
                                self._estimate(sv, sv2)))
        finally:
            _LOSS.reset(token)
        with magnitude((*sv.values, *sv2.values)):  # huge answers: wider balls need bits
            found = product_supremum(*pair, directional_supremum) if parts else None
            if found is not None:
                return found
            if parts:  # (a part infinite, bracketed or refused) the full route
                _check_loss(func, *self._estimate(sv, sv2))
            return loss_supremum(*representatives(*pair))

    def _estimate(self, sv: ScoreVector, sv2: ScoreVector) -> tuple[Estimate, bool]:
        """The pair's loss estimate (:func:`pair_seconds`; a maximum at ``max_loss``'s price)."""
        runs, runs2 = self.trace(sv).runs, self.trace(sv2).runs
        maxima, other = max_patterns_seconds(runs), max_pairs_seconds(runs, runs2)
        pair = [_loss_distribution(self, tuple(v.exact)) for v in (sv, sv2)]
        seconds = pair_seconds(runs, runs2, pair) + max(maxima, other)
        return Estimate(len(runs), seconds), bool(maxima or other)

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        return ProgramRelease(self, sv).sample_index(size, rng)


@lru_cache(maxsize=256)
def _loss_estimate(mechanism: ReleaseProgramMechanism, answers: tuple) -> Estimate:
    """:func:`loss_seconds` of every run on ``answers`` (cached: a suite row reads one
    vector against each of its neighbours)."""
    runs = mechanism.trace(as_scores(list(answers))).runs
    return Estimate(len(runs), sum(loss_seconds(r) for r in runs) + max_patterns_seconds(runs))


@lru_cache(maxsize=256)
def _loss_distribution(mechanism: ReleaseProgramMechanism, answers: tuple) -> ProgramRelease:
    """The distribution the loss reads on ``answers`` (cached: its pattern probabilities
    are computed once for every neighbour of the vector)."""
    return mechanism.distribution(list(answers))


@dataclass(frozen=True, eq=False)
class ProgramRelease(ReleasedValues):
    """The distribution of a release program on one vector of answers (the release
    protocol, :class:`~exactdp.distribution.ReleaseDistribution`).

    ``outputs`` are the patterns (outputs with :data:`~exactdp.programs.runs.REAL` where a
    value is released) in canonical order; ``probabilities`` their exact probabilities;
    ``density(output)`` the exact density of an output (Lebesgue measure on its released
    values, times the probability of its discrete part); ``cdf(pattern, i, v)`` the exact
    conditional CDF of its ``i``-th released value; ``sample`` runs the program.

    Examples
    --------
    The density of ``3 + Lap(1)`` is ``exp(-|v - 3|)/2``:

    >>> from exactdp.programs import library_release as R
    >>> d = R.laplace_mechanism(epsilon=1).distribution([3])
    >>> d.outputs, d.density(3), d.density(4)
    ((REAL,), 1/2, exp(-1)/2)
    """

    mechanism: ReleaseProgramMechanism
    scores: ScoreVector

    @property
    def n(self) -> int:
        """The number of answers."""
        return self.scores.n

    @property
    def capabilities(self) -> frozenset[str]:
        """The mechanism's, on these answers."""
        return self.mechanism.capabilities_on(self.scores)

    @cached_property
    def keys(self) -> tuple[Hashable, ...]:
        """The patterns' canonical keys."""
        return self.mechanism.output_keys(self.scores)

    @cached_property
    def outputs(self) -> tuple[Any, ...]:
        """The patterns, in canonical order."""
        return tuple(decode(k) for k in self.keys)

    def __len__(self) -> int:
        return len(self.keys)

    @cached_property
    def runs(self) -> dict[Hashable, list[Run]]:
        """The runs of each pattern key."""
        out: dict[Hashable, list[Run]] = {k: [] for k in self.keys}
        for run in self.mechanism.trace(self.scores).runs:
            out[run.output].append(run)
        return out

    def index(self, pattern: object) -> int:
        """Position of ``pattern`` (with :data:`REAL` placeholders) in :attr:`outputs`.

        Raises
        ------
        ValueError
            Not a pattern of the program on these answers.
        """
        for i, p in enumerate(self.outputs):
            if same_pattern(p, pattern):
                return i
        raise argument_error(self.mechanism.name, "pattern", "one of .outputs", pattern)

    def split_output(self, output: object) -> tuple[int, tuple[Fraction, ...]]:
        """``(position of its pattern, its released values as Fractions)`` of an output
        (a discrete pattern matching exactly is preferred to one releasing a value; a float
        value is taken exactly with an :class:`~exactdp.numbers.ExactConversionWarning`)."""
        func = f"{self.mechanism.name}.density"
        i, vals = self._find_output(output, func)
        return i, tuple(released_rational(func, v) for v in vals)

    def _find_output(self, output: object, func: str) -> tuple[int, list[Any]]:
        """``(position of its pattern, its released values as given)`` of an output."""
        found = []
        for i, p in enumerate(self.outputs):
            vals: list[Any] = []
            if match(p, output, vals):
                found.append((len(vals), i, vals))
        if not found:
            raise argument_error(func, "output", "an output of one of the patterns .outputs",
                                 output)
        _, i, vals = min(found, key=lambda t: t[0])
        return i, vals

    def _check_cost(self, func: str, key: Hashable | None = None) -> None:
        """Refuse the integrals of every run, or of the runs of the pattern ``key``,
        estimated past the limit."""
        token = _INTEGRALS.set(func)
        try:  # refused at a selection or the probes, or here once the runs exist
            every = self.mechanism.trace(self.scores).runs
        finally:
            _INTEGRALS.reset(token)
        runs = every if key is None else self.runs[key]
        check_seconds(func, f"the exact integrals of {len(runs)} runs",
                      runs_cost(runs, SECONDS_LIMIT), "use fewer queries, or a cut-off")

    @cached_property
    def probabilities(self) -> tuple[sympy.Expr, ...]:
        """Exact probabilities of the patterns, in :attr:`outputs` order."""
        self._check_cost(f"{self.mechanism.name}.probabilities")
        done = self._probabilities
        for k in self.keys:
            if k not in done:
                done[k] = runs_probability(self.runs[k])
        return tuple(done[k] for k in self.keys)

    def pmf(self, pattern: object) -> sympy.Expr:
        """The exact probability of one pattern."""
        return self._probability(self.keys[self.index(pattern)])

    @cached_property
    def _probabilities(self) -> dict[Hashable, sympy.Expr]:
        """The patterns' probabilities computed so far, by key."""
        return {}

    def _probability(self, key: Hashable, check: bool = True) -> sympy.Expr:
        """The exact probability of the pattern ``key``, computed once, its runs' cost
        checked first unless ``check`` is False (:meth:`loss_hint`, whose patterns release
        no value: the loss of a pair reads only those, and a search over pairs reads them
        again for each neighbour and for its order)."""
        done = self._probabilities
        if key not in done:
            if check:
                self._check_cost(f"{self.mechanism.name}.probabilities", key)
            done[key] = runs_probability(self.runs[key])
        return done[key]

    def evalf_balls(self, dps: int = 30) -> tuple[flint.arb, ...]:
        """Rigorous arb enclosures of the pattern probabilities, in :attr:`outputs` order,
        each with ``dps`` correct digits (:func:`~exactdp.exact.enclose` of the exact
        probabilities; an exact 0 is the exact ball 0).

        Raises
        ------
        ValueError
            If ``dps`` is not a positive integer, epsilon is symbolic, or a probability
            cannot be enclosed to ``dps`` digits (never rounded silently).
        """
        func = f"{self.mechanism.name}.evalf"
        dps = check_dps(func, dps)
        probs = self.probabilities
        if any(p.free_symbols for p in probs):
            raise ValueError(f"{func}: epsilon is symbolic ({self.mechanism.epsilon}); numeric "
                             "views need a number (mechanism.with_epsilon(...))")
        target = math.ceil(dps * math.log2(10))
        balls = tuple(enclose(p, dps) for p in probs)
        for p, b in zip(probs, balls, strict=True):
            if not (b.is_exact() and b.is_zero()) and b.rel_accuracy_bits() < target:
                raise ValueError(f"{func}: the probability {str(p)[:60]} cannot be enclosed "
                                 f"to {dps} digits")
        return balls

    def evalf(self, dps: int = 30) -> tuple[mpmath.mpf, ...]:
        """The pattern probabilities as mpmath numbers correct to ``dps`` significant digits,
        in :attr:`outputs` order (the midpoints of :meth:`evalf_balls`), as every
        distribution's ``evalf``."""
        balls = self.evalf_balls(dps)
        with mpmath.workdps(dps):
            return tuple(+arb_mid_to_mpf(b) for b in balls)

    def to_numpy(self) -> np.ndarray:
        """The pattern probabilities in float64."""
        out = np.array([float(sympy.N(p, 20)) for p in self.probabilities])
        out.setflags(write=False)
        return out

    def loss_seconds(self, func: str) -> float:
        """Estimated seconds of one loss supremum against a neighbour (:func:`loss_seconds`
        of the runs; their enumeration refuses past the limit naming ``func``)."""
        token = _LOSS.set(func)
        try:
            return _loss_estimate(self.mechanism, tuple(self.scores.exact)).seconds
        finally:
            _LOSS.reset(token)

    def density(self, output: object) -> sympy.Expr:
        """The exact density of one output at rational released values: the released
        values' joint density (Lebesgue measure) times the probability of the rest of its
        pattern (an output without released values: its probability).

        Raises
        ------
        ValueError
            Not an output, an irrational value, or a run outside the exact class of
            released values (:mod:`~exactdp.programs.release_density`: one line naming
            the line).
        """
        i, values = self.split_output(output)
        self._check_cost(f"{self.mechanism.name}.density")
        name = self.mechanism.name
        exprs: list[sympy.Expr] = []
        total: Value = {}
        unit = None
        for run in self.runs[self.keys[i]]:
            where = run.draws[0].line if run.draws else name
            try:
                lam, v = run_density(run, values, where)
            except ValueError as exc:
                raise ValueError(f"{name}.density: {exc}") from None
            if run.weight == 1 and unit in (None, lam):
                unit = lam
                for key, q in v.items():
                    total[key] = total.get(key, 0) + q
            else:
                exprs.append(sympy.sympify(run.weight) * value_expr(v, lam))
        total = {k: q for k, q in total.items() if q}
        head = value_expr(total, unit) if unit is not None else sympy.Integer(0)
        return sympy.Add(head, *exprs)

    def cdf(self, pattern: object, i: int, v: object) -> sympy.Expr:
        """``Pr[R_i <= v | pattern]``: the exact conditional CDF of the ``i``-th released
        value (in the order of the :data:`REAL` placeholders) given the pattern.

        Raises
        ------
        ValueError
            ``pattern`` not a pattern, ``i`` not one of its released values, ``v`` not
            rational, or a run outside the integrator's exact class once ``R_i > v`` is
            added.
        """
        func = f"{self.mechanism.name}.cdf"
        k = self.index(pattern)
        count = real_count(self.outputs[k])
        if not (isinstance(i, int) and not isinstance(i, bool) and 0 <= i < count):
            raise argument_error(func, "i", f"a released value of the pattern (0..{count - 1})",
                                 i)
        x = sympy.Rational(*released_rational(func, v).as_integer_ratio())
        over = []
        for run in self.runs[self.keys[k]]:
            r = run.released[i]
            c = Constraint(Linear(r.constant - x, r.coefficients), ">", f"{func}")
            over.append(run_probability(Run(run.draws, (*run.constraints, c), run.weight,
                                            run.output, run.released)))
        return 1 - sympy.Add(*over) / self.probabilities[k]

    def cdf_float(self, pattern: object, i: int, v: np.ndarray) -> np.ndarray:
        """:meth:`cdf` in float64 at the points ``v``: the exact law on its cells
        (:func:`~exactdp.programs.release_law.pattern_law`) summed in floats, one vectorised
        sum a cell; with a coin in the pattern's runs, the exact CDF at each float."""
        pts = np.asarray(v, dtype=np.float64)
        key = self.keys[self.index(pattern)]
        if all(r.weight == 1 for r in self.runs[key]):
            return pattern_law(self, key, i, f"{self.mechanism.name}.cdf_float").floats(1, pts)
        out = [float(sympy.N(self.cdf(pattern, i, Fraction(float(x))), 20)) for x in pts.ravel()]
        return np.clip(np.array(out), 0.0, 1.0).reshape(pts.shape)

    def loss_supremum(self, neighbour: object) -> LossSupremum:
        """The exact privacy loss against the answers ``neighbour`` (the mechanism's
        ``"density"`` view, what :func:`exactdp.privacy_loss` reads)."""
        func = f"{self.mechanism.name}.loss_supremum"
        return self.mechanism.evaluate("density", self.scores,
                                       as_scores(neighbour, "neighbour", func))

    def loss_at_least(self, neighbour: object, floor: object) -> LossSupremum | None:
        """:meth:`loss_supremum` against ``neighbour`` where it is at least ``floor``, else
        None (the loss is strictly below ``floor``), computing only the patterns whose
        translation bound (:func:`~exactdp.programs.release_bound.pattern_bound`) reaches
        ``floor``: a pattern bounded below it cannot attain a loss of at least ``floor``,
        so where the loss reaches ``floor`` it is the same exact value, witness and
        attainment as :meth:`loss_supremum`'s. A search over pairs passes the worst loss
        it has found.

        Examples
        --------
        >>> from exactdp.programs import library_release as R
        >>> d = R.gap_svt(epsilon=1, threshold=1).distribution([1, 1])
        >>> d.loss_at_least([2, 0], 10) is None, d.loss_at_least([2, 0], 0).loss
        (True, log(11*exp(3/2)/(-exp(1/2) + 12*E)))
        """
        low = exact_number(floor, "floor", func=f"{self.mechanism.name}.loss_at_least")
        cls = pair_class(self, self.mechanism.distribution(neighbour))
        if known_below(cls, low):  # a renumbering of a pair proved below a lower floor
            return None
        token = FLOOR.set(low)
        try:
            sup = self.loss_supremum(neighbour)
        except BelowFloor:
            record_below(cls, low)
            return None
        finally:
            FLOOR.reset(token)
        top = sup.loss if sup.interval is None else sympy.Rational(sup.interval[1])
        if compare(top, low) < 0:
            record_below(cls, low)
            return None
        return sup

    def loss_hint(self, neighbour: object) -> float | None:
        """A cheap lower bound on the loss against ``neighbour``, a float to order a search
        over pairs (never a verdict): :func:`~exactdp.programs.release_patterns.
        discrete_hint`, the patterns that release no value (``tests/programs/
        test_release.py``: gap_svt on (1, 1) vs (2, 0), 0.034387 against the loss 0.464855).
        """
        other = as_scores(neighbour, "neighbour", f"{self.mechanism.name}.loss_hint")
        mine, theirs = (_loss_distribution(self.mechanism, tuple(v.exact))
                        for v in (self.scores, other))
        parts = split_pair(mine, theirs)
        if parts is not None:  # two independent parts: the same patterns, from the parts
            return product_hint(parts)
        return release_patterns.discrete_hint(mine, theirs,
                                             lambda d, k: d._probability(k, False))

    def loss_upper_bound(self, neighbour: object) -> sympy.Expr | None:
        """A rigorous upper bound on the loss against the answers ``neighbour``, cheap (no
        integral): the largest over the patterns of the best translation of the noises
        (:func:`~exactdp.programs.release_bound.pattern_bound`; ``oo`` for a pattern
        reached under one input only; None where no translation bounds a pattern). A
        screen for searches over pairs: a pair whose bound is at most a loss already found
        cannot exceed it.

        Examples
        --------
        >>> from exactdp.programs import library_release as R
        >>> R.svt3(epsilon=1, threshold=1).distribution([0, 0, 0]).loss_upper_bound([1, 1, 1])
        3/2
        """
        func = f"{self.mechanism.name}.loss_upper_bound"
        with as_caller(func):
            other = self.mechanism.distribution(neighbour)
        return release_upper_bound(func, self, other)

    def sample(self, size: int | None = None, rng: Any = None) -> Any:
        """Run the program with random draws: one output (``size=None``), or an object
        array of ``size`` outputs (tuples with floats where values are released)."""
        gen = as_generator(rng, "sample")
        total = 1 if size is None else int(np.prod(check_size("sample", size)))
        if total > MAX_SAMPLE_DRAWS:
            raise refuse("sample", f"size = {total:.3g} runs of {self.mechanism.name}",
                         f"{total:.3g} runs", f"{MAX_SAMPLE_DRAWS:.0e} per call",
                         "call sample() in a loop over smaller sizes")
        draws = release_draws(self.mechanism, self.scores, total, gen)
        if size is None:
            return draws[0][2]
        out = np.empty(total, dtype=object)
        for i, d in enumerate(draws):
            out[i] = d[2]
        return out

    def split(self, draws: object) -> tuple[np.ndarray, np.ndarray]:
        """Outputs of :meth:`sample` as pattern positions (shape (size,)) and released
        values (shape (size, k), NaN padded; k the most values of a pattern)."""
        func = f"{self.mechanism.name}.split"
        rows = [self._find_output(o, func) for o in list(draws)]  # type: ignore[call-overload]
        k = max((real_count(p) for p in self.outputs), default=0)
        values = np.full((len(rows), k), np.nan)
        for r, (_, vals) in enumerate(rows):  # a float view: sampled floats stay floats
            values[r, :len(vals)] = [float(x) if isinstance(x, (float, np.floating))
                                     else float(released_rational(func, x)) for x in vals]
        return np.array([i for i, _ in rows], dtype=np.int64), values

    def sample_index(self, size: int, rng: Any = None) -> np.ndarray:
        """Draws of the program as positions of their patterns, shape (size,)."""
        pos = {k: i for i, k in enumerate(self.keys)}
        out = []
        for key, _, value in release_draws(self.mechanism, self.scores, size,
                                           as_generator(rng, "sample")):
            if key not in pos:
                raise ProgramError(f"{self.mechanism.name}: the sampler returned {value!r}, "
                                   "whose pattern no run reaches")
            out.append(pos[key])
        return np.array(out, dtype=np.int64)

    def __repr__(self) -> str:  # the answer first (programs.display)
        return distribution_repr(self, "patterns")

    def _repr_html_(self) -> str:
        return distribution_html(self, "patterns")

    def _repr_latex_(self) -> str:
        return distribution_latex(self, "patterns")

