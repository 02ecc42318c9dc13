"""The mechanism a program builds: the declared protocol over its enumerated runs.

:class:`ProgramMechanism` is a :class:`~exactdp.mechanisms.base.Mechanism` like any other:
its hooks give the views (``_exact``: the sum over each output's runs of
:func:`exactdp.programs.integrate.run_probability`; the mpmath, float and ball views derived
from it by the base class; ``_sample``: the program itself run with random draws, the
literal algorithm). :class:`ProgramDistribution` is its distribution on one vector of
answers, over the program's outputs (the indices for ``output="selection"``, the reached
outputs in canonical order for ``output="sequence"``).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial
from typing import Any, Protocol

import numpy as np
import sympy

from .._validate import argument_error, check_choice, check_size
from ..cost import MAX_SAMPLE_DRAWS, as_caller, check_exact_n, check_seconds, fmt_size, refuse
from ..distribution import OutputDistribution
from ..exact.arb import to_arb
from ..exact.piecewise_exp import ONE, sums_to_one, value_expr
from ..mechanisms.base import Mechanism
from ..mechanisms.parameters import parameter
from ..progress import progress_bar
from ..rational_form import RationalForm
from ..rng import as_generator
from ..scores import ScoreVector, as_scores
from ..xform import DENSE_DEGREE_LIMIT
from . import fraction_form as forms
from .declared import program_answers, program_epsilon
from .display import distribution_html, distribution_repr
from .integrate import run_cost, run_probability, run_terms
from .runs import Run
from .sampler import sample_outputs
from .structure import traced_runs
from .trace import ANSWERS_ROUTE, CHEAPER, Budget, Estimate, Trace, canonical, decode, first_run
from .values import ProgramError


class BoundProgram(Protocol):
    """What a mechanism reads of its program (:class:`exactdp.programs.Program`)."""

    name: str
    filename: str
    declaration: Any
    func: Any  # the decorated Python function

    def bind(self, q: tuple, epsilon: Any, arguments: tuple[tuple[str, Any], ...],
             sensitivity: Any = None) -> Callable[[], Any]: ...


@dataclass(frozen=True)
class OutputValues:
    """Each output's probability as one closed form ``sum q lam**e exp(lam W)``
    (``{(e, W): q}``, Fractions), summed over its runs before any sympy expression exists.

    Attributes
    ----------
    unit : sympy.Expr
        ``lam``, common to every run.
    values : tuple of dict
        In ``output_keys`` order."""

    unit: sympy.Expr
    values: tuple[dict, ...]


@lru_cache(maxsize=1024)  # an exhaustive search at m = 6 reads 729 vectors twice
def output_values(mechanism: ProgramMechanism, answers: tuple) -> OutputValues | None:
    """The :class:`OutputValues` of the program on ``answers``; None when a run has a coin
    weight that is not a sum ``q exp(c lam)`` (:func:`~exactdp.programs.fraction_form.
    weight_value`: a rational coin multiplies the run's terms), a denominator (discrete,
    Gumbel noise) or another unit (then: sympy sums). A run without draws (a constant)
    fits every unit."""
    trace = program_trace(mechanism, answers)
    unit = None
    weighted = []
    priced = (mechanism, answers) in _PRICED  # in an analysis, with its own bar
    with progress_bar(len(trace.runs), f"{mechanism.name}.distribution", unit="run",
                      seconds=None if priced else trace_seconds(mechanism, answers)) as bar:
        for run in trace.runs:  # a bar on a terminal at once past 2 s estimated
            terms = run_terms(run)
            if terms is None or terms.denominator != ONE:
                return None
            if not forms.is_constant(terms.numerator) or unit is None and run.draws:
                if unit is not None and terms.unit != unit:
                    return None
                unit = terms.unit
            if unit is not None and forms.weight_value(run.weight, unit) is None:
                return None  # a coin of another shape: sympy sums
            weighted.append((run, terms.numerator))
            bar.update()
    unit = sympy.Integer(1) if unit is None else unit  # no draw at all: any unit
    sums = forms.weighted_sums(weighted, unit)
    if sums is None:
        return None
    keys = mechanism.output_keys(as_scores(list(answers)))
    return OutputValues(unit, tuple(sums.get(k, {}) for k in keys))


@lru_cache(maxsize=1024)
def trace_seconds(mechanism: ProgramMechanism, answers: tuple) -> float:
    """The integrator's estimated seconds for every run of the program on ``answers``.

    Raises
    ------
    ProgramError
        A run outside the exact class (the integrator's one-line reason, naming the line,
        prefixed with the program's name), before any integral."""
    runs = program_trace(mechanism, answers).runs
    return sum(_run_seconds(mechanism.name, r) for r in runs)


#: Seconds per draw and comparison of a run to enumerate it at the numeric epsilon and a
#: symbolic one: about 90 microseconds each (SVT1, 14 and 20 queries, docs/benchmarks.md).
ENUMERATION_SECONDS = 2e-4


def _run_seconds(name: str, run: Run) -> float:
    """The estimated seconds of one run (:func:`~exactdp.programs.integrate.run_cost` and
    :data:`ENUMERATION_SECONDS`); the integrator's exact-class refusal named by program."""
    try:
        return run_cost(run) + ENUMERATION_SECONDS * (len(run.draws) + len(run.constraints))
    except ProgramError:
        raise
    except ValueError as exc:  # the integrator's exact-class check
        raise ProgramError(f"{name}: {exc}") from None


#: The integration a caller is about to do while the runs are enumerated: its name and the
#: number of answer vectors (set by :func:`check_probability_cost` and
#: :meth:`ProgramMechanism.check_cost`; None: only the outputs are needed, nothing is
#: integrated). The probes of the enumeration then refuse an estimate past the limit.
_INTEGRATION: ContextVar[tuple[str, int] | None] = ContextVar("integration", default=None)

def _check_integration(func: str, copies: int, n: int, runs: str, seconds: float) -> None:
    """Refuse ``copies`` answer vectors of ``n`` answers, ``runs`` runs each, estimated
    at ``seconds`` in all, past :data:`exactdp.cost.SECONDS_LIMIT`."""
    if copies == 1:
        check_seconds(func, f"the exact probabilities of {runs} runs", seconds, CHEAPER)
    else:  # a pair (privacy_loss) has its one neighbour already
        more = ", or pass the one neighbour to check (neighbour=...)" if copies > 2 else ""
        check_seconds(func, f"an exact analysis of {copies} answer vectors of {n} answers "
                      f"({runs} runs each)", seconds, f"{CHEAPER}{more}")


def _budget(name: str, n: int) -> Budget | None:
    """The probes' check of the integration the caller is about to do (:data:`_INTEGRATION`),
    or None when it integrates nothing."""
    caller = _INTEGRATION.get()
    if caller is None:
        return None
    func, copies = caller

    def check(estimate: Estimate) -> None:
        _check_integration(func, copies, n, f"about {fmt_size(estimate.runs)}",
                           estimate.seconds * copies)

    return Budget(partial(_run_seconds, name), check)


#: Answer vectors an analysis priced as a whole (:meth:`ProgramMechanism.check_cost`): their
#: probabilities are not priced again run by run (pricing 729 vectors' runs cost more CPU
#: than integrating them). Cleared past 10**5 entries.
_PRICED: dict[tuple, None] = {}


def check_probability_cost(mechanism: ProgramMechanism, answers: tuple) -> None:
    """Refuse, before any integral, probabilities estimated above
    :data:`exactdp.cost.SECONDS_LIMIT` (each run's integration cost; past
    :data:`~exactdp.programs.trace.PROBE_AT` runs, the probes' estimate)."""
    if (mechanism, answers) in _PRICED:  # priced with its analysis (check_cost)
        return
    func = f"{mechanism.name}.probabilities"
    token = _INTEGRATION.set((func, 1))
    try:
        runs = len(program_trace(mechanism, answers).runs)
    finally:
        _INTEGRATION.reset(token)
    _check_integration(func, 1, len(answers), str(runs), trace_seconds(mechanism, answers))


@lru_cache(maxsize=1024)
def _obstruction(mechanism: ProgramMechanism, answers: tuple) -> str | None:
    """:meth:`ProgramMechanism.rational_obstruction` (cached)."""
    if not all(a.is_Rational for a in answers):
        return "irrational answers"
    try:
        check_probability_cost(mechanism, answers)
        ov = output_values(mechanism, answers)
    except ValueError as exc:
        return f"its closed form is not computed ({exc})"
    if ov is not None and any(e for v in ov.values for e, _ in v):  # needs no symbolic trace
        return "an epsilon*exp(epsilon*w) term survives (equal noise rates meet)"
    symbolic = mechanism if mechanism.epsilon.free_symbols else mechanism.with_epsilon(_SYMBOL)
    try:  # a coin weight valid at this epsilon only (1 - epsilon) refuses the symbolic trace
        trace = program_trace(symbolic, answers)
    except ValueError as exc:
        return f"its trace at a symbolic epsilon is refused ({exc})"
    for d in (d for run in trace.runs for d in run.draws):
        t = d.scale * symbolic.epsilon
        if not (t.is_Rational or sympy.cancel(t).is_Rational):
            return f"the noise scale {d.scale} at {d.line} is not a rational multiple of 1/eps"
    why = forms.coin_obstruction(trace.runs, symbolic.epsilon)  # every rational unit r*eps
    keys = mechanism.output_keys(as_scores(list(answers)))
    if why is None and ov is None and forms.fraction_form(trace, keys) is None:
        return ("a run has Gumbel noise, noise scales without one common unit, or a form "
                f"of degree above DENSE_DEGREE_LIMIT = {DENSE_DEGREE_LIMIT}")
    return why


#: The symbolic epsilon of :meth:`ProgramMechanism.rational_obstruction`.
_SYMBOL = sympy.Symbol("epsilon", positive=True)


def _as_is(func: str, name: str, value: object) -> Any:
    return value


def _def_line(func: Callable) -> int:
    """The line of ``func``'s ``def`` (its code's first line is the first decorator's)."""
    try:
        lines, start = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return func.__code__.co_firstlineno
    return start + next((i for i, text in enumerate(lines)
                         if text.lstrip().startswith(("def ", "async def "))), 0)


@lru_cache(maxsize=1024)  # an exhaustive search at m = 6 reads 729 vectors twice
def program_trace(mechanism: ProgramMechanism, answers: tuple) -> Trace:
    """The runs of ``mechanism``'s program on ``answers`` (cached)."""
    prog = mechanism.program
    trace = traced_runs(mechanism, answers, f"{prog.name}.distribution",  # cached tree?
                        _budget(prog.name, len(answers)))
    if prog.declaration.output == "selection":
        n = len(answers)
        for key in trace.outputs:
            if key[0] != 2 or not 0 <= key[1] < n:  # type: ignore[index]
                where = f"{os.path.basename(prog.filename)}:{_def_line(prog.func)}"
                raise ProgramError(
                    f"{prog.name}: {where}: a selection program must return an index of "
                    f"range(len(q)) = range({n}), a run returned {decode(key)!r}")
    return trace


@dataclass(frozen=True)
class ProgramMechanism(Mechanism):
    """A program (:func:`~exactdp.programs.program`) at given parameters.

    Attributes
    ----------
    epsilon : sympy.Expr
        The claimed privacy level (a number > 0 or a positive Symbol).
    program : BoundProgram
        The decorated program (:class:`exactdp.programs.Program`).
    arguments : tuple of (str, value)
        Its other parameters (exact rationals), in declaration order.
    """

    epsilon: sympy.Expr = parameter(lambda func, _name, value: program_epsilon(func, value),
                                    "> 0 and finite", symbolic=True)
    program: BoundProgram = parameter(_as_is, "a program", exact=False)
    arguments: tuple = parameter(_as_is, "the program's parameters", default=(), exact=False)

    #: Not symmetric or shift-invariant in general: the neighbour search is not reduced.
    regular = False
    exact_n_route = ANSWERS_ROUTE  # past MAX_EXACT_N answers (every view is computed exactly)

    def __post_init__(self) -> None:  # then the declared bound (with_epsilon too)
        super().__post_init__()
        program_epsilon(self.name, self.epsilon, self.program.declaration.max_epsilon)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in (("epsilon", self.epsilon), *self.arguments))
        return f"{self.program.name}({args})"

    @property
    def name(self) -> str:
        """The program's name."""
        return self.program.name

    @property
    def sensitivity(self) -> sympy.Expr:
        """The declared sensitivity."""
        return self.program.declaration.sensitivity

    @property
    def monotonic(self) -> bool:
        """The declared monotonicity."""
        return self.program.declaration.monotonic

    @property
    def optimize(self) -> str:
        """``"max"``: the answers are passed as they are."""
        return "max"

    @property
    def output_kind(self) -> str:
        """``"selection"`` or ``"sequence"`` (declared by ``@program(output=...)``)."""
        return self.program.declaration.output

    @property
    def adjacency(self) -> str:
        """``"all"`` or ``"one"`` (declared by ``@program(adjacency=...)``)."""
        return self.program.declaration.adjacency

    @property
    def domain(self) -> tuple[sympy.Expr, sympy.Expr] | None:
        """The declared bounds of every answer, or None."""
        return self.program.declaration.domain

    @property
    def score_domain(self) -> str:
        """``"real"`` or ``"integer"`` (declared by ``@program(score_domain=...)``)."""
        return self.program.declaration.score_domain

    # ------------------------------------------------------------------ distribution
    def distribution(self, scores: object) -> ProgramDistribution:
        """The exact output distribution on the answers ``scores`` (lazy).

        Raises
        ------
        ValueError
            Invalid answers, answers outside the declared domain or score domain,
            irrational answers (:func:`~exactdp.programs.declared.program_answers`); a
            first run outside the language (a draw of scale 0: :func:`first_run`).
        """
        sv = program_answers(self, scores, f"{self.name}.distribution")
        first_run(self, tuple(sv.exact))
        return ProgramDistribution(self, sv)

    def trace(self, sv: ScoreVector) -> Trace:
        """The runs of the program on ``sv`` (:func:`program_trace`)."""
        return program_trace(self, tuple(sv.exact))

    def output_keys(self, sv: ScoreVector) -> tuple[Hashable, ...]:
        """The canonical keys of the outputs, in ``outputs`` order."""
        trace = self.trace(sv)  # a selection program's outputs are checked there
        if self.output_kind == "selection":
            return tuple((2, i) for i in range(sv.n))
        return tuple(sorted(trace.outputs))  # type: ignore[type-var]

    # ------------------------------------------------------------------ hooks
    def _exact(self, sv: ScoreVector) -> Sequence[sympy.Expr]:
        self._check_cost(sv)  # first: its enumeration prices the integration as it goes
        trace = self.trace(sv)
        ov = output_values(self, tuple(sv.exact))
        if ov is not None:
            probs = tuple(value_expr(v, ov.unit) for v in ov.values)
        else:
            terms: dict[Hashable, list[sympy.Expr]] = {}
            for run in trace.runs:
                terms.setdefault(run.output, []).append(run_probability(run))
            probs = tuple(sympy.Add(*terms.get(k, [])) for k in self.output_keys(sv))
        _check_total(self, probs, ov)
        return probs

    def _numeric_rational_form(self, sv: ScoreVector) -> RationalForm | None:
        """The probabilities in ``x = exp(-lam/L)`` at this epsilon, every run in one rational
        unit ``lam``: over a power of ``x`` or the runs' denominators' lcm (fraction_form)."""
        if self.epsilon.free_symbols:
            return None
        self._check_cost(sv)
        ov = output_values(self, tuple(sv.exact))
        if ov is None:  # another coin, discrete or Gumbel noise, or no one unit
            return forms.fraction_form(self.trace(sv), self.output_keys(sv))
        return forms.x_form(ov.values, ov.unit) if ov.unit.is_Rational else None

    def capabilities_on(self, sv: ScoreVector) -> frozenset[str]:
        """The base class's, with ``rational_form`` only where the probabilities are
        polynomials in ``x`` for every epsilon (:meth:`rational_obstruction`)."""
        caps = set(super().capabilities_on(sv))
        if "rational_form" in caps and self.rational_obstruction(sv) is not None:
            caps.discard("rational_form")
        return frozenset(caps)

    def rational_obstruction(self, sv: ScoreVector) -> str | None:
        """Why the probabilities on ``sv`` are not polynomials in one ``x =
        exp(-epsilon/N)`` (over a power of ``x``) for every epsilon, or None when they are.

        Every run must integrate to ``sum q lam**e exp(lam W)`` (or a quotient of two) with
        one unit ``lam``, a coin weight a sum ``q exp(c lam)`` (a rational coin: any), every
        noise scale a rational multiple of ``1/epsilon`` (decided on the runs at a symbolic
        epsilon, traced, not integrated); no ``e > 0`` term may survive the sum over an
        output's runs (as :meth:`exactdp.SparseVector.rational_obstruction`). Cached.
        """
        return _obstruction(self, tuple(sv.exact))

    def _rational_form(self, sv: ScoreVector) -> RationalForm:
        why = self.rational_obstruction(sv)
        if why is not None:
            raise ValueError(f"{self.name}: no rational form in x here: {why}")
        ov = output_values(self, tuple(sv.exact))  # else discrete noise: flint quotients
        rf = (forms.fraction_form(self.trace(sv), self.output_keys(sv)) if ov is None
              else forms.x_form(ov.values, ov.unit))
        if rf is None:
            raise ValueError(f"{self.name}: no rational form in x here: its degree is above "
                             f"DENSE_DEGREE_LIMIT = {DENSE_DEGREE_LIMIT}")
        return rf

    def check_cost(self, func: str, vectors: Sequence[ScoreVector]) -> None:
        """Refuse, naming ``func``, answers the declaration refuses (before any run), then
        an exact analysis of these answer vectors estimated above
        :data:`exactdp.cost.SECONDS_LIMIT`: the runs of the first vector (counted against
        the run limit) times the integrator's cost of each, for every vector; past
        :data:`~exactdp.programs.trace.PROBE_AT` runs, as estimated by the enumeration's
        probes, before the enumeration goes on.

        Raises
        ------
        ValueError, TooCostly
            Refused answers (:func:`program_answers`); the estimate and cheaper route.
        """
        for v in vectors:
            program_answers(self, v, func)
        answers = tuple(vectors[0].exact)
        token = _INTEGRATION.set((func, len(vectors)))
        try:
            with as_caller(func):
                runs = len(program_trace(self, answers).runs)
                seconds = trace_seconds(self, answers) * len(vectors)
        finally:
            _INTEGRATION.reset(token)
        _check_integration(func, len(vectors), vectors[0].n, str(runs), seconds)
        if len(_PRICED) > 10**5:
            _PRICED.clear()
        _PRICED.update(((self, tuple(v.exact)), None) for v in vectors)

    def _check_cost(self, sv: ScoreVector) -> None:  # the count first: sv.exact is n sympy values
        check_exact_n(f"{self.name}.probabilities", sv.n, self.exact_n_route)
        check_probability_cost(self, tuple(sv.exact))

    def analysis_seconds(self, vectors: Sequence[ScoreVector]) -> float:
        """:meth:`check_cost`'s estimate (the integrator's, per vector): a bar shows above
        2 s. 0.0 when the trace refuses (:meth:`check_cost` then says why, in its name)."""
        try:
            return trace_seconds(self, tuple(vectors[0].exact)) * len(vectors)
        except ValueError:
            return 0.0

    def _sample(self, sv: ScoreVector, size: int, rng: np.random.Generator) -> np.ndarray:
        prog = self.program
        q = tuple(int(v) if v.is_Integer else float(v) for v in sv.exact)
        eps = float(self.epsilon)
        args = tuple((k, v if isinstance(v, int) else float(v)) for k, v in self.arguments)
        sens = self.sensitivity
        call = prog.bind(q, eps, args, int(sens) if sens.is_Integer else float(sens))
        keys = sample_outputs(call, prog.name, prog.filename, size, rng)
        position = {k: i for i, k in enumerate(self.output_keys(sv))}
        out = np.empty(size, dtype=np.int64)
        for i, k in enumerate(keys):
            if k not in position:
                raise ProgramError(f"{prog.name}: the sampler returned {decode(k)!r}, which "
                                   "no run reaches (an output of probability 0)")
            out[i] = position[k]
        return out


