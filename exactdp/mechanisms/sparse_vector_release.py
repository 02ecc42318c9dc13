"""Sparse vector variants that release real values: exact densities and the exact privacy loss.

Two algorithms answer the queries ``a_1, ..., a_m`` (sensitivity ``D``, ``lam = eps / D``;
offsets ``s_i = a_i - T``) with a threshold noise ``rho`` of rate ``t1 lam`` and a comparison
noise ``nu_i`` of rate ``t2 lam`` (Laplace of scale ``1 / (t lam)``), stop after the ``c``-th
query above the noisy threshold, and *release a real value* for each query above it:

- Lyu-Su-Li's Algorithm 3 (``SparseVector(..., variant=3)``; ``t1 = 1/2``, ``t2 = 1/(2c)``)
  releases the compared value ``v_i = a_i + nu_i`` itself ("coupled");
- the numerical SVT of Wang et al. (:class:`~exactdp.mechanisms.numerical_sparse_vector.
  NumericalSparseVector`; ``t1 = 1/3``, ``t2 = 1/(6c)``) releases ``a_i + eta_i`` with a
  fresh ``eta_i`` of rate ``t3 lam``, ``t3 = 1/(3c)`` ("fresh").

An output is an answer pattern (a tuple of ``True`` = released, ``False`` = below, ``None`` =
not answered after the ``c``-th release: the sequences of
:func:`~exactdp.mechanisms.sparse_vector_integral.answer_sequences`) with a real value at
each released position. Write ``A`` for the released positions, ``B`` for those below,
``g_t(x) = (t lam / 2) exp(-t lam |x|)`` and ``F`` for the CDF of ``nu_i``.

**The pattern probabilities** (the discrete part) are those of an answer sequence of
Algorithm 1's form with rates ``(t1, t2)`` and cut-off ``c``: given ``rho`` the queries are
independent, so ``P(pattern) = int p(r) prod_A (1 - F(r - s_i)) prod_B F(r - s_i) dr``,
done in closed form by :func:`~exactdp.mechanisms.sparse_vector_integral.
sequence_probabilities`.

**The densities.** Fresh: the released values are independent of the comparisons,
``f(o) = prod_A g_t3(v_i - a_i) * P(pattern)``. Coupled: query ``i`` in ``A`` contributes
``g_t2(v_i - a_i) 1{v_i - T >= r}``, so with ``u = min_A v_i - T``

    ``f(o) = prod_A g_t2(v_i - a_i) * H(u)``,  ``H(u) = int_{-oo}^{u} p(r) prod_B F(r - s_i) dr``,

a piecewise exponential integral cut at ``u``, closed form for rational ``u``. Every
density is ``sum q lam**e exp(lam W)`` with rational ``q, W``. The densities (both
variants) and the coupled conditional CDF are the program engine's: the distribution of the
library program of the same algorithm (:func:`~exactdp.programs.library_release.svt3`,
:func:`~exactdp.programs.library_release.numerical_svt`, built by
:mod:`~exactdp.mechanisms.sparse_vector_release_engine`), whose integrator does these
integrals; the pattern probabilities stay :func:`~exactdp.mechanisms.sparse_vector_integral.
sequence_probabilities` (symbolic epsilon too), the fresh CDF the Laplace closed form.

**The privacy loss** of a pair ``a, a'`` (``d_i = a_i - a'_i``) is the supremum over outputs
of ``|ln f_a(o) / f_a'(o)|``.

*Pointwise bound.* A Laplace density and CDF of rate ``t lam`` change by at most a factor
``exp(t lam |d|)`` under a shift ``d``, and ``p(r)`` is the same for both inputs, so the
integrand of ``f_a`` is within ``exp(t2 lam sum_{answered} |d_i|)`` of that of ``f_a'``:
every coupled loss is at most ``t2 lam sum_i |d_i| = (eps / (2 c D)) sum_i |d_i|``.

*Coupled, answers moving one way* (every ``d_i <= 0``, or every ``d_i >= 0``; let ``lo`` be
the smaller answer vector). The bound is attained: take the pattern ``(False, ..., False,
v)`` (all ``m`` queries answered, one release) with ``v <= min_i lo_i``. Then ``u <= lo_i - T
<= hi_i - T`` for every ``i``, so on ``r <= u`` both CDFs are in their left tails, ``F(r -
s_i) / F(r - s'_i) = exp(t2 lam |d_i|)`` exactly, and ``g(v - lo_m) / g(v - hi_m) = exp(t2
lam |d_m|)``: the ratio is ``exp(t2 lam sum |d_i|)`` on this whole set of outputs. So the
loss is **exactly** ``(eps / (2 c D)) sum_i |a_i - a'_i|``, attained, the smaller input the
more likely; at the worst neighbours ``a' = a + D`` it is ``m eps / (2c)``: finite at every
``m`` and growing linearly in it, with no bound independent of ``m`` (Lyu-Su-Li's "not
private"; ``eps``-DP only for ``m <= 2c``).

*Coupled, answers moving both ways.* The factors of ``H`` then move apart in opposite
directions along ``r``, and the supremum over ``u`` lies in general at an interior critical
point of ``ln H_a(u) - ln H_a'(u)`` plus a piecewise linear term (a transcendental
equation, no closed form). Such a pair is answered by the program engine
(:func:`~exactdp.mechanisms.sparse_vector_release_engine.mixed_loss`, the library's
``svt3``): the exact supremum over the cells of the log-ratio, an interior critical point
as a certified interval, or a certified bracket labelled as such. The worst case over all
neighbours is nevertheless exact, ``m eps / (2c)``: no pair exceeds the pointwise bound
``m t2 lam D``, and ``a' = a + D`` attains it.

*Fresh.* The released part factorises: ``sup_v prod_A g(v_i - a_i) / g(v_i - a'_i) = exp(t3
lam sum_A |d_i|)``, attained on ``v_i`` beyond both answers on the side of the favoured
input, independently of the pattern and of the sign of its log ratio. So the loss is
exactly ``max over patterns of |ln P_a(pattern) / P_a'(pattern)| + t3 lam sum_A |d_i|``,
attained (the program engine's separable patterns, :mod:`exactdp.programs.release_separable`,
through :func:`~exactdp.mechanisms.sparse_vector_release_engine.fresh_loss`; the maximum
decided by rigorous arb balls or exact algebra).
Wang et al.'s proof bounds it by ``eps`` on neighbours (threshold ``eps/3``, comparisons
``eps/3``, released values ``eps/3``).

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017: Algorithm 3 (Figure 1) and section 4.2 (not private).
Y. Wang, Z. Ding, G. Wang, D. Kifer and D. Zhang, "Proving differential privacy with shadow
execution", PLDI 2019: the numerical sparse vector (NumSVT), epsilon-DP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import flint
import numpy as np
import sympy

from .._validate import argument_error, check_dps, check_int
from ..answer import shipped_html, shipped_latex, shipped_repr
from ..distribution import LossSupremum
from ..exact import flint_prec, to_arb
from ..numbers import exact_number
from ..rng import as_generator
from ..scores import ScoreVector, as_scores
from .base import Mechanism
from .release_views import BallViews, ReleasedValues
from .sparse_vector_integral import (
    Scheme,
    Value,
    answer_sequences,
    sequence_probabilities,
)
from .sparse_vector_release_engine import numerical_svt_mechanism, svt3_mechanism

#: An output: per query a released value (a number), False (below) or None (not answered).
Output = tuple[object, ...]
#: The pattern of an output: True where a value is released.
Pattern = tuple[bool | None, ...]

_HALF = Fraction(1, 2)


@dataclass(frozen=True)
class ReleaseScheme:
    """The noise of a sparse vector variant that releases values (rates in units of ``lam
    = epsilon / sensitivity``).

    Attributes
    ----------
    threshold_rate : Fraction
        ``t1``: the threshold noise is Laplace of scale ``D / (t1 epsilon)``.
    query_rate : Fraction
        ``t2``: the comparison noise of each query.
    release_rate : Fraction or None
        ``t3``: the fresh noise of each released value; None: the compared value ``a_i +
        nu_i`` itself is released (Lyu-Su-Li's Algorithm 3).
    cutoff : int
        Stop after this many releases.
    """

    threshold_rate: Fraction
    query_rate: Fraction
    release_rate: Fraction | None
    cutoff: int

    @property
    def pattern_scheme(self) -> Scheme:
        """The scheme of the answer patterns (:mod:`.sparse_vector_integral`)."""
        return Scheme(self.threshold_rate, self.query_rate, self.cutoff)

    @property
    def coupled(self) -> bool:
        """Whether the released value is the compared one (no fresh noise)."""
        return self.release_rate is None

    @property
    def value_rate(self) -> Fraction:
        """The rate of the noise in a released value (``t2`` coupled, ``t3`` fresh)."""
        return self.query_rate if self.release_rate is None else self.release_rate


def lyu_su_li_3(c: int) -> ReleaseScheme:
    """Algorithm 3: ``rho ~ Lap(2D/eps)``, ``nu_i ~ Lap(2cD/eps)``, the compared value released."""
    return ReleaseScheme(_HALF, Fraction(1, 2 * c), None, c)


def numerical_svt(c: int) -> ReleaseScheme:
    """NumSVT: ``rho ~ Lap(3D/eps)``, ``nu_i ~ Lap(6cD/eps)``, release noise ``Lap(3cD/eps)``."""
    return ReleaseScheme(Fraction(1, 3), Fraction(1, 6 * c), Fraction(1, 3 * c), c)


def value_expr(v: Value, lam: sympy.Expr) -> sympy.Expr:
    """The :data:`Value` ``sum q lam**e exp(lam W)`` as a sympy expression."""
    return sympy.Add(*[sympy.Rational(q.numerator, q.denominator) * lam**e
                       * sympy.exp(lam * sympy.Rational(w.numerator, w.denominator))
                       for (e, w), q in sorted(v.items())])


def value_float(v: Value, lam: float) -> float:
    """The :data:`Value` in float64 (``math.fsum`` of its terms; an exponent beyond the
    float range gives ``inf`` or 0)."""
    terms = []
    for (e, w), q in v.items():
        arg = lam * float(w)
        terms.append(float(q) * lam**e * (math.exp(arg) if arg < 700 else math.inf))
    return math.fsum(terms)


def value_ball(v: Value, lam: flint.arb) -> flint.arb:
    """The :data:`Value` enclosed in an arb ball, at the context precision."""
    s = flint.arb(0)
    for (e, w), q in v.items():
        s += flint.arb(q.numerator) / q.denominator * lam**e * (
            lam * flint.arb(w.numerator) / w.denominator).exp()
    return s


def as_fraction(x: object) -> Fraction:
    """A rational number (int, Fraction, sympy Rational) as a Fraction."""
    r = sympy.Rational(x)
    return Fraction(int(r.p), int(r.q))


def _rational(value: object, name: str, func: str) -> Fraction:
    x = exact_number(value, name, func=func)
    if not x.is_Rational:
        raise argument_error(func, name, "a rational number (the exact density)", value)
    return as_fraction(x)


def _program_pattern(engine: Any, key: Pattern, i: int) -> tuple[Any, int]:
    """The engine's pattern of ``key`` (its ``REAL`` placeholders at the released positions)
    and the number of the value released at query ``i`` among them."""
    found = next(p for p in engine.outputs
                 if tuple(x if x is None or x is False else True for x in p) == key)
    return found, key[:i].count(True)


# ---------------------------------------------------------------------- the distribution
@dataclass(frozen=True, eq=False)
class SparseVectorRelease(BallViews, ReleasedValues):
    """The distribution of a sparse vector variant that releases values, on one vector of
    query answers.

    ``outputs`` are the answer patterns (``True`` = a value released, ``False`` = below,
    ``None`` = not answered) in the order of
    :func:`~exactdp.mechanisms.sparse_vector_integral.answer_sequences`; ``probabilities``
    (exact), ``evalf(dps)``, ``to_numpy()`` are their probabilities (the discrete part);
    ``density(output)`` is the exact density of one output with its released values;
    ``sample(size, rng)`` runs the algorithm itself.
    """

    mechanism: Mechanism
    scores: ScoreVector
    scheme: ReleaseScheme
    threshold: sympy.Expr

    @property
    def n(self) -> int:
        """The number of queries m."""
        return self.scores.n

    @property
    def rate(self) -> sympy.Expr:
        """``lam = epsilon / sensitivity``."""
        return self.mechanism.epsilon / self.mechanism.sensitivity

    @property
    def capabilities(self) -> frozenset[str]:
        """The views this distribution has (the mechanism's, on these scores)."""
        return self.mechanism.capabilities_on(self.scores)

    @cached_property
    def outputs(self) -> tuple[Pattern, ...]:
        """The answer patterns, in the documented order."""
        return tuple(answer_sequences(self.n, self.scheme.cutoff))

    def __len__(self) -> int:
        return len(self.outputs)

    @cached_property
    def _position(self) -> dict[Pattern, int]:
        return {t: i for i, t in enumerate(self.outputs)}

    @cached_property
    def offsets(self) -> tuple[Fraction, ...]:
        """``s_i = a_i - T`` (rational)."""
        T = as_fraction(self.threshold)
        return tuple(as_fraction(sympy.Rational(x)) - T for x in self.scores.exact)

    def index(self, pattern: object) -> int:
        """Position of an answer pattern in :attr:`outputs`.

        Raises
        ------
        ValueError
            If ``pattern`` is not one of the patterns.
        """
        key = tuple(pattern) if isinstance(pattern, (tuple, list)) else None
        if key not in self._position:
            raise argument_error(type(self.mechanism).__name__, "output",
                                 f"an answer pattern of length {self.n} (see .outputs)",
                                 pattern)
        return self._position[key]

    def pattern(self, output: object) -> Pattern:
        """The answer pattern of an output (released values replaced by ``True``).

        Raises
        ------
        ValueError
            If ``output`` is not an output of the algorithm.
        """
        if not isinstance(output, (tuple, list)):
            raise argument_error(type(self.mechanism).__name__, "output",
                                 f"a tuple of length {self.n}", output)
        key = tuple(v if v is None or v is False else True for v in output)
        return self.outputs[self.index(key)]

    @cached_property
    def values(self) -> list[Value]:
        """Each pattern probability as a :data:`Value` (``sum q lam**e exp(lam W)``)."""
        return sequence_probabilities(list(self.offsets), self.scheme.pattern_scheme)

    @cached_property
    def probabilities(self) -> tuple[sympy.Expr, ...]:
        """Exact probabilities of the patterns (sympy), in :attr:`outputs` order."""
        return tuple(value_expr(v, self.rate) for v in self.values)

    def pmf(self, pattern: object) -> sympy.Expr:
        """Exact probability of one answer pattern."""
        return self.probabilities[self.index(pattern)]

    def _engine(self) -> Any:
        """The distribution of the library program of the same algorithm on these answers
        (:mod:`~exactdp.mechanisms.sparse_vector_release_engine`): the exact densities and
        the coupled CDF are its."""
        build = svt3_mechanism if self.scheme.coupled else numerical_svt_mechanism
        mech = self.mechanism
        return build(mech.epsilon, self.threshold, self.scheme.cutoff,
                     mech.sensitivity).distribution(self.scores)

    def density(self, output: object) -> sympy.Expr:
        """The exact density of one output: the released values' joint density (Lebesgue
        measure on the released positions) times the probability of the rest of the pattern.

        Parameters
        ----------
        output : tuple
            Per query a released value (a rational number), ``False`` or ``None``.

        Raises
        ------
        ValueError
            If ``output`` is not an output of the algorithm, or a value is not rational.
        """
        func = f"{type(self.mechanism).__name__}.density"
        pattern = self.pattern(output)
        assert isinstance(output, (tuple, list))
        point = tuple(_rational(v, f"output[{i}]", func) if pattern[i] else v
                      for i, v in enumerate(output))
        return self._engine().density(point)

    def cdf(self, pattern: object, i: int, v: object) -> sympy.Expr:
        """``Pr[v_i <= v | pattern]``: the exact conditional law of the value released at
        query ``i`` given the answer pattern.

        Fresh noise (NumSVT): ``v_i = a_i + eta_i``, ``eta_i`` independent of the
        comparisons, so the law is Laplace of rate ``t3 lam`` around ``a_i`` (closed form).
        Coupled (Algorithm 3): ``v_i = a_i + nu_i``, the compared value; given ``rho = r``
        the queries are independent, and query ``i`` is released with ``v_i > v`` iff ``nu_i
        > max(v - a_i, r - s_i)``: the program engine's conditional CDF of the library's
        ``svt3`` (:meth:`exactdp.programs.release.ProgramRelease.cdf`, its released value
        numbered among the pattern's released values).

        Raises
        ------
        ValueError
            ``pattern`` not a pattern, no value released at ``i``, ``v`` not rational.
        """
        func = f"{type(self.mechanism).__name__}.cdf"
        key = self._released(func, pattern, i)
        x = _rational(v, "v", func)
        if not self.scheme.coupled:
            return 1 - value_expr(self._fresh_survival(i, x), self.rate)
        engine = self._engine()
        return engine.cdf(*_program_pattern(engine, key, i), x)

    def cdf_float(self, pattern: object, i: int, v: np.ndarray) -> np.ndarray:
        """:meth:`cdf` in float64 at the points ``v`` (the fresh closed form summed in
        floats at each float taken exactly; the coupled CDF the engine's exact law on its
        cells, :mod:`exactdp.programs.release_law`, evaluated vectorised): what the
        Kolmogorov-Smirnov test of :func:`exactdp.audit.goodness_of_fit` reads."""
        key = self._released(f"{type(self.mechanism).__name__}.cdf_float", pattern, i)
        points = np.asarray(v, dtype=np.float64)
        if self.scheme.coupled:
            engine = self._engine()
            return engine.cdf_float(*_program_pattern(engine, key, i), points)
        lam = float(self.rate)
        out = [1 - value_float(self._fresh_survival(i, Fraction(float(x))), lam)
               for x in points.ravel()]
        return np.clip(np.array(out), 0.0, 1.0).reshape(points.shape)

    def _released(self, func: str, pattern: object, i: int) -> Pattern:
        """The pattern, checked to release a value at query ``i``."""
        key = self.pattern(pattern)
        if not (isinstance(i, int) and 0 <= i < self.n and key[i] is True):
            raise argument_error(func, "i", f"a released position of {key}", i)
        return key

    def _fresh_survival(self, i: int, v: Fraction) -> Value:
        """``Pr[v_i > v]`` of the fresh noise: ``1 - F(v - a_i)``, Laplace of rate ``t3
        lam``."""
        x = v - as_fraction(sympy.Rational(self.scores.exact[i]))
        t = self.scheme.value_rate
        return ({(0, -t * x): _HALF} if x >= 0 else
                {(0, Fraction(0)): Fraction(1), (0, t * x): -_HALF})

    def loss_supremum(self, neighbour: object) -> LossSupremum:
        """The exact privacy loss against the answers ``neighbour``, with its witness
        (the mechanism's ``"density"`` view, what :func:`exactdp.privacy_loss` reads)."""
        func = f"{type(self.mechanism).__name__}.loss_supremum"
        return self.mechanism.evaluate("density", self.scores,
                                       as_scores(neighbour, "neighbour", func))

    # ------------------------------------------------------------------ numeric
    def evalf_balls(self, dps: int = 30) -> tuple[flint.arb, ...]:
        """Rigorous arb enclosures of the pattern probabilities, ``dps`` correct digits."""
        dps = check_dps("evalf", dps)
        if self.rate.free_symbols:
            raise ValueError(f"{type(self.mechanism).__name__}: epsilon is symbolic; numeric "
                             "views need a number")
        target = 2.0 ** -(dps * 3.33 + 4)
        prec = int(dps * 3.33) + 64
        while True:
            with flint_prec(prec):
                lam = to_arb(self.rate, prec)
                out = [value_ball(v, lam) for v in self.values]
                ok = all(b > 0 and b.rad() < target * b.mid() for b in out)
            if ok or prec > 1 << 16:
                return tuple(out)
            prec *= 2

    # ------------------------------------------------------------------ sampling
    def sample(self, size: int | None = None, rng=None):
        """Run the algorithm. ``size=None``: one output (a tuple of floats, ``False`` and
        ``None``); else ``(codes, values)``: int8 codes of shape (size, m) (1 released, 0
        below, -1 not answered) and the released values (float64, NaN elsewhere)."""
        gen = as_generator(rng, "sample")
        codes, values = self._run(1 if size is None else check_int("sample", "size", size, 0),
                                  gen)
        if size is None:
            return tuple(float(x) if k == 1 else (False if k == 0 else None)
                         for k, x in zip(codes[0].tolist(), values[0].tolist(), strict=True))
        return codes, values

    def split(self, draws: object) -> tuple[np.ndarray, np.ndarray]:
        """The draws of :meth:`sample` (``(codes, values)``, or a list of outputs) as
        positions in :attr:`outputs` (shape (size,)) and released values (shape (size, m),
        NaN where none).

        Raises
        ------
        ValueError
            Draws of another shape, or an output that is not an output of the algorithm.
        """
        code = {True: 1, False: 0, None: -1}
        if isinstance(draws, tuple) and len(draws) == 2 and all(
                isinstance(a, np.ndarray) for a in draws):
            codes, values = np.asarray(draws[0]), np.asarray(draws[1], dtype=np.float64)
        else:
            outs: list[Any] = list(draws)  # type: ignore[call-overload]
            rows = [self.pattern(o) for o in outs]
            codes = np.array([[code[x] for x in r] for r in rows], dtype=np.int8)
            values = np.array([[float(x) if r[i] else np.nan for i, x in enumerate(o)]
                               for r, o in zip(rows, outs, strict=True)])
        if codes.ndim != 2 or codes.shape[1] != self.n or values.shape != codes.shape:
            raise argument_error("goodness_of_fit", "draws", f"(codes, values) of shape "
                                 f"(size, {self.n})", codes.shape)
        lookup = {tuple(code[x] for x in t): i for i, t in enumerate(self.outputs)}
        try:
            idx = np.array([lookup[tuple(r)] for r in codes.tolist()], dtype=np.int64)
        except KeyError as exc:
            raise argument_error("goodness_of_fit", "draws", "answer patterns of the "
                                 "algorithm (see .outputs)", exc.args[0]) from None
        return idx, values

    def sample_index(self, size: int, rng=None) -> np.ndarray:
        """Draws as positions in :attr:`outputs` (their patterns), shape (size,)."""
        codes, _ = self._run(check_int("sample", "size", size, 0), as_generator(rng, "sample"))
        code = {True: 1, False: 0, None: -1}
        lookup = {tuple(code[x] for x in t): i for i, t in enumerate(self.outputs)}
        return np.array([lookup[tuple(row)] for row in codes.tolist()], dtype=np.int64)

    def _run(self, size: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        lam = float(self.rate)
        sch = self.scheme
        a = self.scores.floats
        T = float(self.threshold)
        rho = gen.laplace(scale=1 / (float(sch.threshold_rate) * lam), size=size)
        count = np.zeros(size, dtype=np.int64)
        codes = np.full((size, self.n), -1, dtype=np.int8)
        values = np.full((size, self.n), np.nan)
        b2 = 1 / (float(sch.query_rate) * lam)
        for i in range(self.n):
            live = count < sch.cutoff
            noisy = a[i] + gen.laplace(scale=b2, size=size)
            above = noisy >= T + rho
            codes[live, i] = above[live]
            hit = live & above
            if sch.release_rate is not None:
                noisy = a[i] + gen.laplace(scale=1 / (float(sch.release_rate) * lam), size=size)
            values[hit, i] = noisy[hit]
            count += hit
        return codes, values

    def __repr__(self) -> str:
        return shipped_repr(self, "SparseVectorRelease", type(self.mechanism).__name__,
                            f"m={self.n}, c={self.scheme.cutoff}", "patterns", closed=True)

    def _repr_html_(self) -> str:  # the notebook's table, as every distribution's
        return shipped_html(self, "SparseVectorRelease", "patterns", closed=True)

    def _repr_latex_(self) -> str:
        return shipped_latex(self, "SparseVectorRelease", "patterns", closed=True)
