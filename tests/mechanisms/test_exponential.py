"""exactdp.mechanisms.exponential: EM (and PF beside it) against docs/formulas.md section 7 and
the two-item closed forms."""

from __future__ import annotations

import pytest
import sympy

from exactdp import ExponentialMechanism, PermuteAndFlip
from tests.reference import EM_Q31002_EPS2, PF_Q31002_EPS2, Q31002

EPS = sympy.Symbol("epsilon", positive=True)


def as_float(exprs):
    return [float(sympy.N(e, 30)) for e in exprs]


# --------------------------------------------------------------------------- known values
def test_math_md_section7_pf_and_em():
    q = Q31002
    pf = as_float(PermuteAndFlip(2).distribution(q).probabilities)
    em = as_float(ExponentialMechanism(2).distribution(q).probabilities)
    assert pf == pytest.approx(PF_Q31002_EPS2, abs=1e-6)
    assert em == pytest.approx(EM_Q31002_EPS2, abs=1e-6)


def test_two_items_loss_probabilities():
    # docs/formulas.md section 2: gap g, p = e^{-g/b}: PF loses w.p. p/2; EM w.p. p/(1+p).
    g = sympy.Rational(3, 2)
    p = sympy.exp(-EPS * g / 2)
    pf = PermuteAndFlip(EPS).distribution([g, 0]).probabilities
    em = ExponentialMechanism(EPS).distribution([g, 0]).probabilities
    assert sympy.simplify(pf[1] - p / 2) == 0
    assert sympy.simplify(em[1] - p / (1 + p)) == 0


# --- loss_outputs: the pair's loss is attained at the first outputs of extreme q'_r - q_r
def _em_pairs():
    import numpy as np

    rng = np.random.default_rng(36)
    R = sympy.Rational
    mechs = [ExponentialMechanism(1), ExponentialMechanism(R(1, 3), sensitivity=2),
             ExponentialMechanism(2, monotonic=True), ExponentialMechanism(1, optimize="min"),
             ExponentialMechanism(1, base_measure=[0, 1, 2, 0, 1, 3])]
    for k in range(40):
        n = 6
        q = [int(v) for v in rng.integers(-3, 4, n)]
        move = [int(v) for v in rng.integers(-1, 2, n)]
        if k % 3 == 0:  # rational scores
            q = [R(v, 2) for v in q]
            move = [R(v, 2) for v in move]
        yield mechs[k % len(mechs)], q, [a + b for a, b in zip(q, move, strict=True)]


@pytest.mark.parametrize(("mech", "q", "q2"), list(_em_pairs()))
def test_em_loss_outputs_hold_the_loss(mech, q, q2):
    """Independent route: privacy_loss over every output (the earliest output attaining
    the exact loss) is one of the two outputs loss_outputs names."""
    from exactdp import privacy_loss
    from exactdp.analysis.common import score_vector

    outs = mech.loss_outputs(score_vector(q, "q", "t"), score_vector(q2, "q", "t"))
    loss = privacy_loss(mech, q, q2, allow_non_neighbour=True)
    assert outs is not None and list(outs) == sorted(outs) and 1 <= len(outs) <= 2
    if loss.loss != 0:
        assert loss.output in outs
    d = [b - a for a, b in zip(q, q2, strict=True)]
    for r in range(len(q)):
        if r in outs or loss.ratios[r] in (0, sympy.nan):
            continue
        if any(d[r] == d[o] for o in outs):  # an extreme d_r: the same ratio exactly
            assert any(sympy.simplify(loss.ratios[r] - loss.ratios[o]) == 0 for o in outs
                       if d[o] == d[r])
        else:  # strictly between the extremes: strictly smaller (convex, slope != 0)
            assert abs(sympy.log(loss.ratios[r])).evalf(30) < loss.loss.evalf(30)


@pytest.mark.parametrize(("mech", "q", "q2"), list(_em_pairs())[:15])
def test_check_dp_with_em_loss_outputs_is_every_outputs(monkeypatch, mech, q, q2):
    from exactdp import check_dp

    fast = check_dp(mech, q)
    monkeypatch.setattr(type(mech), "loss_outputs", lambda self, a, b: None)
    slow = check_dp(mech, q)
    assert (fast.holds, sympy.srepr(fast.loss), fast.witness) == (
        slow.holds, sympy.srepr(slow.loss), slow.witness)


def test_em_loss_outputs_at_the_limits_is_every_output():
    from exactdp.analysis.common import score_vector

    q, q2 = score_vector([0, 1], "q", "t"), score_vector([1, 1], "q", "t")
    assert ExponentialMechanism(sympy.oo).loss_outputs(q, q2) is None
    assert ExponentialMechanism(0).loss_outputs(q, q2) is None
    assert ExponentialMechanism(1).loss_outputs(score_vector([0, sympy.sqrt(2)], "q", "t"),
                                                q2) is None


def test_evalf_is_priced_and_announced_before_the_mpmath_gaps(capsys, monkeypatch):
    """evalf(30) on 10**6 scores ran over 25 s silently: the estimate (about 2e-5 s per
    output) now prints a start line first off a terminal, and a refusal past the limit."""
    import numpy as np

    from exactdp import progress
    from exactdp.cost import SECONDS_LIMIT, TooCostly, em_mp_seconds

    assert progress.LINE_SECONDS < em_mp_seconds(10**6, 30) < SECONDS_LIMIT
    assert em_mp_seconds(10**6, 30) == pytest.approx(20)
    assert em_mp_seconds(10**4, 3000) == pytest.approx(10 * em_mp_seconds(10**4, 300))
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.001)  # a small call, announced
    probs = ExponentialMechanism(1).distribution(np.arange(100)).evalf(30)
    assert probs[1] / probs[0] == pytest.approx(float(sympy.exp(sympy.Rational(1, 2))), rel=1e-12)
    assert capsys.readouterr().err == "evalf: started, about 0 s CPU estimated\n"
    with pytest.raises(TooCostly) as err:
        ExponentialMechanism(1).distribution(np.arange(10**6)).evalf(3000)
    assert err.value.func == "evalf" and err.value.estimate == "about 200 s"