_ALGORITHMS = ("mechanism", "pmf")


@dataclass(frozen=True, eq=False)
class ProgramDistribution(OutputDistribution):
    """The distribution of a program on one vector of answers.

    ``outputs``: for ``output="selection"`` the indices ``0..n-1``; for
    ``output="sequence"`` every output a run reaches, in canonical order (``True`` before
    ``False``, then ``None``, integers, tuples lexicographically: the order of
    :class:`~exactdp.SparseVector` for answer sequences). Every view is in that order:
    ``probabilities`` (exact), ``evalf(dps)``, ``evalf_balls(dps)``, ``to_numpy()``;
    ``sample(size, rng)`` runs the program with random draws.
    """

    mechanism: ProgramMechanism

    @cached_property
    def outputs(self) -> tuple[Any, ...]:
        """The output space, in canonical order."""
        return tuple(decode(k) for k in self.mechanism.output_keys(self.scores))

    def __len__(self) -> int:
        return len(self.outputs)

    @cached_property
    def _position(self) -> dict[Hashable, int]:
        return {k: i for i, k in enumerate(self.mechanism.output_keys(self.scores))}

    def index(self, output: object) -> int:
        """Position of ``output`` in :attr:`outputs` (``True`` and ``1`` differ).

        Raises
        ------
        ValueError
            If ``output`` is not an output of the program on these answers.
        """
        try:
            key = canonical(output, "output", _plain)
        except ProgramError:
            key = None
        if key not in self._position:
            raise argument_error(self.mechanism.name, "output", "one of .outputs", output)
        return self._position[key]

    def pmf(self, output: object) -> sympy.Expr:
        """The exact probability of one output."""
        return self.probabilities[self.index(output)]

    def sample(self, size: int | tuple[int, ...] | None = None, rng=None,
               algorithm: str = "mechanism"):
        """Run the program with random draws (``algorithm="mechanism"``, the default: the
        literal algorithm), or draw from the float probabilities (``"pmf"``).

        Returns
        -------
        output or numpy.ndarray
            One output for ``size=None``; else an array of outputs (int64 indices for a
            selection program, objects otherwise).
        """
        gen = as_generator(rng, "sample")
        algorithm = check_choice("sample", "algorithm", algorithm, _ALGORITHMS)
        shape = () if size is None else check_size("sample", size)
        total = int(np.prod(shape)) if shape else 1
        if total > MAX_SAMPLE_DRAWS:
            raise refuse("sample", f"size = {total:.3g} runs of {self.mechanism.name}",
                         f"{total:.3g} runs", f"{MAX_SAMPLE_DRAWS:.0e} per call",
                         "call sample() in a loop over smaller sizes")
        pos = self.sample_index(total, gen, algorithm)
        if self.mechanism.output_kind == "selection":
            return int(pos[0]) if size is None else pos.reshape(shape)
        if size is None:
            return self.outputs[int(pos[0])]
        out = np.empty(total, dtype=object)
        for i, p in enumerate(pos.tolist()):
            out[i] = self.outputs[p]
        return out.reshape(shape)

    def sample_index(self, size: int, rng=None, algorithm: str = "mechanism") -> np.ndarray:
        """Draws as positions in :attr:`outputs`, shape (size,) (for goodness_of_fit)."""
        gen = as_generator(rng, "sample")
        if algorithm == "mechanism":
            return np.asarray(self._view("sample", size, gen), dtype=np.int64)
        p = self.to_numpy()
        return gen.choice(len(p), size=size, p=p / p.sum()).astype(np.int64)

    def expected_error(self, method: str = "exact", dps: int = 30):
        """The expected error of a selection program (``q* - q_output``); ValueError for
        a sequence program (its outputs are not indices)."""
        self._selection_only("expected_error")
        return super().expected_error(method, dps)

    def error_tail(self, t: object, method: str = "exact"):
        """``Pr[q* - q_output >= t]`` of a selection program (ValueError otherwise)."""
        self._selection_only("error_tail")
        return super().error_tail(t, method)

    def _selection_only(self, func: str) -> None:
        if self.mechanism.output_kind != "selection":
            raise ValueError(f"{func}: the outputs of {self.mechanism.name} are not indices "
                             "(output='sequence')")

    def __repr__(self) -> str:  # the answer first (programs.display)
        return distribution_repr(self, "outputs")

    def _repr_html_(self) -> str:
        return distribution_html(self, "outputs")


def _plain(v: object, line: str) -> int:
    raise ProgramError("a noisy value is not an output")


def _check_total(mechanism: ProgramMechanism, probs: Sequence[sympy.Expr],
                 ov: OutputValues | None = None) -> None:
    """Refuse probabilities whose total's 128-bit ball (at epsilon = 1 if symbolic) excludes
    1: a program keeping state between runs forks inconsistently. Closed forms summing to 1
    term by term (:func:`~exactdp.exact.piecewise_exp.sums_to_one`) need no ball."""
    if ov is not None and sums_to_one(ov.values):
        return
    total = sympy.Add(*probs).subs({s: 1 for s in mechanism.epsilon.free_symbols})
    try:
        ball = to_arb(total, 128)
    except (ValueError, TypeError):  # not enclosable here: the analyzer's exact check decides
        return
    if not ball.contains(1):
        raise ProgramError(
            f"{mechanism.program.name}: its output probabilities sum to about "
            f"{float(ball.mid()):.6g}, not 1: the program must be deterministic given its "
            "draws (no global state, I/O or random between runs)")
