"""Every-epsilon certificates for Laplace forms (exactdp.analysis.certify_laplace).

Independent route: the output probabilities by quadrature (scipy) of the programs'
definitions (Lyu-Su-Li's Algorithms 1 and 6, report-noisy-max with Laplace noise), written
here from the papers' scales and not from exactdp's closed forms, on a grid of epsilons.
Against DiPC (Barthe et al., LICS 2020; ``vishalrjagan/DifferentialPrivacy``, verdicts in
``all_bin.txt``): its domain {-1, 0, 1}^3 with answers moving by at most 1 (316 ordered
pairs), threshold 0, c = 1; its verdicts (SVT1 and noisy max: epsilon-DP for every epsilon;
SVT4, SVT6: not) and its witnesses (SVT4: epsilon = 3/5, SVT6: 67/92).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import pytest
import sympy
from scipy.integrate import quad

import exactdp
from exactdp import certify_dp
from exactdp.analysis.certify_laplace import LaplaceDPCertificate, needs_laplace_forms
from exactdp.scores import as_scores

EPS = sympy.Symbol("epsilon", positive=True)
VECTORS = list(itertools.product((-1, 0, 1), repeat=3))
PAIRS = [(a, b) for a in VECTORS for b in VECTORS
         if a != b and all(abs(x - y) <= 1 for x, y in zip(a, b, strict=True))]
GRID = (F(1, 10), F(1, 2), F(3, 2), F(4))
#: Scales (threshold noise, query noise) per unit 1/epsilon: Lyu-Su-Li, c = 1, D = 1.
SVT_SCALES = {1: (2, 4), 6: (2, 2)}


def _cdf(z: float, b: float) -> float:
    return math.exp(z / b) / 2 if z < 0 else 1 - math.exp(-z / b) / 2


def _pieces(integrand, cuts) -> float:
    """``int_R integrand`` by adaptive quadrature on the pieces between the breakpoints
    (absolute error about 1e-13: the integrand is smooth on each)."""
    ends = [-math.inf, *cuts, math.inf]
    return sum(quad(integrand, lo, hi, epsabs=1e-14, epsrel=1e-13, limit=200)[0]
               for lo, hi in zip(ends, ends[1:], strict=False))


def _svt_quadrature(variant: int, answers, outputs, eps: F) -> list[float]:
    """Pr[output] = int f_rho(r) prod_i Pr[answer i | rho = r] dr (threshold 0)."""
    b1, b2 = (s / float(eps) for s in SVT_SCALES[variant])
    cuts = sorted({0, *answers})
    out = []
    for seq in outputs:
        def integrand(r, seq=seq):
            v = math.exp(-abs(r) / b1) / (2 * b1)
            for a, ans in zip(answers, seq, strict=True):
                if ans is None:
                    continue
                below = _cdf(r - a, b2)  # Pr[a + nu < rho]
                v *= (1 - below) if ans else below
            return v
        out.append(_pieces(integrand, cuts))
    return out


def _rnm_quadrature(scores, eps: F, scale: F = F(2)) -> list[float]:
    """Pr[argmax_r q_r + Lap(scale/eps) = r] = int f(y - q_r) prod_{s != r} F(y - q_s) dy."""
    b = float(scale) / float(eps)
    cuts = sorted(set(scores))
    out = []
    for r, qr in enumerate(scores):
        def integrand(y, r=r, qr=qr):
            v = math.exp(-abs(y - qr) / b) / (2 * b)
            for s, qs in enumerate(scores):
                if s != r:
                    v *= _cdf(y - qs, b)
            return v
        out.append(_pieces(integrand, cuts))
    return out


def _programs():
    return {
        "SVT1": (exactdp.SparseVector(EPS, 0, 1, 1), lambda v, o, e: _svt_quadrature(1, v, o, e)),
        "SVT6": (exactdp.SparseVector(EPS, 0, 1, 6), lambda v, o, e: _svt_quadrature(6, v, o, e)),
        "RNM-Laplace": (exactdp.ReportNoisyMax(EPS, noise="laplace"),
                        lambda v, o, e: _rnm_quadrature(v, e)),
    }


def _chart_sign(chart, eps: F) -> int | None:
    """The chart's sign at ``eps`` read from its roots and gap signs (no evaluation of f);
    None inside a root's interval."""
    s = chart.first
    for r in chart.roots:
        if eps < r.lo:
            return s
        if eps <= r.hi:
            return None
        s = r.right
    return s


