"""``@program``: a user's selection algorithm, written in Python, as a mechanism factory.

::

    @program(sensitivity=1)
    def svt1(q, epsilon, threshold, c=1):
        rho = laplace(2 / epsilon)
        ...
        return tuple(out)

    m = svt1(epsilon=sympy.Rational(1, 2), threshold=1, c=2)   # a Mechanism

The decorated function takes the query answers ``q`` first and its parameters by name;
``epsilon`` (the claimed privacy level, symbolic allowed) is required; ``sensitivity`` is a
reserved parameter the program may read (the declared one). Every other parameter is an
exact rational number (ints stay ints). See ``docs/programs.md`` for the semantics.
"""

from __future__ import annotations

import builtins
import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy

from .._validate import argument_error, check_bool, check_choice
from ..numbers import exact_number, exact_sensitivity
from ..scores import ADJACENCIES, SCORE_DOMAINS
from .declared import program_epsilon
from .mechanism import ProgramMechanism
from .release import ReleaseProgramMechanism
from .values import Noisy, ProgramError, user_line

#: ``output=``: "sequence" (any hashable output of booleans, None, integers, tuples),
#: "selection" (an index of ``range(len(q))``) or "release" (outputs holding real values
#: affine in the noises: :mod:`exactdp.programs.release`).
OUTPUTS = ("sequence", "selection", "release")


@dataclass(frozen=True)
class Declaration:
    """What ``@program(...)`` declares about the program and its neighbours.

    Attributes
    ----------
    sensitivity : sympy.Expr
        The largest move of an answer between neighbours (> 0).
    adjacency : str
        One of :data:`exactdp.scores.ADJACENCIES`.
    monotonic : bool
        Whether neighbouring answers all move in one direction.
    output : str
        One of :data:`OUTPUTS`.
    domain : tuple of two sympy numbers, or None
        ``(lo, hi)``: every answer lies in ``[lo, hi]`` (randomized response: bits).
    counts : tuple of str
        The parameters that count something (``c``, ``k``, ``copies``): positive integers,
        checked when the mechanism is made.
    score_domain : str
        ``"real"`` or ``"integer"`` (:data:`exactdp.scores.SCORE_DOMAINS`): under
        ``"integer"`` a non-integer answer is refused (randomized response: bits).
    max_epsilon : sympy number or None
        The largest epsilon the program is defined for (the incorrect randomized
        response's flip probability ``(1 - epsilon)/2``: 1), checked when the mechanism is
        made.
    """

    sensitivity: sympy.Expr
    adjacency: str
    monotonic: bool
    output: str
    domain: tuple[sympy.Expr, sympy.Expr] | None
    counts: tuple[str, ...] = ()
    score_domain: str = "real"
    max_epsilon: sympy.Expr | None = None


def _domain(value: object) -> tuple[sympy.Expr, sympy.Expr] | None:
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise argument_error("program", "domain", "None or a pair (lo, hi)", value)
    lo = exact_number(value[0], "domain", 0, func="program")
    hi = exact_number(value[1], "domain", 1, func="program")
    if not lo < hi:
        raise argument_error("program", "domain", "a pair (lo, hi) with lo < hi", value)
    return lo, hi


def _max_epsilon(value: object) -> sympy.Expr | None:
    if value is None:
        return None
    v = exact_number(value, "max_epsilon", func="program")
    if not (v.is_positive and v.is_finite):
        raise argument_error("program", "max_epsilon", "None or a number > 0 and finite",
                             value)
    return v


def _counts(value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (tuple, list)) or not all(
            isinstance(v, str) for v in value):
        raise argument_error("program", "counts", "a tuple of parameter names", value)
    return tuple(value)


