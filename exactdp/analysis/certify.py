"""``certify_dp``: certificates of epsilon-DP valid for every epsilon at once.

Each privacy condition is the sign of one polynomial in ``x = exp(-epsilon/N)`` on ``(0, 1)``
(``N`` stored on the certificate),
decided by exact root isolation (:mod:`exactdp.exact.unit_interval`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import flint
import sympy

from .._validate import argument_error
from ..cost import check_seconds, pf_certify_seconds
from ..exact.arb import flint_prec, to_arb
from ..exact.poly import fmpq_poly_to_sympy
from ..exact.unit_interval import UnitIntervalSign, sign_on_unit_interval, verify_sign_analysis
from ..mechanisms.base import Mechanism
from ..numbers import exact_epsilon
from ..result import Result, brief
from .certify_laplace import (
    ConditionsVerdict,
    EpsilonInterval,
    LaplaceDPCertificate,
    certify_dp_laplace,
    needs_laplace_forms,
)
from .common import (
    EPSILON,
    X,
    as_mechanism,
    distribution_of,
    exact_sign,
    mechanism_epsilon,
    mechanism_name,
    score_vector,
)
from .engines.ball import BallEngine
from .engines.select import make_engine, pf_tree_gaps
from .engines.xform import XEngine
from .neighbourhood import neighbour_list
from .outputs import probabilities_over


# =============================================================================== certify_dp
@dataclass(frozen=True)
class ConditionCertificate:
    """One condition ``Pr[M(a) = r] <= e^eps Pr[M(b) = r]`` for every epsilon > 0.

    In ``x = exp(-epsilon/N)`` (``N`` of the :class:`DPCertificate`) it reads
    ``polynomial(x) >= 0`` on ``(0, 1)``, with
    ``polynomial = num_b * den_a - x**N * num_a * den_b`` (denominators positive).

    Attributes
    ----------
    pair : int
        Index of the neighbour in the certificate.
    output : int
        Index of the output (into :attr:`DPCertificate.outputs` when that is set).
    direction : str
        ``"q->q'"`` (a = scores, b = neighbour) or ``"q'->q"``.
    polynomial : sympy.Poly
        In ``x``.
    analysis : UnitIntervalSign
    holds : bool
    """

    pair: int
    output: int
    direction: str
    polynomial: sympy.Poly
    analysis: UnitIntervalSign
    holds: bool

    @property
    def roots(self) -> tuple[sympy.Expr, ...]:
        """Exact roots of the polynomial in ``(0, 1)``."""
        return self.analysis.exact_roots()


@dataclass(frozen=True)
class DPCertificate(ConditionsVerdict, Result):
    """Exact certificate of the epsilon-DP bound on given pairs, for every epsilon > 0.

    Attributes
    ----------
    scores : tuple
    neighbours : tuple of tuple
    N : int
        The generator is ``x = exp(-epsilon/N)``, so ``e^epsilon = x**(-N)``.
    forms : tuple
        Per vector (scores first, then the neighbours), per output ``(num, den)`` sympy
        ``Poly`` in ``x``.
    conditions : tuple of ConditionCertificate
    denominators : tuple of UnitIntervalSign
        Sign analyses proving every denominator positive on ``(0, 1)``.
    mechanism : Mechanism
        The mechanism at the symbolic epsilon.
    epsilon : sympy.Symbol
    x : sympy.Symbol
        The generator's symbol.
    outputs : tuple or None
        A mechanism releasing a sequence: the outputs ``forms[i][r]`` indexes on every
        vector (the union of the vectors' outputs when they differ, an output a vector
        does not reach having the form 0 there); None for the other kinds.

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): a verdict (``holds``) with no
    headline number (``value`` is None); ``summary()`` prints the conditions.
    """

    headline = None

    scores: tuple
    neighbours: tuple
    N: int
    forms: tuple
    conditions: tuple
    denominators: tuple
    mechanism: Mechanism = field(repr=False)
    epsilon: sympy.Symbol = EPSILON
    x: sympy.Symbol = X
    certified: bool = True  # exact root isolation; re-check with verify()
    caveat: str | None = None
    outputs: tuple | None = field(default=None, repr=False)
    #: True iff every condition holds for every epsilon > 0 (set from ``conditions``).
    holds: bool = field(init=False, default=False)

    def repr_parts(self) -> list[str]:
        parts = [f"scores={brief(self.scores)}", f"neighbours={len(self.neighbours)}",
                 f"conditions={len(self.conditions)}", f"failing={len(self.failing)}",
                 f"N={self.N}"]
        if not self.holds:
            parts.append(f"fails for epsilon in {brief(self.failing_epsilon_intervals, 50)}")
        return parts

    @property
    def failing(self) -> tuple[ConditionCertificate, ...]:
        """The conditions that fail for some epsilon."""
        return tuple(c for c in self.conditions if not c.holds)

    def _eps_interval(self, lo, hi) -> sympy.Interval:
        a = sympy.Integer(0) if hi == 1 else -self.N * sympy.log(hi)
        b = sympy.oo if lo == 0 else -self.N * sympy.log(lo)
        return sympy.Interval.open(a, b)

    @cached_property
    def failing_epsilon_intervals(self) -> sympy.Set:
        """The set of epsilon > 0 at which some condition fails (a union of open intervals).

        ``EmptySet`` when the certificate holds. An x-interval ``(lo, hi)`` maps to
        ``(-N ln hi, -N ln lo)``.
        """
        sets = [
            self._eps_interval(lo, hi)
            for c in self.failing
            for lo, hi in c.analysis.negative_intervals()
        ]
        return sympy.Union(*sets) if sets else sympy.EmptySet

    @property
    def failing_epsilons(self) -> tuple[EpsilonInterval, ...]:
        """:attr:`failing_epsilon_intervals` as open :class:`EpsilonInterval` (exact ends;
        None for oo): the field :class:`LaplaceDPCertificate` shares."""
        return tuple(EpsilonInterval(iv.start, None if iv.end is sympy.oo else iv.end)
                     for iv in set_intervals(self.failing_epsilon_intervals))

    def holds_at(self, epsilon: object) -> bool:
        """True iff every condition holds at this epsilon.

        Parameters
        ----------
        epsilon : exact positive number
            Validated by :func:`exactdp.numbers.exact_epsilon`.

        Raises
        ------
        ValueError
            If epsilon is not a finite number > 0 (the certificate covers epsilon > 0 only).
        """
        e = exact_epsilon(epsilon, "DPCertificate.holds_at")
        if e.free_symbols:
            raise argument_error("DPCertificate.holds_at", "epsilon", "a number, not a symbol",
                                 epsilon)
        return not any(
            exact_sign(e - iv.start) == 1 and exact_sign(iv.end - e) == 1
            for iv in set_intervals(self.failing_epsilon_intervals)
        )

    def verify(self) -> bool:
        """Re-verify the certificate by independent routes.

        1. each condition polynomial is recomputed from the stored forms with sympy
           arithmetic and compared with the stored one;
        2. each sign analysis (conditions and denominators) is re-verified with Sturm
           counting and exact evaluation at rational points between the roots;
        3. the forms sum to 1 identically;
        4. the forms agree with the mechanism's own exact probabilities at epsilon = 1/3
           and 2 (ball arithmetic, 200 bits).

        Returns
        -------
        bool
        """
        x = self.x
        for c in self.conditions:
            a, b = (0, c.pair + 1) if c.direction == "q->q'" else (c.pair + 1, 0)
            na, da = (f.as_expr() for f in self.forms[a][c.output])
            nb, db = (f.as_expr() for f in self.forms[b][c.output])
            poly = sympy.Poly(sympy.expand(nb * da - x**self.N * na * db), x, domain="QQ")
            if poly != c.polynomial:
                return False
            if (c.analysis.nonnegative != c.holds) or not verify_sign_analysis(c.analysis):
                return False
        for d in self.denominators:
            if not (d.positive and verify_sign_analysis(d)):
                return False
        for forms in self.forms:
            total = sympy.cancel(sympy.Add(*[n.as_expr() / d.as_expr() for n, d in forms]))
            if total != 1:
                return False
        vectors = (self.scores,) + self.neighbours
        for e in (sympy.Rational(1, 3), sympy.Integer(2)):
            mech = self.mechanism.with_epsilon(e)
            xv = to_arb(-e / self.N, 200).exp()
            for vec, forms in zip(vectors, self.forms, strict=True):
                sv = score_vector(vec, "scores", "DPCertificate.verify")
                dist = distribution_of(mech, sv)
                probs = (dist.probabilities if self.outputs is None
                         else probabilities_over(self.outputs, dist, sympy.Integer(0)))
                if probs is None:  # an output the certificate does not have
                    return False
                for p, (n_, d_) in zip(probs, forms, strict=True):
                    fv = _eval_poly(n_, xv) / _eval_poly(d_, xv)
                    if not (to_arb(p, 200) - fv).contains(0):
                        return False
        return True


def _eval_poly(p: sympy.Poly, x: flint.arb) -> flint.arb:
    with flint_prec(200):
        coeffs = [flint.arb(flint.fmpq(int(c.p), int(c.q))) for c in p.all_coeffs()[::-1]]
        return flint.arb_poly(coeffs)(x)


def set_intervals(s: sympy.Set) -> list[sympy.Interval]:
    """The intervals making up the sympy set ``s`` (empty list for the empty set)."""
    if s is sympy.EmptySet:
        return []
    if isinstance(s, sympy.Interval):
        return [s]
    return [a for a in s.args if isinstance(a, sympy.Interval)]


def _refuse_epsilon_limit(mechanism: object) -> None:
    """Refuse a mechanism at epsilon = 0 or oo: the certificate covers finite epsilon > 0."""
    eps0 = mechanism_epsilon(as_mechanism(mechanism, "certify_dp"))
    if eps0 is not None and not eps0.free_symbols and (eps0 == 0 or eps0 is sympy.oo):
        raise ValueError(
            f"certify_dp: the certificate covers every finite epsilon > 0, but this mechanism "
            f"has epsilon = {eps0} (a limit); use check_dp or privacy_loss for the limit"
        )


def _symbolic_mechanism(mech: object, func: str):
    mech = as_mechanism(mech, func)
    eps = mechanism_epsilon(mech)
    if eps is not None and eps.free_symbols:
        return mech.with_epsilon(EPSILON) if eps != EPSILON else mech
    return mech.with_epsilon(EPSILON)


def _check_rational_forms(mech: Mechanism, vectors: list) -> None:
    """Refuse, saying why (the ``rational_form`` view's own refusal), scores on which a
    mechanism declaring forms in x has none (the sparse vector technique where
    :meth:`exactdp.SparseVector.rational_obstruction` holds)."""
    if "rational_form" not in mech.capabilities:
        return
    for v in vectors:
        if "rational_form" in mech.capabilities_on(v):
            continue
        try:
            mech.evaluate("rational_form", v)
        except ValueError as exc:
            raise ValueError(f"certify_dp: {type(mech).__name__} on {list(v.exact)} has no "
                             f"form rational in x = exp(-epsilon/N): {exc}; use check_dp at "
                             "a numeric epsilon") from None


def certify_dp(
    mechanism: object,
    scores: object,
    neighbour: object | None = None,
    *,
    search: str = "auto",
    allow_non_neighbour: bool = False,
) -> DPCertificate | LaplaceDPCertificate:
    """Prove (or refute) the epsilon-DP bound on rational scores for every epsilon > 0.

    With ``x = exp(-epsilon/N)`` (``N`` the least integer making every probability a
    rational function of ``x``; ``N = c*Delta*L`` for integer sensitivity) every
    probability is ``num(x)/den(x)`` with rational coefficients and ``e^epsilon =
    x**(-N)``. The condition ``P_r(a) <= e^eps P_r(b)`` becomes
    ``num_b den_a - x^N num_a den_b >= 0`` on ``x in (0, 1)`` (denominators are proved
    positive there), decided by exact real-root isolation.

    Parameters
    ----------
    mechanism : Mechanism
        A mechanism with ``with_epsilon`` (or a symbolic epsilon) whose probabilities are
        rational in ``exp(epsilon/N)``: PF, EM, RNM with exponential or Gumbel noise, or a
        user mechanism of that form. Its numeric epsilon, if any, is ignored.
    scores : sequence of rational numbers, shape (n,)
    neighbour : sequence, shape (n,), optional
        ``None``: the neighbours of :func:`neighbours` (``search``).
    search : {"auto", "exhaustive", "reduced"}
    allow_non_neighbour : bool

    Returns
    -------
    DPCertificate or LaplaceDPCertificate
        ``.holds``, ``.failing_epsilons``, ``.verify()``. Where some probability is not
        rational in ``x`` but an exponential polynomial in epsilon (Laplace noise: RNM,
        the sparse vector family), a
        :class:`~exactdp.analysis.certify_laplace.LaplaceDPCertificate` (Polya-Szego zero
        isolation, :mod:`exactdp.exact.exp_poly`).

    Raises
    ------
    ValueError
        Irrational scores, a mechanism with neither form, or the input errors of
        :func:`privacy_loss`.

    References
    ----------
    docs/formulas.md section 2 (x-form); Collins & Akritas (1976) for root isolation. The idea of
    deciding DP by exact arithmetic follows G. Barthe et al., "Deciding differential
    privacy for programs with finite inputs and outputs" (DiPC), LICS 2020.

    Examples
    --------
    >>> import sympy
    >>> import exactdp
    >>> eps = sympy.Symbol("epsilon", positive=True)
    >>> pf = exactdp.PermuteAndFlip(eps)
    >>> cert = exactdp.certify_dp(pf, [0, -1, -2], [1, -2, -1])
    >>> cert.holds, cert.verify()
    (True, True)
    """
    _refuse_epsilon_limit(mechanism)
    mech = _symbolic_mechanism(mechanism, "certify_dp")
    q = score_vector(scores, "scores", "certify_dp")
    if not q.is_rational:
        raise argument_error("certify_dp", "scores", "rational (integers or fractions)", scores)
    nbrs, _ = neighbour_list(mech, q, neighbour, search, allow_non_neighbour, "certify_dp")
    if not all(v.is_rational for v in nbrs):
        raise argument_error("certify_dp", "neighbour", "rational (integers or fractions)",
                             neighbour)
    mech.check_cost("certify_dp", [q, *nbrs])  # before any closed form (RNM-Laplace's)
    if needs_laplace_forms(mech, [q, *nbrs]):  # exponential polynomials in epsilon
        return certify_dp_laplace(mech, q, nbrs)
    trees = pf_tree_gaps(mech, [q] + nbrs)
    if trees:  # one sign analysis per neighbour, output and direction, of PF's degree
        degree = max(len(G) * G[-1] + sum(G) for G in trees)
        count = 2 * len(nbrs) * q.n
        check_seconds(
            "certify_dp", f"the exact sign analyses of {count} polynomials of degree "
            f"about {degree} (n = {q.n} outputs)", pf_certify_seconds(count, degree),
            "pass the one neighbour to certify (neighbour=...), certify fewer scores, or "
            "use check_dp at a numeric epsilon")
    _check_rational_forms(mech, [q, *nbrs])
    engine = make_engine(mech, [q] + nbrs, "certify_dp", dense_only=True)
    if isinstance(engine, BallEngine):
        raise ValueError(
            f"certify_dp: {mechanism_name(mechanism)} has no exact probabilities here "
            "(e.g. Gaussian noise), so no certificate for every epsilon exists; use check_dp "
            "with a numeric epsilon (certified ball arithmetic)"
        )
    if not isinstance(engine, XEngine):
        raise ValueError(
            f"certify_dp: the probabilities of {mechanism_name(mechanism)} are not rational "
            "functions of exp(-epsilon/N) (e.g. RNM-Laplace has epsilon*exp(-epsilon) terms); use "
            "check_dp at numeric epsilon or sup_privacy_loss"
        )
    N = engine.N
    mono = flint.fmpq_poly([0] * N + [1])
    dens: dict = {}
    for probs in engine.probs:
        for _, d in probs:
            key = tuple(d.coeffs())
            if key not in dens:
                dens[key] = sign_on_unit_interval(d)
    flipped: set = set()
    for key, an in dens.items():
        s = an.constant_sign
        if an.roots or s not in (1, -1):
            raise ValueError("certify_dp: a probability denominator vanishes in (0, 1)")
        if s == -1:
            flipped.add(key)
    probs_pos = [
        [(-n, -d) if tuple(d.coeffs()) in flipped else (n, d) for n, d in probs]
        for probs in engine.probs
    ]
    conditions = []
    for j in range(1, len(nbrs) + 1):
        for r in range(len(probs_pos[0])):  # the outputs (n of a selection, or sequences)
            for direction, (a, b) in (("q->q'", (0, j)), ("q'->q", (j, 0))):
                na, da = probs_pos[a][r]
                nb, db = probs_pos[b][r]
                f = nb * da - mono * na * db
                an = sign_on_unit_interval(f, X)
                conditions.append(
                    ConditionCertificate(j - 1, r, direction, an.poly, an, an.nonnegative)
                )
    forms = tuple(
        tuple((fmpq_poly_to_sympy(n, X), fmpq_poly_to_sympy(d, X)) for n, d in probs)
        for probs in probs_pos
    )
    den_analyses = tuple(
        sign_on_unit_interval(-flint.fmpq_poly(list(k)) if k in flipped
                              else flint.fmpq_poly(list(k)), X)
        for k in dens
    )
    return DPCertificate(
        q.values, tuple(v.values for v in nbrs), N, forms, tuple(conditions),
        den_analyses, mech, outputs=engine.outputs,
    )