@pytest.mark.parametrize("name", ["SVT1", "SVT6", "RNM-Laplace"])
def test_dipc_domain_against_quadrature_and_dipc_verdicts(name):
    """Every pair of DiPC's domain: each condition's sign chart agrees, at every epsilon of
    the grid, with e^eps P_o(b) - P_o(a) by quadrature (scipy, float64, wherever it is
    above 1e-9: far above the quadrature error); the program's verdict over the domain is
    DiPC's."""
    mech, quadrature = _programs()[name]
    outputs = mech.with_epsilon(1).distribution(VECTORS[0]).outputs
    probs = {(v, e): quadrature(v, outputs, e) for v in VECTORS for e in GRID}
    failing_pairs = compared = 0
    kinds = set()
    for a, b in PAIRS:
        cert = certify_dp(mech, a, b)
        kinds.add(type(cert).__name__)
        failing_pairs += not cert.holds
        if not isinstance(cert, LaplaceDPCertificate):
            continue  # the x-form route (SVT1 where no epsilon*exp term survives)
        for c in cert.conditions:
            lo_v, hi_v = (a, b) if c.direction == "q->q'" else (b, a)
            for e in GRID:
                value = math.exp(e) * probs[hi_v, e][c.output] - probs[lo_v, e][c.output]
                s = _chart_sign(c.analysis, e)
                if c.function.is_zero:
                    assert abs(value) < 1e-11
                    continue
                if s is None or abs(value) < 1e-9:
                    continue
                assert s == (1 if value > 0 else -1), (name, a, b, c.output, c.direction, e)
                compared += 1
    assert compared > 1000
    if name == "SVT6":
        assert kinds == {"LaplaceDPCertificate"} and failing_pairs > 0  # DiPC: False
    else:  # DiPC: True (input_3_svt1, input_3_nmax5)
        assert failing_pairs == 0
    if name == "SVT1":  # 150 pairs keep an epsilon*exp term (issue 34's count), 166 do not
        assert kinds == {"LaplaceDPCertificate", "DPCertificate"}


def test_svt2_holds_on_dipc_domain_as_dipc_says():
    """Algorithm 2 (threshold noise redrawn after each True; products of segment
    integrals): the 150 pairs of DiPC's domain whose probabilities keep a power of epsilon
    hold for every epsilon (DiPC: True on input_3_svt2; the other 166 pairs are x-forms)."""
    mech = exactdp.SparseVector(EPS, 0, 1, 2)
    laplace = [(a, b) for a, b in PAIRS
               if needs_laplace_forms(mech, [as_scores(a), as_scores(b)])]
    assert len(laplace) == 150
    certs = [certify_dp(mech, a, b) for a, b in laplace]
    assert all(isinstance(c, LaplaceDPCertificate) and c.holds for c in certs)
    assert certs[0].verify()