def program(func: Callable | None = None, *, sensitivity: object = 1,
            adjacency: str = "all", monotonic: bool = False, output: str = "sequence",
            domain: object = None, counts: object = (), score_domain: str = "real",
            max_epsilon: object = None) -> Any:
    """Turn ``f(q, epsilon, **parameters)`` into a factory of mechanisms.

    Parameters
    ----------
    func : callable
        The program (when used as ``@program`` without arguments).
    sensitivity : number, default 1
        Every answer moves by at most this between neighbours; the program reads it as the
        reserved parameter ``sensitivity``.
    adjacency : {"all", "one"}
        ``"all"``: every answer moves (the sparse vector benchmarks); ``"one"``: one answer
        moves (histograms, sums).
    monotonic : bool, default False
        Neighbouring answers all move in one direction.
    output : {"sequence", "selection", "release"}
        ``"selection"``: the program returns an index of ``range(len(q))`` (the outputs are
        the n indices); ``"sequence"``: any hashable value of booleans, None, integers and
        tuples (the outputs are those the runs reach, in canonical order); ``"release"``:
        as ``"sequence"``, and real values affine in the noises (``a + laplace(b)``) may be
        returned: the distribution follows the release protocol
        (:class:`~exactdp.programs.release.ProgramRelease`).
    domain : (lo, hi), optional
        Bounds of every answer (checked on the scores).
    counts : tuple of str, optional
        Parameters that must be positive integers (a cut-off ``c``, the ``k`` of top-k):
        ``c=0`` is refused when the mechanism is made, naming ``c``, not later as a noise
        of scale 0.
    score_domain : {"real", "integer"}, default "real"
        ``"integer"``: every answer is an integer (with ``domain=(0, 1)``: bits), a score
        of 1/2 refused in one line.
    max_epsilon : number, optional
        The largest epsilon the program is defined for (a flip probability
        ``(1 - epsilon)/2`` needs epsilon <= 1): a larger one is refused when the
        mechanism is made.

    Returns
    -------
    Program
        Calling it with the parameters returns a
        :class:`~exactdp.programs.mechanism.ProgramMechanism`.

    Raises
    ------
    ValueError
        One line naming the argument: a bad declaration, a generator function, no ``q`` or
        no ``epsilon`` parameter, ``*args`` / ``**kwargs``.

    References
    ----------
    C. Dwork and A. Roth, *The algorithmic foundations of differential privacy*, 2014,
    section 3.6 (AboveThreshold, the example below); M. Lyu, D. Su and N. Li, "Understanding
    the sparse vector technique for differential privacy", PVLDB 2017.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs import program, laplace
    >>> @program(sensitivity=1)
    ... def above_threshold(q, epsilon, threshold):
    ...     rho = laplace(2 / epsilon)
    ...     for i, a in enumerate(q):
    ...         if a + laplace(4 / epsilon) >= threshold + rho:
    ...             return i
    ...     return None
    >>> m = above_threshold(epsilon=1, threshold=0)
    >>> m.distribution([1, 0]).outputs
    (None, 0, 1)
    >>> exactdp.privacy_loss(m, [1, 0], [0, 1])
    PrivacyLoss(loss=0.395815, output=1, engine='x-form', certified)
    """
    decl = Declaration(
        exact_sensitivity(sensitivity, "program"),
        check_choice("program", "adjacency", adjacency, ADJACENCIES),
        check_bool("program", "monotonic", monotonic),
        check_choice("program", "output", output, OUTPUTS),
        _domain(domain),
        _counts(counts),
        check_choice("program", "score_domain", score_domain, SCORE_DOMAINS),
        _max_epsilon(max_epsilon),
    )
    if func is None:
        return lambda f: Program(f, decl)
    return Program(func, decl)


