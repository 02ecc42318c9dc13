"""Exact privacy-loss distributions (PLDs) of a selection mechanism on one neighbouring pair.

For neighbouring score vectors ``q, q'`` a selection mechanism has a finite output space, so
its privacy loss ``L(r) = ln(P_r / Q_r)`` (``P = M(q)``, ``Q = M(q')``, ``r ~ P``) takes finitely
many values. This module keeps that law exactly:

- an *atom* of a PLD is a set of output sequences whose losses are proved equal; its P- and
  Q-masses are exact sums of products of the pair's exact probabilities (each atom is stored as
  ``{counts: multiplicity}``: ``counts[i]`` is how often base outcome ``i`` occurs);
- composition multiplies the two distributions (the loss of independent runs adds), and atoms
  whose losses are proved equal are merged. Equality is decided by exact algebra only: in the
  x-form ``x = exp(-epsilon/(c*Delta*N))`` of EM, permute-and-flip and RNM-exponential/Gumbel
  (McKenna & Sheldon 2020, section 2) a loss ratio is a rational function of ``x``, and two
  ratios are merged when the rational functions are identical; otherwise only identical
  output-count vectors are merged. Unmerged equal losses are still a correct distribution;
- numbers come from python-flint ``arb`` balls (rigorous, :func:`exactdp.exact.arb.to_arb`);
  signs are decided by balls at rising precision and, where a ball cannot separate a loss
  from the queried epsilon, by an exact polynomial identity (x-form) or
  :func:`exactdp.exact.signs.sign`; if nothing decides, ``UndecidedSignError`` is raised.

The hockey-stick divergence ``delta(eps) = sum_r max(0, P_r - e^eps Q_r)`` is the privacy
curve of the pair (Balle, Barthe & Gaboardi 2018, Thm 1; Dong, Roth & Su 2022, section 2);
``delta(eps) = P(S) - e^eps Q(S)`` with ``S = {L > eps}``, so it is exact given ``S``.

References
----------
S. Meiser & E. Mohammadi, "Tight on budget? Tight bounds for r-fold approximate differential
privacy", CCS 2018 (privacy-loss distributions and their composition).
A. Koskela, J. Jalko & A. Honkela, "Computing tight differential privacy guarantees using FFT",
AISTATS 2020 (discretised PLDs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import flint
import sympy

from ..._validate import argument_error, check_int
from ...cost import check_exact_exponent, exponent_digits
from ...exact.arb import dps_to_prec, flint_prec, to_arb
from ...exact.signs import UndecidedSignError
from ...exact.signs import sign as exact_sign
from ...printing import latex_array, latex_math
from .grid import (
    DiscretisedPLD,
    LatticeComponent,
    LatticePiece,
    atoms_on_lattice,
    check_tolerances,
    composition,
    positive_part,
)
from .results import (
    EpsilonResult,
    HockeyStick,
    bisect_epsilon,
    check_delta,
    check_epsilon,
    power_by_squaring,
)
from .xform import (
    XForm,
    commensurable_step,
    concat_xform,
    eval_poly,
    group_terms,
    ratio_polys,
    spread,
)

#: Largest number of output-count vectors an exact composition keeps (beyond: a grid bound).
MAX_SUPPORT = 200_000
#: Largest number of output-count vectors ``self_compose`` counts by default when the losses
#: lie on one exact lattice (beyond it the lattice is faster; docs/benchmarks.md, issue 36).
EXACT_SUPPORT = 300
#: Most copies composed exactly (the exact terms grow with k; 10^4 copies take ~10 s).
MAX_EXACT_COPIES = 10**4
#: Most copies :meth:`PrivacyLossDistribution.self_compose` accepts at all (the grid lower
#: bound takes ~40 s at 10^5 copies on one core).
MAX_COPIES = 10**5


# ----------------------------------------------------------------------------- exact forms


# ----------------------------------------------------------------------------- the PLD
@dataclass(frozen=True, eq=False)
class PrivacyLossDistribution:
    """The exact law of the privacy loss ``ln(P_r/Q_r)``, ``r ~ P``, of a (composed) pair.

    Build it with :func:`privacy_loss_distribution`; compose with :meth:`compose` and
    :meth:`self_compose`.

    Attributes
    ----------
    p_base, q_base : tuple of sympy.Expr
        Exact P- and Q-masses of the base outcomes (outputs of the pair, or groups of outputs
        with provably equal loss), all positive.
    atoms : tuple of dict
        Each atom maps output-count vectors (tuples over the base outcomes) to multiplicities;
        all count vectors of an atom have provably equal loss.
    p_inf : sympy.Expr
        P-mass of the outputs with ``Q_r = 0`` (loss ``+oo``).
    q_ninf : sympy.Expr
        Q-mass of the outputs with ``P_r = 0`` (loss ``-oo``; needed by :meth:`reverse`).
    k : int
        Number of composed copies (1 for a pair).
    description : str
        Which pair(s) and mechanism(s).

    Examples
    --------
    >>> import exactdp
    >>> pf = exactdp.PermuteAndFlip(2)
    >>> pld = exactdp.privacy_loss_distribution(pf, [0, 0], [1, -1])
    >>> pld.k
    1
    >>> pld10 = pld.self_compose(10)
    >>> pld10.k
    10
    >>> 0 < float(pld10.delta(8)) < float(pld.delta(0))
    True
    """

    p_base: tuple
    q_base: tuple
    atoms: tuple
    p_inf: sympy.Expr
    q_ninf: sympy.Expr
    k: int
    description: str
    xform: XForm | None = field(default=None, repr=False)
    guard_bits: int = field(default=0, repr=False)

    # ------------------------------------------------------------------ structure
    def __len__(self) -> int:
        """Number of atoms (distinct proved-equal loss classes) with finite loss."""
        return len(self.atoms)

    @property
    def support_terms(self) -> int:
        """Number of output-count vectors stored (the work per evaluation)."""
        return sum(len(a) for a in self.atoms)

    def reverse(self) -> PrivacyLossDistribution:
        """The PLD from ``Q`` to ``P`` (loss ``ln(Q_r/P_r)``, ``r ~ Q``)."""
        xf = self.xform
        if xf is not None:
            xf = XForm(xf.rate, xf.N, xf.num_q, xf.den_q, xf.num_p, xf.den_p)
        return PrivacyLossDistribution(
            self.q_base, self.p_base, self.atoms, self.q_ninf, self.p_inf, self.k,
            f"reverse of ({self.description})", xf, guard_bits=self.guard_bits,
        )

    def _mass(self, counts: tuple, base: tuple) -> sympy.Expr:
        return sympy.Mul(*[b**c for b, c in zip(base, counts, strict=True) if c])

    def atom_masses(self, i: int) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr]:
        """Exact ``(loss, P-mass, Q-mass)`` of atom ``i`` as sympy expressions."""
        atom = self.atoms[i]
        counts = next(iter(atom))
        loss = sympy.Add(*[c * sympy.log(p / q) for p, q, c in
                           zip(self.p_base, self.q_base, counts, strict=True) if c])
        pm = sympy.Add(*[m * self._mass(c, self.p_base) for c, m in atom.items()])
        qm = sympy.Add(*[m * self._mass(c, self.q_base) for c, m in atom.items()])
        return loss, pm, qm

    # ------------------------------------------------------------------ composition
    def compose(self, other: PrivacyLossDistribution,
                max_support: int = MAX_SUPPORT) -> PrivacyLossDistribution:
        """The exact PLD of running both pairs independently (losses add).

        Parameters
        ----------
        other : PrivacyLossDistribution
        max_support : int
            Largest number of stored output-count vectors.

        Raises
        ------
        ValueError
            If the exact composition would store more than ``max_support`` count vectors
            (use :func:`exactdp.compose`, which encloses the curve on a loss lattice).
        """
        if not isinstance(other, PrivacyLossDistribution):
            if isinstance(other, (DiscretisedPLD, LatticeComponent)):
                return composition((self, other))
            raise argument_error("compose", "other", "a privacy-loss distribution", other)
        same = self.p_base is other.p_base and self.q_base is other.q_base
        if same:
            p_base, q_base, xf = self.p_base, self.q_base, self.xform
            pad = lambda c1, c2: tuple(a + b for a, b in zip(c1, c2, strict=True))  # noqa: E731
        else:
            p_base, q_base = self.p_base + other.p_base, self.q_base + other.q_base
            xf = concat_xform(self.xform, other.xform)
            pad = lambda c1, c2: c1 + c2  # noqa: E731
        estimate = self.support_terms * other.support_terms
        if estimate > max_support and not same:
            raise ValueError(f"compose: {estimate} count vectors exceed max_support={max_support}")
        terms: dict[tuple, int] = {}
        for a1 in self.atoms:
            for a2 in other.atoms:
                for c1, m1 in a1.items():
                    for c2, m2 in a2.items():
                        c = pad(c1, c2)
                        terms[c] = terms.get(c, 0) + m1 * m2
        if len(terms) > max_support:
            raise ValueError(
                f"compose: {len(terms)} count vectors exceed max_support={max_support}")
        one_minus = (1 - self.p_inf) * (1 - other.p_inf)
        q_one_minus = (1 - self.q_ninf) * (1 - other.q_ninf)
        return PrivacyLossDistribution(
            p_base, q_base, group_terms(terms, xf), sympy.expand(1 - one_minus),
            sympy.expand(1 - q_one_minus), self.k + other.k,
            f"({self.description}) o ({other.description})", xf,
            guard_bits=max(self.guard_bits, other.guard_bits),
        )

    def self_compose(self, k: int, max_support: int | None = None):
        """The k-fold composition: exact if it fits in ``max_support``, else on a lattice.

        Parameters
        ----------
        k : int
            Number of copies, >= 1.
        max_support : int or None
            Largest number of output-count vectors kept exactly. None (the default): up to
            :data:`EXACT_SUPPORT` count vectors are counted exactly; beyond, a pair whose
            losses lie on one exact lattice (:meth:`lattice_step`: EM, and any pair whose
            loss ratios differ by integer powers of ``x``) goes to the certified lattice on
            that step, whose bounds agree with the exact count's to working precision at a
            fraction of its cost; other pairs are counted up to :data:`MAX_SUPPORT`. An
            integer forces the exact count up to that many count vectors.

        Returns
        -------
        PrivacyLossDistribution or DiscretisedPLD
            Exact; or the composition whose ``delta`` / ``epsilon`` are certified two-sided
            enclosures refined to the requested tolerance (:class:`DiscretisedPLD`,
            ``algorithm="grid"``: certified, never "exact").

        Raises
        ------
        ValueError
            If ``k`` or ``max_support`` is not a positive integer, or ``k > MAX_COPIES``
            (10^5).
        """
        k = check_int("self_compose", "k", k, 1)
        if max_support is not None:
            max_support = check_int("self_compose", "max_support", max_support, 1)
        if k > MAX_COPIES:
            raise ValueError(
                f"self_compose: k = {k} copies is beyond the limit {MAX_COPIES:.0e} (exact "
                f"composition stops at {MAX_EXACT_COPIES:.0e} copies and the certified "
                "lattice grows with k); compose fewer copies")
        if k == 1:
            return self
        description = f"{k}-fold composition of ({self.description})"
        lattice = DiscretisedPLD(((self, k),), description)
        m = len(self.p_base)
        support = math.comb(k * self.k + m - 1, m - 1)  # count vectors (a bound if k > 1)
        if max_support is None:
            if support > EXACT_SUPPORT and lattice.exact_step_fits() is not None:
                return lattice
            max_support = MAX_SUPPORT
        if k > MAX_EXACT_COPIES or support > max_support:
            return lattice
        if self.k == 1 and all(len(a) == 1 for a in self.atoms):  # elementary
            return PrivacyLossDistribution(
                self.p_base, self.q_base, group_terms(_multinomial_terms(k, m), self.xform),
                sympy.expand(1 - (1 - self.p_inf) ** k), sympy.expand(1 - (1 - self.q_ninf) ** k),
                k, description, self.xform, guard_bits=self.guard_bits,
            )
        return power_by_squaring(self, k, lambda a, b: a.compose(b, max_support))

    def lattice_step(self) -> sympy.Expr | None:
        """The exact step ``h`` of a lattice holding every finite loss, or None: EM on
        rational scores, and any x-form pair whose ratios differ by integer powers of ``x``
        (:func:`~exactdp.analysis.pld.xform.commensurable_step`)."""
        if self.xform is None:
            return None
        found = commensurable_step(self.xform)
        return None if found is None else found[0]

    # ------------------------------------------------------------------ lattice interface
    #: Finite losses are bounded (the lattice's "beyond k times the largest loss" rule holds).
    bounded = True

    def lattice_losses(self) -> list[float]:
        """Floats of the finite losses (only to choose a lattice step)."""
        losses = self._balls_cache(128)[0]
        return [float(b.mid()) for b in losses] or [0.0]

    def lattice_ball_span(self, bits: int) -> flint.arb:
        """Ball of the largest minus the smallest finite loss."""
        losses = self._balls_cache(bits)[0]
        mids = [float(b.mid()) for b in losses]
        with flint_prec(bits):
            return losses[mids.index(max(mids))] - losses[mids.index(min(mids))]

    def loss_span(self) -> float:
        """Largest minus smallest finite loss (float, for the cost model)."""
        v = self.lattice_losses()
        return max(v) - min(v) + 1e-9

    def lattice(self, h: flint.arb, bits: int) -> LatticePiece:
        """The atoms at their nearest points of ``min loss + h*Z`` (certified residuals)."""
        losses, pm, _ = self._balls_cache(bits)
        with flint_prec(bits):
            p_inf = to_arb(self.p_inf, bits)
            if not losses:
                return LatticePiece(flint.arb(0), [flint.arb(0)], flint.arb(0), flint.arb(0),
                                    p_inf)
            return atoms_on_lattice(losses, pm, p_inf, h)

    # ------------------------------------------------------------------ numbers
    def _balls(self, bits: int) -> tuple[list, list, list]:
        """Balls of each atom's loss, P-mass and Q-mass at ``bits`` (+ the guard bits)."""
        bits += self.guard_bits
        with flint_prec(bits):
            if self.xform is not None:
                x = self.xform.x_ball(bits)
                pb = [eval_poly(n, x) / eval_poly(d, x)
                      for n, d in zip(self.xform.num_p, self.xform.den_p, strict=True)]
                qb = [eval_poly(n, x) / eval_poly(d, x)
                      for n, d in zip(self.xform.num_q, self.xform.den_q, strict=True)]
            else:
                pb = [to_arb(p, bits) for p in self.p_base]
                qb = [to_arb(q, bits) for q in self.q_base]
            lb = [(p / q).log() for p, q in zip(pb, qb, strict=True)]
            top = max((max(c) for atom in self.atoms for c in atom), default=0)
            pw, qw = _power_table(pb, top), _power_table(qb, top)
            losses, pm, qm = [], [], []
            for atom in self.atoms:
                counts = next(iter(atom))
                losses.append(sum((c * v for c, v in zip(counts, lb, strict=True) if c),
                                  flint.arb(0)))
                pm.append(_atom_ball(atom, pw))
                qm.append(_atom_ball(atom, qw))
        return losses, pm, qm

    def _sign_vs(self, i: int, epsilon: sympy.Expr, bits: int) -> int:
        """Sign of ``loss_i - epsilon``: balls, then exact algebra, then finer balls.

        x-form: a polynomial identity proves equality; otherwise the ratio is a nonzero
        rational function of ``x`` and the balls are refined. Generic:
        :func:`exactdp.exact.signs.sign` decides (or raises UndecidedSignError).
        """
        for j, b in enumerate((bits, 2 * bits, 4 * bits, 16 * bits)):
            loss = self._balls_cache(b)[0][i]
            with flint_prec(b):
                d = loss - to_arb(epsilon, b)
            if d > 0:
                return 1
            if d < 0:
                return -1
            if j == 0:
                if self.xform is None:
                    # sympy evaluates exp(-d) with about d bits while it builds and
                    # decides the loss (gap 1e1000: 17 s): refused beyond the cost model
                    check_exact_exponent(
                        "delta", exponent_digits(self.p_base + self.q_base),
                        "a ball could not decide a loss against epsilon; use "
                        ".delta_ball(flint.arb(epsilon), bits) (a rigorous enclosure that "
                        "decides no loss), or smaller score gaps")
                    return _generic_sign(self._loss_expr(i) - epsilon)
                if self._loss_equals(i, epsilon):
                    return 0
        raise UndecidedSignError(
            f"delta: cannot decide whether the loss of atom {i} exceeds epsilon = {epsilon}"
        )

    def _loss_expr(self, i: int) -> sympy.Expr:
        counts = next(iter(self.atoms[i]))
        return sympy.Add(*[c * (sympy.log(p) - sympy.log(q)) for p, q, c in
                           zip(self.p_base, self.q_base, counts, strict=True) if c])

    def _balls_cache(self, bits: int):
        cache = self.__dict__.setdefault("_cache", {})
        if bits not in cache:
            cache[bits] = self._balls(bits)
        return cache[bits]

    def _loss_equals(self, i: int, epsilon: sympy.Expr) -> bool:
        """Exact test ``prod (p_i/q_i)^c == e^epsilon`` by an x-form polynomial identity."""
        counts = next(iter(self.atoms[i]))
        xf = self.xform
        if xf is not None:
            m = sympy.cancel(epsilon * xf.N / xf.rate)
            if not m.is_Rational:
                return False
            a, b = ratio_polys(xf, counts)
            m = sympy.Rational(m)
            s, e = int(m.q), int(m.p)
            a, b = spread(a, s), spread(b, s)
            x = flint.fmpq_poly([0, 1])
            # e^eps = x^(-m): a/b == x^(-e/s) in z = x^(1/s)  <=>  a * z^e == b
            return a * x**e == b if e >= 0 else a == b * x**(-e)
        return False

    def delta(self, epsilon: object, rtol: float = 1e-3, atol: float = 1e-12, *,
              dps: int = 30) -> HockeyStick:
        """The hockey-stick divergence ``delta(eps) = sum_r max(0, P_r - e^eps Q_r)``.

        Parameters
        ----------
        epsilon : number
            Exact input (int, Fraction, decimal string, sympy), >= 0.
        rtol, atol : float
            Tolerances in (0, 1) of every PLD's ``delta``; the exact value meets any.
        dps : int
            Digits of the enclosure.

        Returns
        -------
        HockeyStick
            ``algorithm="exact"``: ``ball`` encloses the exact value (``lower``, ``upper``
            its ends) and ``value`` is it.

        Raises
        ------
        ValueError
            If epsilon is negative, not finite or not a number.
        UndecidedSignError
            If a loss can be neither separated from epsilon nor proved equal to it.
        """
        eps = check_epsilon(epsilon, "delta")
        check_tolerances("delta", rtol, atol)
        bits = dps_to_prec(dps)
        losses, pm, qm = self._balls_cache(bits)
        with flint_prec(bits):
            eb = to_arb(eps, bits)
            # one ball comparison per atom; only an undecided one goes to _sign_vs
            split = [1 if d > 0 else -1 if d < 0 else 0 for d in (v - eb for v in losses)]
        chosen = [i for i, s in enumerate(split)
                  if s > 0 or (s == 0 and self._sign_vs(i, eps, bits) > 0)]
        with flint_prec(bits):
            e = eb.exp()
            total = to_arb(self.p_inf, bits)
            for i in chosen:
                total += pm[i] - e * qm[i]

        def exact() -> sympy.Expr:
            ps = [self.atom_masses(i) for i in chosen]
            return self.p_inf + sympy.Add(*[p for _, p, _ in ps]) - sympy.exp(eps) * sympy.Add(
                *[q for _, _, q in ps])

        return HockeyStick(eps, total, "exact", True,
                           "exact hockey-stick divergence of this (composed) pair", self.k, exact)

    def delta_ball(self, epsilon: flint.arb, bits: int) -> flint.arb:
        """A rigorous enclosure of ``delta`` at every point of the ball ``epsilon``."""
        losses, pm, qm = self._balls_cache(bits)
        with flint_prec(bits):
            e = epsilon.exp()
            total = to_arb(self.p_inf, bits)
            for p, q in zip(pm, qm, strict=True):
                total += positive_part(p - e * q)
        return total

    def max_loss(self, bits: int = 128) -> flint.arb:
        """A ball around the largest finite loss."""
        losses = self._balls_cache(bits)[0]
        with flint_prec(bits):
            return max(losses, key=lambda b: b.mid()) if losses else flint.arb(0)

    def epsilon(self, delta: object, rtol: float = 1e-3, atol: float = 1e-12, *,
                dps: int = 30) -> EpsilonResult:
        """The smallest epsilon >= 0 with ``delta(epsilon) <= delta``, certified to ``dps`` digits.

        Between consecutive losses ``delta(eps) = p_inf + A - e^eps B`` (A, B the P- and
        Q-mass above), so the answer is ``ln((p_inf + A - delta)/B)`` for the right interval;
        that candidate is proved by two certified evaluations of ``delta`` around it (delta
        is non-increasing), with bisection on exact dyadic points as the fallback.

        ``rtol`` and ``atol`` (in (0, 1)) are every PLD's tolerances; the exact interval is
        ``10**-dps`` wide, well inside them.

        Raises
        ------
        ValueError
            If ``delta`` is not in ``[0, 1]`` or a tolerance is outside (0, 1).
        """
        target = check_delta(delta, "epsilon")
        check_tolerances("epsilon", rtol, atol)
        return bisect_epsilon(self, delta, dps, "exact: the curve of this (composed) pair",
                              guess=lambda bits: self._epsilon_guess(target, bits))

    def _epsilon_guess(self, target: sympy.Expr, bits: int):
        """Ball of ``ln((p_inf + A_j - delta)/B_j)`` on the interval where it falls, or None."""
        losses, pm, qm = self._balls_cache(bits)
        order = sorted(range(len(losses)), key=lambda i: float(losses[i].mid()))
        with flint_prec(bits + self.guard_bits):
            t = to_arb(target, bits) - to_arb(self.p_inf, bits)
            a, b = flint.arb(0), flint.arb(0)
            for pos in range(len(order) - 1, -1, -1):  # S = atoms order[pos:]
                a, b = a + pm[order[pos]], b + qm[order[pos]]
                if not (a - t) > 0 or not b > 0:
                    continue
                eps = ((a - t) / b).log()
                low = float(losses[order[pos - 1]].mid()) if pos else -math.inf
                if low <= float(eps.mid()) <= float(losses[order[pos]].mid()):
                    return eps if eps > 0 else None
        return None

    def _repr_latex_(self) -> str:
        """The atoms (exact loss, P-mass) as a LaTeX array; a summary beyond 12 atoms."""
        if len(self.atoms) > 12:
            return latex_math(f"\\text{{PLD: {len(self.atoms)} atoms, k = {self.k}}}")
        rows = []
        for i in range(len(self.atoms)):
            loss, pm, _ = self.atom_masses(i)
            rows.append([sympy.latex(sympy.simplify(loss)), sympy.latex(pm)])
        if self.p_inf != 0:
            rows.append(["\\infty", sympy.latex(self.p_inf)])
        return latex_math(latex_array(["L", "\\Pr_P[L]"], rows))

    def __repr__(self) -> str:
        return (f"PrivacyLossDistribution(k={self.k}, atoms={len(self.atoms)}, "
                f"terms={self.support_terms}, {self.description})")