def test_svt6_dipc_witness_lies_in_the_failing_set():
    """DiPC: P((F, F, T) | (-1, -1, 0)) > e^eps P((F, F, T) | (0, 0, -1)) at eps = 67/92."""
    mech = exactdp.SparseVector(EPS, 0, 1, 6)
    a, b = (-1, -1, 0), (0, 0, -1)
    cert = certify_dp(mech, a, b)
    assert isinstance(cert, LaplaceDPCertificate) and not cert.holds and cert.verify()
    out = mech.with_epsilon(1).distribution(a).index((False, False, True))
    (cond,) = [c for c in cert.failing if c.output == out and c.direction == "q->q'"]
    w = F(67, 92)
    assert cond.function.sign_at(w) == -1 and not cert.holds_at(sympy.Rational(67, 92))
    assert any(iv.lower == 0 and (iv.upper is None or w < iv.upper.lo)
               for iv in cond.failing_epsilons)
    assert any(iv.lower == 0 for iv in cert.failing_epsilons)
    outputs = mech.with_epsilon(1).distribution(a).outputs
    pa = _svt_quadrature(6, a, outputs, w)[out]
    pb = _svt_quadrature(6, b, outputs, w)[out]
    assert pa - math.exp(67 / 92) * pb > 1e-6
    # the set is the open interval from 0 to one isolated zero (about 6.977)
    (iv,) = cert.failing_epsilons
    assert iv.upper.kind == "isolated" and 6.97 < float(iv.upper.lo) < 6.98
    assert cert.holds_at(7) and not cert.holds_at(sympy.Rational(697, 100))


def test_svt4_dipc_witness_lies_in_the_failing_set():
    """SVT4 is rational in x (x-form certificate): DiPC's witness 3/5 on (-1, -1, 0) vs
    (-1, 0, -1) lies in its failing set, read through the shared ``failing_epsilons``."""
    mech = exactdp.SparseVector(EPS, 0, 1, 4)
    cert = certify_dp(mech, (-1, -1, 0), (-1, 0, -1))
    assert not cert.holds and not cert.holds_at(sympy.Rational(3, 5))
    assert any(sympy.Rational(3, 5) > iv.lower
               and (iv.upper is None or sympy.Rational(3, 5) < iv.upper)
               for iv in cert.failing_epsilons)


def test_rnm_laplace_certificate_verifies_and_detects_tampering():
    from dataclasses import replace

    cert = certify_dp(exactdp.ReportNoisyMax(EPS, noise="laplace"), [0, -1, 1], [1, -1, 0])
    assert cert.holds and cert.verify() and cert.failing_epsilons == ()
    assert cert.holds_at(sympy.Rational(1, 3)) and cert.holds_at(sympy.log(3))
    assert "holds=True" in repr(cert) and len(repr(cert)) < 300
    c0 = cert.conditions[0]
    fake = replace(c0, function=c0.function.times_exp(1))
    assert not replace(cert, conditions=(fake,) + cert.conditions[1:]).verify()


def test_shifted_copy_has_identical_forms_decided_exactly():
    """Report-noisy-max is shift invariant: on q and q + 1 the forms are equal, so
    ``P_o(q) - P_o(q + 1)`` is the zero ExpPoly (decided exactly: every coefficient cancels
    after merging equal rates) and each condition is ``(e^eps - 1) P_o > 0``."""
    cert = certify_dp(exactdp.ReportNoisyMax(EPS, noise="laplace"), [0, 0, 1], [1, 1, 2])
    assert cert.holds
    for c in cert.conditions:
        f = c.function
        back = cert.forms[0][c.output] - cert.forms[1][c.output]
        assert back.is_zero  # shift invariance, exactly
        assert f.sign_near_zero() == 1


def test_refuses_other_shapes_in_one_line():
    # PF stays on the x-form route; a Gaussian-noise mechanism is refused as before
    cert = certify_dp(exactdp.PermuteAndFlip(EPS), [0, -1], [1, -2])
    assert type(cert).__name__ == "DPCertificate"
    with pytest.raises(ValueError) as info:
        certify_dp(exactdp.GaussianNoisyMax(1), [0, -1], [1, -2])
    assert "\n" not in str(info.value)