class Program:
    """A decorated program: call it with its parameters to get a mechanism.

    Attributes
    ----------
    func : callable
        The user's function.
    declaration : Declaration
    name : str
    filename : str
        The file of its code (steps and lines are counted there).
    parameter_names : tuple of str
        Its parameters after ``q`` (``sensitivity`` excluded: reserved).
    """

    def __init__(self, func: Callable, declaration: Declaration) -> None:
        if not callable(func) or not isinstance(func, types.FunctionType):
            raise argument_error("program", "f", "a Python function f(q, epsilon, ...)", func)
        where = f"{func.__code__.co_filename.rsplit('/', 1)[-1]}:{func.__code__.co_firstlineno}"
        if inspect.isgeneratorfunction(func) or inspect.iscoroutinefunction(func):
            raise ProgramError(f"program: {func.__name__} at {where} is a generator or "
                               "coroutine; a program returns its output")
        params = list(inspect.signature(func).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            raise ProgramError(f"program: {func.__name__} at {where} takes *args or **kwargs; "
                               "name every parameter")
        if not params or params[0].kind not in (params[0].POSITIONAL_ONLY,
                                                 params[0].POSITIONAL_OR_KEYWORD):
            raise ProgramError(f"program: {func.__name__} at {where} must take the answers q "
                               "as its first parameter")
        rest = params[1:]
        names = [p.name for p in rest]
        if "epsilon" not in names:
            raise ProgramError(f"program: {func.__name__} at {where} has no epsilon "
                               "parameter (the claimed privacy level)")
        unknown = [c for c in declaration.counts if c not in names or c == "epsilon"]
        if unknown:
            raise ProgramError(f"program: {func.__name__} at {where}: counts names "
                               f"{unknown[0]!r}, not a parameter")
        self.func = func
        self.declaration = declaration
        self.name = func.__name__
        self.filename = func.__code__.co_filename
        self.where = where
        self.takes_sensitivity = "sensitivity" in names
        self.parameter_names = tuple(n for n in names if n != "sensitivity")
        self.defaults = {p.name: p.default for p in rest
                         if p.default is not p.empty and p.name != "sensitivity"}
        self.__doc__ = func.__doc__
        self.__name__ = func.__name__
        self.__wrapped__ = func

    def __repr__(self) -> str:
        return f"<program {self.name} at {self.where}>"

    def __call__(self, *args: Any, **kwargs: Any) -> ProgramMechanism:
        """The mechanism at these parameters (``epsilon`` required).

        Raises
        ------
        ValueError
            A parameter given by position (keywords only), missing, unknown, or not an
            exact rational number (``epsilon``: > 0 and finite, at most the declared
            ``max_epsilon``, or a positive Symbol).
        """
        func = self.name
        if args:
            raise ValueError(f"{func}: parameters are keywords only: {func}("
                             + ", ".join(f"{k}=..." for k in self.parameter_names)
                             + f"), got {len(args)} by position")
        if "sensitivity" in kwargs:
            raise argument_error(func, "sensitivity", "set by @program(sensitivity=...), not "
                                 "a parameter", kwargs["sensitivity"])
        values: dict[str, Any] = {}
        for k, v in kwargs.items():
            if k not in self.parameter_names:
                raise ValueError(f"{func}: unknown parameter {k!r} (the parameters: "
                                 f"{', '.join(self.parameter_names)})")
            values[k] = v
        for k, v in self.defaults.items():
            values.setdefault(k, v)
        missing = [k for k in self.parameter_names if k not in values]
        if missing:
            raise ValueError(f"{func}: missing parameter {missing[0]!r}")
        epsilon = program_epsilon(func, values.pop("epsilon"), self.declaration.max_epsilon)
        arguments = tuple((k, _rational_parameter(func, k, values[k]))
                          for k in self.parameter_names if k != "epsilon")
        for k, v in arguments:
            if k in self.declaration.counts and not (isinstance(v, int) and v >= 1):
                raise argument_error(func, k, "a positive integer (a count)", values[k])
        if self.declaration.output == "release":
            return ReleaseProgramMechanism(epsilon, self, arguments)
        return ProgramMechanism(epsilon, self, arguments)

    # ------------------------------------------------------------------ execution
    def bind(self, q: tuple, epsilon: Any, arguments: tuple[tuple[str, Any], ...],
             sensitivity: Any = None) -> Callable[[], Any]:
        """A call of the program on ``q`` with these parameter values (``sensitivity``:
        the declared one unless given, as the sampler gives it in float), in a copy of the
        function whose ``max``, ``min`` and ``sorted`` refuse two or more noisy values."""
        f = self.func
        scope = dict(f.__globals__)
        scope.update(max=_guard(builtins.max, "max", "argmax"),
                     min=_guard(builtins.min, "min", "argmin"),
                     sorted=_guard(builtins.sorted, "sorted", "argmax / argmin"))
        copy = types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)
        copy.__kwdefaults__ = f.__kwdefaults__
        kw = dict(arguments)
        kw["epsilon"] = epsilon
        if self.takes_sensitivity:
            kw["sensitivity"] = (self.declaration.sensitivity if sensitivity is None
                                 else sensitivity)
        return lambda: copy(q, **kw)


def _rational_parameter(func: str, name: str, value: object) -> Any:
    v = exact_number(value, name, func=func)
    if not v.is_Rational:
        raise argument_error(func, name, "a rational number (only epsilon may be symbolic)",
                             value)
    return int(v) if v.is_Integer else v


def _guard(builtin: Callable, name: str, instead: str) -> Callable:
    """``builtin`` refusing two or more noisy values (``max(v, 0)`` with one noisy value and
    constants forks into the clamp cases, as Python compares them)."""

    def guarded(*args: Any, **kwargs: Any) -> Any:
        items = list(args[0]) if len(args) == 1 else list(args)
        if sum(isinstance(v, Noisy) for v in items) >= 2:
            raise ProgramError(f"{user_line()}: {name}() over noisy values is refused: the "
                               f"comparisons between the noises are not exact; use {instead}")
        if len(args) == 1:
            return builtin(items, **kwargs)
        return builtin(*args, **kwargs)

    guarded.__name__ = name
    return guarded
