"""The distribution of :class:`~exactdp.mechanisms.sparse_vector.SparseVector` on one
vector of query answers (the answer sequences; every view through
:meth:`~exactdp.mechanisms.base.Mechanism.evaluate`), and the functions of numbers its hooks
are thin adapters over: the closed-form probabilities (``sum q lam**e exp(lam W)``, from the
program engine: :mod:`exactdp.mechanisms.sparse_vector_engine`) as sympy expressions, as
forms in ``x`` and as arb balls.

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017: Algorithms 1, 2, 4, 5 and 6 (Figure 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property, lru_cache
from math import lcm

import flint
import mpmath
import numpy as np
import sympy

from .._validate import argument_error, check_dps, check_int
from ..answer import shipped_html, shipped_latex, shipped_repr
from ..distribution import DiscreteDistribution
from ..exact import arb_to_interval, flint_prec, to_arb
from ..rational_form import RationalForm
from ..rng import as_generator
from ..scores import ScoreVector, as_scores
from ..xform import DENSE_DEGREE_LIMIT
from .base import Mechanism, X
from .sparse_vector_integral import (
    Scheme,
    Value,
    answer_sequences,
    sequence_probabilities,
    translation_bound,
)

#: Answer -> code in :meth:`SparseVectorDistribution.sample` arrays.
CODES = {True: 1, False: 0, None: -1}


# ---------------------------------------------------------------------- the closed form
def probability_exprs(values: Sequence[Value], lam: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """The values as sympy expressions (one expression per distinct value)."""
    built: dict[int, sympy.Expr] = {}
    for v in values:
        if id(v) not in built:
            built[id(v)] = sympy.Add(*[
                sympy.Rational(q.numerator, q.denominator) * lam**e
                * sympy.exp(lam * sympy.Rational(w.numerator, w.denominator))
                for (e, w), q in sorted(v.items())])
    return tuple(built[id(v)] for v in values)


def x_form(values: Sequence[Value], lam: sympy.Expr,
           lq: flint.fmpq | None) -> RationalForm | None:
    """The values as polynomials in ``x = exp(-lam/L)`` over one common power of ``x``
    (``L`` the common denominator of the ``W``: a term ``q lam**e exp(lam W)`` is ``q
    lam**e`` times ``x**(-L W)``), each term's ``lam**e`` evaluated at the rational ``lq``
    (None: no such term is present, every ``e`` is 0). Flint polynomials, one per distinct
    value. None for a degree above :data:`exactdp.xform.DENSE_DEGREE_LIMIT`."""
    distinct = {id(v): v for v in values}
    L = lcm(*(w.denominator for v in distinct.values() for _, w in v))
    terms = {key: [(e, w.numerator * (L // w.denominator), q) for (e, w), q in v.items()]
             for key, v in distinct.items()}
    powers = [p for t in terms.values() for _, p, _ in t]
    top = max(0, *powers)
    if top - min(powers) > DENSE_DEGREE_LIMIT:
        return None
    lam_powers = [flint.fmpq(1)] if lq is None else [flint.fmpq(1), lq, lq * lq]
    polys: dict[int, flint.fmpq_poly] = {}
    for key, t in terms.items():
        coeffs = [flint.fmpq(0)] * (top - min((p for _, p, _ in t), default=top) + 1)
        for e, p, q in t:
            lp = lam_powers[e] if e < len(lam_powers) else lq**e  # type: ignore[operator]
            coeffs[top - p] += flint.fmpq(q.numerator, q.denominator) * lp
        polys[key] = flint.fmpq_poly(coeffs)
    den = flint.fmpq_poly([0] * top + [1])
    return RationalForm(X, None, sympy.exp(-lam / L), L,
                        polys=tuple(polys[id(v)] for v in values), denominator=den)


def probability_balls(values: Sequence[Value], lam: sympy.Expr,
                      dps: int) -> tuple[flint.arb, ...]:
    """Rigorous arb enclosures of the values at ``lam`` with ``dps`` correct digits (zero:
    the exact 0), evaluated from the closed form at rising precision."""
    target = 2.0 ** -(dps * 3.33 + 4)
    prec = int(dps * 3.33) + 64
    while True:
        with flint_prec(prec):
            lb = to_arb(lam, prec)
            out = []
            for v in values:
                s = flint.arb(0)
                for (e, w), q in v.items():
                    s += flint.arb(q.numerator) / q.denominator * lb**e * (
                        lb * flint.arb(w.numerator) / w.denominator).exp()
                out.append(s)
            ok = all(b.is_exact() or (b > 0 and b.rad() < target * b.mid()) for b in out)
        if ok or prec > 1 << 16:
            return tuple(out)
        prec *= 2


@lru_cache(maxsize=64)  # a search passes the same loss found for every neighbour
def _ball(x: sympy.Expr) -> flint.arb:
    with flint_prec(128):
        return to_arb(x, 128)


def _certainly_below(a: sympy.Expr, b: object) -> bool:
    """Whether ``a`` (rational) is below ``b``, shown by arb balls (False: not shown)."""
    try:
        bb = _ball(sympy.sympify(b))
    except (TypeError, ValueError):  # not enclosed: not shown
        return False
    with flint_prec(128):
        return bool(to_arb(a, 128) < bb)


# ---------------------------------------------------------------------- the distribution
@dataclass(frozen=True, eq=False)
class SparseVectorDistribution(DiscreteDistribution):
    """The distribution of a mechanism over answer sequences (output kind ``"sequence"``:
    :class:`~exactdp.mechanisms.sparse_vector.SparseVector`) on one vector of query answers.

    ``outputs`` are the answer sequences (tuples of ``True``, ``False``, ``None``) in the
    order of ``itertools.product((True, False), repeat=m)``, with every entry after the
    ``c``-th ``True`` replaced by ``None`` and repeats dropped. Views, in that order, each
    computed by the mechanism's hooks through :meth:`Mechanism.evaluate`:
    ``probabilities`` (exact sympy), ``evalf(dps)`` (mpmath), ``evalf_balls(dps)`` (arb),
    ``to_numpy()`` (float64), ``rational_form()`` / ``numeric_rational_form()`` (forms in
    ``x``), ``sample(size, rng)`` (the algorithm itself). With the variant's ``scheme``
    (its noise rates), :meth:`loss_upper_bound` bounds the loss against a neighbour
    without any integral.
    """

    mechanism: Mechanism
    scores: ScoreVector
    cutoff: int | None
    label: str = "SVT"
    scheme: Scheme | None = None
    threshold: sympy.Expr | None = None

    @property
    def n(self) -> int:
        """The number of queries m."""
        return self.scores.n

    @cached_property
    def outputs(self) -> tuple[tuple[bool | None, ...], ...]:
        """The answer sequences, in the documented order (stopping after ``cutoff`` Trues)."""
        return tuple(answer_sequences(self.n, self.cutoff))

    @property
    def capabilities(self) -> frozenset[str]:
        """The views this distribution has (the mechanism's, on these answers)."""
        return self.mechanism.capabilities_on(self.scores)

    def __len__(self) -> int:
        return len(self.outputs)

    @cached_property
    def _position(self) -> dict:
        return {t: i for i, t in enumerate(self.outputs)}

    def index(self, output) -> int:
        """Position of an answer sequence in :attr:`outputs`.

        Raises
        ------
        ValueError
            If ``output`` is not one of the answer sequences.
        """
        key = tuple(output) if isinstance(output, (tuple, list)) else None
        if key not in self._position:
            raise argument_error(type(self.mechanism).__name__, "output", "an answer "
                                 f"sequence of length {self.n} (see .outputs)", output)
        return self._position[key]

    def pmf(self, output) -> sympy.Expr:
        """Exact probability of one answer sequence."""
        return self.probabilities[self.index(output)]

    def loss_upper_bound(self, neighbour: object, below: object = None) -> sympy.Expr | None:
        """A rigorous upper bound on the privacy loss against the answers ``neighbour``,
        cheap (milliseconds, not the program engine's integrals): the best translation of
        the noises (:func:`~exactdp.mechanisms.sparse_vector_integral.translation_bound`)
        times ``lam = epsilon / sensitivity``, or, where smaller, the upper end of an arb
        enclosure of the loss from the one-threshold closed forms
        (:func:`~exactdp.mechanisms.sparse_vector_integral.sequence_probabilities`, an
        independent route to the same probabilities; not for Algorithm 2's fresh
        threshold with ``c > 1``); None where neither applies (Algorithm 5 on answers
        moving by different amounts, irrational answers, no ``scheme``). A screen for
        searches over pairs: a pair whose bound is below a loss already found cannot exceed
        it.

        Parameters
        ----------
        neighbour : sequence of numbers
        below : sympy number, optional
            A loss already found: where the translation bound is below it (shown by arb
            balls), that bound is returned without the enclosure (it screens the pair out
            alike).

        Raises
        ------
        ValueError
            ``neighbour`` not a vector of as many answers.

        Examples
        --------
        >>> from exactdp import SparseVector
        >>> d = SparseVector(epsilon=1, threshold=0, variant=6).distribution([0, 0, 0])
        >>> bounds = d.loss_upper_bound([1, 1, 1]), d.loss_upper_bound([1, -1, 0])
        >>> [f"{float(b):.4f}" for b in bounds]  # rationals: an enclosure's upper ends
        ['0.4613', '0.8204']
        """
        func = "SparseVectorDistribution.loss_upper_bound"
        other = as_scores(neighbour, "neighbour", func)
        if other.n != self.n:
            raise argument_error(func, "neighbour", f"{self.n} answers", neighbour)
        pairs = tuple(zip(self.scores.exact, other.exact, strict=True))
        if self.scheme is None or not all(a.is_Rational and b.is_Rational for a, b in pairs):
            return None
        moves = [Fraction(int((b - a).p), int((b - a).q)) for a, b in pairs]
        k = translation_bound(self.scheme, moves)
        shift = None if k is None else sympy.Rational(k.numerator, k.denominator) * (
            self.mechanism.rate)
        if below is not None and shift is not None and _certainly_below(shift, below):
            return shift  # already below the caller's loss: no enclosure needed
        direct = self._enclosure_bound(other)
        if shift is None or direct is None:
            return direct if shift is None else shift
        return direct if direct < shift else shift

    @cached_property
    def _one_threshold(self) -> tuple[Scheme, Fraction] | None:
        """The scheme with one threshold noise and the rational threshold of
        :meth:`_enclosure_bound`, or None (a fresh threshold with ``c > 1``, a symbolic or
        irrational ``lam`` or threshold)."""
        lam, T, scheme = self.mechanism.rate, self.threshold, self.scheme
        if scheme is not None and scheme.fresh_threshold and scheme.cutoff == 1:
            # stopping at the first True, the threshold is never redrawn before a comparison
            scheme = replace(scheme, fresh_threshold=False)
        if (scheme is None or scheme.fresh_threshold or T is None
                or not (lam.is_Rational and T.is_Rational)):
            return None
        return scheme, Fraction(int(T.p), int(T.q))

    @cached_property
    def _own_logs(self) -> tuple[list[Value], dict[int, flint.arb], dict[tuple, flint.arb]]:
        """These answers' one-threshold closed forms, their logs' balls and the powers
        ``exp(lam W)`` as made (kept: a search bounds one vector against each of its
        neighbours)."""
        assert self._one_threshold is not None  # checked by _enclosure_bound
        scheme, t = self._one_threshold
        return sequence_probabilities([Fraction(int(a.p), int(a.q)) - t
                                       for a in self.scores.exact], scheme), {}, {}

    def _enclosure_bound(self, other: ScoreVector) -> sympy.Expr | None:
        """The upper end of an arb enclosure of ``max_o |ln P(o) / P'(o)|`` from
        :func:`~exactdp.mechanisms.sparse_vector_integral.sequence_probabilities` (None:
        a fresh threshold with ``c > 1``, a symbolic or irrational ``lam`` or threshold, a
        probability whose ball is not positive). Sequences whose closed forms are the same
        two objects (equal answer counts) are enclosed once."""
        if self._one_threshold is None:
            return None
        scheme, t = self._one_threshold
        own, own_logs, powers = self._own_logs
        theirs = sequence_probabilities([Fraction(int(a.p), int(a.q)) - t
                                         for a in other.exact], scheme)
        with flint_prec(128):
            lb = to_arb(self.mechanism.rate, 128)

            def log(v: Value, logs: dict[int, flint.arb]) -> flint.arb:
                if id(v) not in logs:
                    total = flint.arb(0)
                    for (e, w), q in v.items():
                        key = (w.numerator, w.denominator)  # a Fraction's hash is slow
                        if key not in powers:
                            powers[key] = (lb * w.numerator / w.denominator).exp()
                        total += flint.arb(q.numerator) / q.denominator * lb**e * powers[key]
                    logs[id(v)] = total.log() if total > 0 else flint.arb("nan")
                return logs[id(v)]

            top = flint.arb(0)  # exact: the largest upper end of the losses' balls
            logs: dict[int, flint.arb] = {}  # equal sequences share one Value object
            seen: set[tuple[int, int]] = set()
            for p, q in zip(own, theirs, strict=True):
                if (id(p), id(q)) in seen:
                    continue
                seen.add((id(p), id(q)))
                gap = abs(log(p, own_logs) - log(q, logs))
                if not gap.is_finite():
                    return None  # a probability not shown positive
                high = gap.upper()
                top = high if high > top else top
            return sympy.Rational(arb_to_interval(top)[1])

    # ------------------------------------------------------------------ exact
    @cached_property
    def probabilities(self) -> tuple[sympy.Expr, ...]:
        """Exact probabilities (sympy) in :attr:`outputs` order (one expression per
        distinct value: sequences with equal answer counts share it)."""
        return tuple(self.mechanism.evaluate("exact", self.scores))

    def numeric_rational_form(self) -> RationalForm | None:
        """The probabilities as polynomials in ``x = exp(-lam/L)`` over one common power of
        ``x``, at this epsilon only (``lam = epsilon / sensitivity`` rational; flint
        polynomials, one per distinct probability, so the analyzer's x-form engine builds
        no sympy expression). None where there is none."""
        return self.mechanism.evaluate("numeric_rational_form", self.scores)

    def rational_form(self) -> RationalForm:
        """The probabilities as polynomials in ``x = exp(-lam/L)`` over a common power of
        ``x``, for every epsilon (symbolic allowed), where the closed form has no
        ``lam * exp(lam W)`` term (capability ``rational_form``: see
        :meth:`SparseVector.rational_obstruction`); what :func:`exactdp.certify_dp` reads.

        Raises
        ------
        ValueError
            One line saying why there is none on these answers.
        """
        return self.mechanism.evaluate("rational_form", self.scores)

    # ------------------------------------------------------------------ numeric
    def evalf_balls(self, dps: int = 30) -> tuple[flint.arb, ...]:
        """Rigorous arb enclosures with ``dps`` correct digits (zero: the exact 0)."""
        dps = check_dps("evalf", dps)
        return tuple(self.mechanism.evaluate("balls", self.scores, dps))

    def evalf(self, dps: int = 30) -> tuple[mpmath.mpf, ...]:
        """Probabilities as mpmath numbers correct to ``dps`` significant digits."""
        dps = check_dps("evalf", dps)
        vals = self.mechanism.evaluate("mp", self.scores, dps)
        with mpmath.workdps(dps):
            return tuple(+v for v in vals)

    def to_numpy(self) -> np.ndarray:
        """Probabilities as float64, in :attr:`outputs` order."""
        out = np.asarray(self.mechanism.evaluate("float", self.scores), dtype=np.float64)
        out.setflags(write=False)
        return out

    # ------------------------------------------------------------------ sampling
    def sample_index(self, size: int, rng=None) -> np.ndarray:
        """Draws as positions in :attr:`outputs`, shape (size,) (for goodness_of_fit)."""
        size = check_int("sample", "size", size, 0)
        return self.mechanism.evaluate("sample", self.scores, size, as_generator(rng, "sample"))

    def sample(self, size: int | None = None, rng=None):
        """Run the algorithm: answer sequences (a tuple for ``size=None``), else an int8
        array of shape (size, m) with 1 = True, 0 = False, -1 = not answered."""
        idx = self.sample_index(1 if size is None else size, rng)
        if size is None:
            return self.outputs[int(idx[0])]
        table = np.array([[CODES[a] for a in t] for t in self.outputs], dtype=np.int8)
        return table[idx].reshape(len(idx), self.n)

    def __repr__(self) -> str:
        return shipped_repr(self, "SparseVectorDistribution", self.label, f"m={self.n}")

    def _repr_html_(self) -> str:  # the notebook's table, as every distribution's
        return shipped_html(self, "SparseVectorDistribution")

    def _repr_latex_(self) -> str:
        return shipped_latex(self, "SparseVectorDistribution")