def test_svt6_failing_certificate_at_irrational_epsilons_and_its_repr():
    """The SVT6 pair of the DiPC witness fails exactly on (0, ~6.977): at eps = ln 2 (inside,
    irrational: decided by an exact sign, not a rational evaluation) the witness output
    breaks the bound by quadrature, at eps = ln 1100 = 7.003... (outside) it holds there;
    the repr names the failing set, and a symbolic epsilon is refused in one line."""
    mech = exactdp.SparseVector(EPS, 0, 1, 6)
    a, b = (-1, -1, 0), (0, 0, -1)
    cert = certify_dp(mech, a, b)
    assert not cert.holds_at(sympy.log(2)) and cert.holds_at(sympy.log(1100))
    outputs = mech.with_epsilon(1).distribution(a).outputs
    out = outputs.index((False, False, True))
    for w, fails in ((math.log(2), True), (math.log(1100), False)):
        pa = _svt_quadrature(6, a, outputs, w)[out]
        pb = _svt_quadrature(6, b, outputs, w)[out]
        assert (pa - math.exp(w) * pb > 1e-9) is fails
    assert "fails for epsilon in (0, ~6.977022" in repr(cert)
    with pytest.raises(ValueError, match=r"^LaplaceDPCertificate\.holds_at: epsilon must be "
                       r"a number, not a symbol, got epsilon$"):
        cert.holds_at(EPS)


class _UnhashableRNM(exactdp.ReportNoisyMax):
    """RNM-Laplace that cannot be hashed (as a user's mechanism holding a list may be)."""

    __hash__ = None  # type: ignore[assignment]


def test_an_unhashable_mechanism_is_certified_without_the_forms_cache():
    """The forms are cached per (mechanism, vector) only for hashable mechanisms; an
    unhashable one gets the same certificate (re-verified by its independent routes)."""
    q, q2 = [0, -1, 1], [1, -1, 0]
    plain = certify_dp(exactdp.ReportNoisyMax(EPS, noise="laplace"), q, q2)
    mech = _UnhashableRNM(EPS, noise="laplace")
    with pytest.raises(TypeError):
        hash(mech)
    cert = certify_dp(mech, q, q2)
    assert cert.holds and cert.verify()
    assert [c.function for c in cert.conditions] == [c.function for c in plain.conditions]


def test_every_condition_of_a_searched_certificate_is_rebuilt_from_its_own_pair():
    """Mutation seed 11: certify_dp over the 8 neighbours of [0, 1] (RNM-Laplace, symbolic
    epsilon) holds (RNM-Laplace is epsilon-DP) and re-verifies: each condition from the
    forms of its own neighbour; a condition moved to another pair fails verify; a bad
    epsilon is refused in holds_at's own name."""
    from dataclasses import replace

    cert = certify_dp(exactdp.ReportNoisyMax(EPS, noise="laplace"), [0, 1])
    assert len(cert.forms) == 9 and cert.holds and cert.verify()
    c = cert.conditions[0]
    assert c.pair == 0 and c.direction == "q->q'"
    moved = replace(c, pair=1)  # neighbour (-1, 0): another distribution
    assert not replace(cert, conditions=(moved,) + cert.conditions[1:]).verify()
    with pytest.raises(ValueError, match=r"^LaplaceDPCertificate\.holds_at: epsilon must be "
                       r"> 0, got -1$"):
        cert.holds_at(-1)


def test_union_of_overlapping_intervals_keeps_the_larger_upper_end():
    """Mutation seed 11: by hand, (1, 3) u (2, 5) = (1, 5), (1, 3) u (2, oo) = (1, oo),
    (1, oo) u (2, 5) = (1, oo), and (1, 2) u (3, 4) stays two intervals."""
    from exactdp.analysis.certify_laplace import EpsilonInterval as Iv
    from exactdp.analysis.certify_laplace import union_intervals

    assert union_intervals([Iv(F(2), F(5)), Iv(F(1), F(3))]) == (Iv(F(1), F(5)),)
    assert union_intervals([Iv(F(1), F(3)), Iv(F(2), None)]) == (Iv(F(1), None),)
    assert union_intervals([Iv(F(1), None), Iv(F(2), F(5))]) == (Iv(F(1), None),)
    assert union_intervals([Iv(F(1), F(2)), Iv(F(3), F(4))]) == (Iv(F(1), F(2)),
                                                                  Iv(F(3), F(4)))