# ----------------------------------------------------------------------------- helpers
def _power_table(base: list, top: int) -> list[list]:
    """``[[b**0, b**1, ..., b**top] for b in base]`` (balls; call inside ``flint_prec``)."""
    out = []
    for b in base:
        row = [flint.arb(1), b]
        for c in range(2, top + 1):  # halves: rounding error grows like log2(c), not c
            row.append(row[c // 2] * row[c - c // 2])
        out.append(row)
    return out


def _atom_ball(atom: dict, powers: list) -> flint.arb:
    """``sum_c mult(c) prod_i base_i**c_i`` over the count vectors of ``atom``, from the
    power table of :func:`_power_table`."""
    total = flint.arb(0)
    for counts, mult in atom.items():
        term = flint.arb(mult)
        for row, c in zip(powers, counts, strict=True):
            if c:
                term *= row[c]
        total += term
    return total


def _multinomial_terms(k: int, m: int) -> dict[tuple, int]:
    """``{c: k! / (c_1! ... c_m!)}`` over the compositions ``c`` of ``k`` into ``m`` parts.

    Exact integers, built incrementally: along each run of the last two parts the binomial
    ``C(left, j)`` follows from ``C(left, j - 1)`` by ``* (left - j + 1) // j`` (exact), so no
    ``math.comb`` is called per term; only the first half of each run is computed
    (``C(left, j) = C(left, left - j)``), and a factor 1 is not multiplied.
    """
    out: dict[tuple, int] = {}

    def walk(prefix: tuple, left: int, parts: int, coef: int) -> None:
        if parts == 1:
            out[prefix + (left,)] = coef
            return
        if parts == 2:
            # C(left, j) for j = 0..left/2, mirrored (C(left, j) = C(left, left - j))
            binom = 1
            row = []
            for j in range(left // 2 + 1):
                row.append(binom if coef == 1 else coef * binom)
                binom = binom * (left - j) // (j + 1)
            for j, c in enumerate(row):
                out[prefix + (left - j, j)] = c
            for j in range(left // 2 + 1, left + 1):
                out[prefix + (left - j, j)] = row[left - j]
            return
        binom = 1  # C(left, left - first) for first = left, ..., 0
        for j in range(left + 1):
            walk((*prefix, left - j), j, parts - 1, coef * binom)
            binom = binom * (left - j) // (j + 1)

    walk((), k, m, 1)
    return out


def _generic_sign(expr: sympy.Expr) -> int:
    """Sign of a loss minus epsilon outside the x-form: exact.sign, with a zero re-proved.

    A zero is accepted only if exact rewriting (``expand_log`` of logarithms of positive
    numbers, ``expand``) reaches 0: sympy's ``simplify`` (which ``exact.sign`` may use) can
    return 0 for a nonzero number of size ``exp(-10**300)``, and a wrong 0 would drop an atom.
    """
    s = exact_sign(expr)
    if s != 0:
        return s
    if sympy.expand(sympy.expand_log(expr, force=True)) == 0:
        return 0
    raise UndecidedSignError(f"delta: cannot prove that the loss equals epsilon: {expr}")
