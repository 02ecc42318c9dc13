"""The distribution of :class:`~exactdp.mechanisms.sparse_vector.SparseVector` on one
vector of query answers: the answer sequences, their exact probabilities (closed-form
integrals, :mod:`exactdp.mechanisms.sparse_vector_integral`) and every view of them.

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017: Algorithms 1, 2, 4, 5 and 6 (Figure 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import lcm
from typing import TYPE_CHECKING

import flint
import numpy as np
import sympy

from .._validate import argument_error, check_dps, check_int
from ..exact import flint_prec, to_arb
from ..rational_form import RationalForm
from ..rng import as_generator
from ..scores import ScoreVector
from ..xform import DENSE_DEGREE_LIMIT
from .base import X
from .sparse_vector_integral import Value, answer_sequences, sequence_probabilities
from .sparse_vector_release import BallViews, as_fraction

if TYPE_CHECKING:
    from .sparse_vector import SparseVector


#: Answer -> code in :meth:`SparseVectorDistribution.sample` arrays.
CODES = {True: 1, False: 0, None: -1}



@dataclass(frozen=True, eq=False)
class SparseVectorDistribution(BallViews):
    """The distribution of :class:`SparseVector` on one vector of query answers.

    ``outputs`` are the answer sequences (tuples of ``True``, ``False``, ``None``) in the
    order of ``itertools.product((True, False), repeat=m)``, with every entry after the
    ``c``-th ``True`` replaced by ``None`` and repeats dropped. Views, in that order:
    ``probabilities`` (exact sympy), ``evalf(dps)`` (mpmath), ``to_numpy()`` (float64),
    ``sample(size, rng)`` (the algorithm itself).
    """

    mechanism: SparseVector
    scores: ScoreVector

    @property
    def n(self) -> int:
        """The number of queries m."""
        return self.scores.n

    @cached_property
    def outputs(self) -> tuple[tuple[bool | None, ...], ...]:
        """The answer sequences, in the documented order."""
        return tuple(answer_sequences(self.n, self.mechanism.scheme.cutoff))

    @property
    def capabilities(self) -> frozenset[str]:
        """The views this distribution has (:meth:`SparseVector.capabilities_on`)."""
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
            raise argument_error("SparseVector", "output", f"an answer sequence of length "
                                 f"{self.n} (see .outputs)", output)
        return self._position[key]

    def pmf(self, output) -> sympy.Expr:
        """Exact probability of one answer sequence."""
        return self.probabilities[self.index(output)]

    # ------------------------------------------------------------------ exact
    @cached_property
    def values(self) -> list[Value]:
        """Each probability as ``{(e, W): q}``: ``sum q lam**e exp(lam W)``, ``lam =
        epsilon / sensitivity`` (the closed form before it becomes a sympy expression).
        Sequences with equal answer counts share one mapping, also across score vectors
        (a cache): read them, do not modify them."""
        T = as_fraction(self.mechanism.threshold)
        offsets = [as_fraction(x) - T for x in self.scores.exact]
        return sequence_probabilities(offsets, self.mechanism.scheme)

    @cached_property
    def probabilities(self) -> tuple[sympy.Expr, ...]:
        """Exact probabilities (sympy) in :attr:`outputs` order (one expression per
        distinct value: sequences with equal answer counts share it)."""
        lam = self.mechanism.rate
        built: dict[int, sympy.Expr] = {}
        for v in self.values:
            if id(v) not in built:
                built[id(v)] = sympy.Add(*[
                    sympy.Rational(q.numerator, q.denominator) * lam**e
                    * sympy.exp(lam * sympy.Rational(w.numerator, w.denominator))
                    for (e, w), q in sorted(v.items())])
        return tuple(built[id(v)] for v in self.values)

    def numeric_rational_form(self) -> RationalForm | None:
        """The probabilities as polynomials in ``x = exp(-lam/L)`` over one common power of
        ``x``, at this epsilon only (``lam = epsilon / sensitivity`` rational): a term
        ``q lam**e exp(lam W)`` is the rational ``q lam**e`` times ``x**(-L W)``, ``L`` the
        common denominator of the ``W``. Flint polynomials, one per distinct probability
        (shared by sequences with equal answer counts), so the analyzer's x-form engine
        builds no sympy expression. None for an irrational rate or a degree above
        :data:`exactdp.xform.DENSE_DEGREE_LIMIT`."""
        lam = self.mechanism.rate
        if self.mechanism.epsilon.free_symbols or not lam.is_Rational:
            return None
        return self._x_form(flint.fmpq(int(lam.p), int(lam.q)))

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
        why = self.mechanism.rational_obstruction(self.scores)
        if why is not None:
            raise ValueError(f"SparseVector: no rational form in x here: {why}")
        rf = self._x_form(None)
        if rf is None:
            raise ValueError("SparseVector: no rational form in x here: its degree is above "
                             f"DENSE_DEGREE_LIMIT = {DENSE_DEGREE_LIMIT}")
        return rf

    def _x_form(self, lq: flint.fmpq | None) -> RationalForm | None:
        """The polynomials, each term's ``lam**e`` evaluated at ``lq`` (None: no such term
        is present, every ``e`` is 0)."""
        distinct = {id(v): v for v in self.values}
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
        return RationalForm(X, None, sympy.exp(-self.mechanism.rate / L), L,
                            polys=tuple(polys[id(v)] for v in self.values), denominator=den)

    # ------------------------------------------------------------------ numeric
    def evalf_balls(self, dps: int = 30) -> tuple[flint.arb, ...]:
        """Rigorous arb enclosures with ``dps`` correct digits (zero: the exact 0),
        evaluated from the closed form at rising precision."""
        dps = check_dps("evalf", dps)
        if self.mechanism.epsilon.free_symbols:
            raise ValueError(f"SparseVector: epsilon is symbolic ({self.mechanism.epsilon}); "
                             "numeric views need a number")
        target = 2.0 ** -(dps * 3.33 + 4)
        prec = int(dps * 3.33) + 64
        while True:
            with flint_prec(prec):
                lam = to_arb(self.mechanism.rate, prec)
                out = []
                for v in self.values:
                    s = flint.arb(0)
                    for (e, w), q in v.items():
                        s += flint.arb(q.numerator) / q.denominator * lam**e * (
                            lam * flint.arb(w.numerator) / w.denominator).exp()
                    out.append(s)
                ok = all(b.is_exact() or (b > 0 and b.rad() < target * b.mid())
                         for b in out)
            if ok or prec > 1 << 16:
                return tuple(out)
            prec *= 2

    # ------------------------------------------------------------------ sampling
    def sample_index(self, size: int, rng=None) -> np.ndarray:
        """Draws as positions in :attr:`outputs`, shape (size,) (for goodness_of_fit)."""
        codes = self._run(check_int("sample", "size", size, 0), as_generator(rng, "sample"))
        lookup = {tuple(CODES[a] for a in t): i for i, t in enumerate(self.outputs)}
        return np.array([lookup[tuple(row)] for row in codes.tolist()], dtype=np.int64)

    def sample(self, size: int | None = None, rng=None):
        """Run the algorithm: answer sequences (a tuple for ``size=None``), else an int8
        array of shape (size, m) with 1 = True, 0 = False, -1 = not answered."""
        gen = as_generator(rng, "sample")
        codes = self._run(1 if size is None else check_int("sample", "size", size, 0), gen)
        if size is None:
            back = {v: k for k, v in CODES.items()}
            return tuple(back[int(v)] for v in codes[0])
        return codes

    def _run(self, size: int, gen: np.random.Generator) -> np.ndarray:
        mech = self.mechanism
        scheme = mech.scheme
        a = self.scores.floats
        T = float(mech.threshold)
        b1 = float(mech.scale)
        b2 = None if mech.query_scale is None else float(mech.query_scale)
        m = self.n
        rho = gen.laplace(scale=b1, size=size)
        trues = np.zeros(size, dtype=np.int64)
        out = np.full((size, m), -1, dtype=np.int8)
        for i in range(m):
            live = trues < scheme.cutoff if scheme.cutoff is not None else np.ones(size, bool)
            noisy = a[i] + (gen.laplace(scale=b2, size=size) if b2 is not None else 0.0)
            above = noisy >= T + rho
            out[live, i] = above[live]
            hit = live & above
            trues += hit
            if scheme.fresh_threshold:
                rho[hit] = gen.laplace(scale=b1, size=int(hit.sum()))
        return out

    def __repr__(self) -> str:
        return (f"SparseVectorDistribution(SVT{self.mechanism.variant}, m={self.n}, "
                f"c={self.mechanism.c})")