def test_chart_spot_checks_read_the_ends_of_every_isolated_zero():
    """Mutation seed 11: e^t - 3t has its zeros near 0.619 and 1.512 (mpmath), + - + around
    them. A forged chart that puts the first zero in (1/10, 1/5) keeps every gap's sign
    right but not the sign at 1/5 (e^(1/5) - 3/5 > 0, by hand): the spot checks refuse it."""
    from dataclasses import replace

    from exactdp.analysis.certify_laplace import _chart_ok
    from exactdp.exact.exp_poly import ExpPoly
    from exactdp.exact.exp_poly_sign import Root, sign_on_positive_reals

    t = sympy.Symbol("t")
    chart = sign_on_positive_reals(ExpPoly.from_sympy(sympy.exp(t) - 3 * t, t))
    assert _chart_ok(chart) and [r.kind for r in chart.roots] == ["isolated", "isolated"]
    forged = replace(chart, roots=(Root(F(1, 10), F(1, 5), "isolated", 1, -1),
                                   chart.roots[1]))
    assert not _chart_ok(forged)


def test_sign_analyses_past_the_cost_limit_are_refused_in_certify_dp_s_name(monkeypatch):
    """Mutation seed 11: with the cost model's estimate forced past the limit, the Laplace
    certificate of one pair (2 scores: 2 conditions per output, 2 outputs) is refused
    before any sign analysis, naming certify_dp and the 4 analyses."""
    import exactdp.analysis.certify_laplace as CL

    monkeypatch.setattr(CL, "laplace_certify_seconds", lambda forms: 1e9)
    with pytest.raises(ValueError, match=r"^certify_dp: the sign analyses of 4 exponential "
                                         r"polynomials in epsilon would need"):
        certify_dp(exactdp.ReportNoisyMax(EPS, noise="laplace"), [0, 1], [1, 0])


def _half_noisy_max(scale):
    """With probability 1/2 report-noisy-max with Laplace noise ``scale/epsilon``, else the
    constant 0 (a fair coin)."""
    from exactdp.programs import argmax, bernoulli, laplace, program

    @program(output="selection")
    def half_noisy_max(q, epsilon):
        if bernoulli(sympy.Rational(1, 2)):
            return argmax([a + laplace(scale / epsilon) for a in q])
        return 0

    return half_noisy_max


@pytest.mark.parametrize(("scale", "holds"), [(F(2), True), (F(1, 4), False)])
def test_a_fair_coin_before_noisy_max_against_quadrature(scale, holds):
    """``Pr[o] = 1/2 Pr_RNM[o] + 1/2 [o = 0]``, the noisy max by quadrature: each
    condition's sign chart agrees with ``e^eps P_o(b) - P_o(a)`` at 12 epsilons (where it
    is above 1e-9). Noise 2/epsilon: epsilon-DP for every epsilon (a mixture of private
    releases); 1/(4 epsilon): the ratio reaches about e^(4 epsilon) > e^epsilon, so it fails
    for every epsilon."""
    prog = _half_noisy_max(sympy.Rational(scale.numerator, scale.denominator))
    pairs = [((0, 1), (1, 0)), ((0, 0, 1), (1, 1, 0)), ((1, 0, 0), (0, 0, 1))]
    grid = [F(k, 4) for k in (1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 28, 40)]
    compared = 0
    for a, b in pairs:
        cert = certify_dp(prog(epsilon=EPS), a, b)
        assert isinstance(cert, LaplaceDPCertificate) and cert.holds is holds and cert.verify()
        if not holds:
            assert [str(iv) for iv in cert.failing_epsilons] == ["(0, oo)"]
        for e in grid:
            probs = {v: [p / 2 + (r == 0) / 2 for r, p in enumerate(_rnm_quadrature(v, e, scale))]
                     for v in (a, b)}
            for c in cert.conditions:
                lo_v, hi_v = (a, b) if c.direction == "q->q'" else (b, a)
                value = math.exp(e) * probs[hi_v][c.output] - probs[lo_v][c.output]
                s = _chart_sign(c.analysis, e)
                if s is None or abs(value) < 1e-9:
                    continue
                assert s == (1 if value > 0 else -1), (a, b, c.output, c.direction, e)
                compared += 1
    assert compared > 100
