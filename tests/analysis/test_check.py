"""exactdp.analysis.check: check_dp over the neighbour search, the wrong variants caught with
their exact loss, huge score gaps."""

import itertools
import math
import time

import numpy as np
import pytest
import sympy

import exactdp
from exactdp.analysis.check import check_dp
from exactdp.analysis.loss import privacy_loss
from exactdp.cost import SECONDS_LIMIT, TooCostly
from exactdp.mechanisms.custom import (
    wrong_exponential,
    wrong_permute_and_flip,
    wrong_rnm_laplace,
)
from exactdp.programs import library as programs_library
from exactdp.programs.library_release import PROGRAMS

from .test_outputs import overlap

EPS = sympy.Symbol("epsilon", positive=True)
R = sympy.Rational
TENTH = R(1, 10)


def _same(a, b) -> bool:
    return sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0


def test_symbolic_mechanism_needs_numeric_epsilon_for_check():
    with pytest.raises(ValueError, match="certify_dp"):
        check_dp(exactdp.PermuteAndFlip(EPS), [0, 1])
    assert check_dp(exactdp.PermuteAndFlip(EPS), [0, 1], epsilon=1).holds


@pytest.mark.parametrize("q", [[0, -1, -2], [0, 0, 0, 1], [3, 1, 0, 0, -2]])
def test_pf_em_rnm_hold_and_loss_is_brute_force_max(q):
    for m in (exactdp.PermuteAndFlip(1), exactdp.ExponentialMechanism(1),
              exactdp.ReportNoisyMax(1, noise="gumbel")):
        res = check_dp(m, q)
        assert res.holds and res.neighbours_checked == 3 ** len(q) - 1
        p = np.array([float(v) for v in m.distribution(q).probabilities])
        brute = 0.0
        for s in itertools.product((-1, 0, 1), repeat=len(q)):
            if any(s):
                q2 = [a + b for a, b in zip(q, s, strict=True)]
                p2 = np.array([float(v) for v in m.distribution(q2).probabilities])
                brute = max(brute, np.max(np.abs(np.log(p / p2))))
        assert abs(float(res) - brute) < 1e-12


def test_pf_tight_loss_equals_epsilon_exactly():
    res = check_dp(exactdp.PermuteAndFlip(R(1, 3)), [0, -1, -2])
    assert res.loss == R(1, 3) and res.holds  # the tie loss == epsilon holds
    assert not check_dp(exactdp.PermuteAndFlip(R(1, 3)), [0, -1, -2], epsilon=R(1, 4)).holds


def test_rnm_laplace_correct_scale_holds_at_tenth():
    m = exactdp.ReportNoisyMax(TENTH, noise="laplace")
    res = check_dp(m, [1, 1, 1])
    assert res.holds and 0 < float(res) <= 0.1


# ----------------------------------------------------------------- wrong variants
def test_wrong_em_caught_with_exact_loss():
    res = check_dp(wrong_exponential(1), [0, 0])
    assert not res.holds
    assert _same(res.loss, sympy.log((1 + sympy.E**2) / 2))
    assert res.witness.neighbour in ((-1, 1), (1, -1))


def test_wrong_pf_caught_with_loss_two_epsilon():
    res = check_dp(wrong_permute_and_flip(TENTH), [0, 0])
    assert not res.holds and res.loss == 2 * TENTH
    assert res.witness.scores == (0, 0)


def test_wrong_rnm_laplace_caught_with_exact_loss():
    res = check_dp(wrong_rnm_laplace(1), [0, -3], neighbour=[-1, -2])
    assert not res.holds and res.witness.output == 1
    # two items, b = 1: losing probability (1 + g/2) e^{-g}/2 (docs/formulas.md section 2)
    lose = lambda g: (1 + sympy.Integer(g) / 2) * sympy.exp(-g) / 2  # noqa: E731
    assert _same(res.loss, sympy.log(lose(1) / lose(3)))
    assert abs(float(res) - (2 + math.log(1.5 / 2.5))) < 1e-12


# ----------------------------------------------------------------- huge score gaps (sparse)
HUGE = 10**300


def _timed(func, *args, **kwargs):
    import time

    t = time.process_time()
    out = func(*args, **kwargs)
    return out, time.process_time() - t


def test_huge_gap_check_dp_and_other_mechanisms():
    pf = exactdp.PermuteAndFlip(1)
    pair = ([0, -HUGE], [1, -HUGE])
    assert check_dp(pf, *pair, epsilon=R(1, 2)).holds
    bad = check_dp(pf, *pair, epsilon=R(49, 100))
    assert not bad.holds and bad.loss == R(1, 2) and bad.witness.output == 1
    res, seconds = _timed(check_dp, pf, [0, -HUGE, 5])  # exhaustive vertex search, n = 3
    assert res.holds and seconds < 10
    # the item at -10**300 is invisible in floats: a gap of 100 (dense engine) gives the
    # same loss to ~e^{-50}
    ref = check_dp(pf, [0, -100, 5])
    assert float(res.loss) == pytest.approx(float(ref.loss), rel=1e-15)
    assert check_dp(pf, [0, -HUGE]).loss == 1
    # EM, two items: ratio of output 1 is (1 + x^(g+1)) / (x (1 + x^g)), x = e^{-1/2}
    em = privacy_loss(exactdp.ExponentialMechanism(1), *pair)
    assert em.output == 1 and float(em) == pytest.approx(0.5, abs=1e-15)
    # RNM with exponential noise is PF (Ding et al. 2021): the same exact loss
    rnm = privacy_loss(exactdp.ReportNoisyMax(1, noise="exponential"), *pair)
    assert rnm.value == R(1, 2)
    # symbolic epsilon: sparse signs on (0, 1) by Descartes' rule
    assert privacy_loss(exactdp.PermuteAndFlip(EPS), *pair).value == EPS / 2


def test_check_dp_unknown_search_names_check_dp():
    """The refusal names the function the user called, not the internal neighbour search."""
    with pytest.raises(ValueError, match=r"^check_dp: search must be one of 'auto', "
                                         r"'exhaustive', 'reduced', 'heuristic', got 'foo'$"):
        check_dp(exactdp.PermuteAndFlip(1), [0, 1], search="foo")
    with pytest.raises(ValueError, match=r"^neighbours: search must be one of"):
        exactdp.analysis.neighbours(exactdp.PermuteAndFlip(1), [0, 1], search="foo")


# ---------------------------------------------------------- the ball engine (issue 20)
def test_ball_check_dp_against_the_normal_cdf():
    """RNM with N(0, 1) noise on [1, 0] vs [0, 0]: loss -ln(2 Phi(-1/sqrt 2)) =
    0.7350111298370844... (mpmath), so 1-DP holds there and 0.7-DP does not."""
    import mpmath

    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    with mpmath.workdps(50):
        loss = sympy.Float(mpmath.nstr(-mpmath.log(2 * mpmath.ncdf(-1 / mpmath.sqrt(2))), 45), 45)
    m = GaussianNoisyMax(sigma=1)
    res = check_dp(m, [1, 0], [0, 0], epsilon=1)
    assert res.holds and res.engine == "ball" and res.neighbours_checked == 1
    assert abs(res.loss - loss) < 1e-28 and res.interval[0] <= loss <= res.interval[1]
    assert res.witness == exactdp.Witness((1, 0), (0, 0), 1)
    bad = check_dp(m, [1, 0], [0, 0], epsilon=sympy.Rational(7, 10))
    assert not bad.holds and bad.witness.output == 1
    with pytest.raises(ValueError, match=r"^check_dp: RNM-Gaussian has epsilon=None"):
        check_dp(m, [1, 0], [0, 0])


def test_check_dp_names_its_engine_and_its_arguments():
    em = exactdp.ExponentialMechanism(1)
    res = check_dp(em, [1, 0], [0, 0])
    assert res.engine == "x-form" and res.holds and res.epsilon == 1
    with pytest.raises(ValueError, match=r"^check_dp: epsilon must be"):
        check_dp(em, [1, 0], [0, 0], epsilon="one")
    with pytest.raises(ValueError, match=r"^check_dp: scores\[1\] must be a number"):
        check_dp(em, [1, "a"], [0, 0])


def test_check_dp_refusals_name_check_dp():
    from exactdp.mechanisms.custom import mechanism_from_function

    def short(q, eps):
        return [sympy.Rational(1, 2), sympy.Rational(1, 3)]

    with pytest.raises(ValueError, match=r"^check_dp: the probabilities of short on \(1, 0\) "
                                         r"do not sum to 1"):
        check_dp(mechanism_from_function(short, epsilon=1), [1, 0], [0, 0])

    class Symbolic:
        """A duck-typed mechanism (not an exactdp Mechanism)."""

        epsilon = sympy.Symbol("epsilon", positive=True)
        sensitivity = 1

        def distribution(self, scores):
            return exactdp.ExponentialMechanism(self.epsilon).distribution(scores)

    # an object that is not a Mechanism is refused at the door, naming the wrapper to use
    with pytest.raises(ValueError, match=r"^check_dp: mechanism must be an exactdp Mechanism "
                                         r"\(wrap a function of the scores with "
                                         r"exactdp.mechanism_from_function\)"):
        check_dp(Symbolic(), [1, 0], [0, 0], epsilon=1)


def test_epsilon_infinity_holds_vacuously_even_with_an_infinite_loss():
    """PF at epsilon = oo is the argmax: on [0, 1] vs its neighbour [0, 0] the loss is
    infinite (output 0 has probability 0 then 1/2), yet every mechanism is oo-DP."""
    import sympy

    from exactdp import PermuteAndFlip, check_dp

    res = check_dp(PermuteAndFlip(sympy.oo), [0, 1])
    assert res.holds and res.loss == sympy.oo and res.epsilon == sympy.oo
    assert not check_dp(PermuteAndFlip(1), [0, 1], epsilon=sympy.Rational(1, 2)).holds


def test_check_dp_on_a_density_mechanism_decides_the_exact_supremum():
    m = exactdp.ReportNoisyMax("0.1", noise="laplace", output="value")
    r = exactdp.check_dp(m, [1] * 5, [2] * 5)
    assert not r.holds and r.loss == sympy.Rational(1, 4) and r.engine == "density"
    assert r.witness.output == "the pattern REAL with the value in (-oo, 1) (a constant ratio)"
    assert exactdp.check_dp(m, [1] * 5, [2] * 5, epsilon=sympy.Rational(1, 4)).holds  # a tie
    # the vertex search on 3 scores: 26 neighbours; all shifted by one is the worst (3/20)
    s = exactdp.check_dp(m, [1, 1, 1])
    assert s.neighbours_checked == 26 and s.loss == sympy.Rational(3, 20) and not s.holds
    assert exactdp.check_dp(m, [1, 1, 1], epsilon=sympy.Rational(3, 20)).holds


def test_check_dp_density_vertex_search_is_refused_by_the_cost_model_beyond_its_limit():
    m = exactdp.ReportNoisyMax("0.1", noise="laplace", output="value")
    with pytest.raises(ValueError, match=r"^check_dp: the exact density suprema of 6560 "
                       r"neighbours would need about .* \(limit 120 s\); pass the one neighbour"):
        exactdp.check_dp(m, [0] * 8, search="exhaustive")
    # with the one neighbour: 6 shifts by one on the left piece, 6/b = 3/10
    assert exactdp.check_dp(m, [0] * 6, [1] * 6).loss == sympy.Rational(3, 10)
def test_check_dp_at_epsilon_1e5000_refuses_at_once():
    """Issue 20 (fresh-user rerun): check_dp(PF(10**5000), [0, -1], [-1, 0]) ran past 30 s
    (20 s at 10**4000: sympy building the loss's closed form); refused at once beyond
    CHECK_DP_EXPONENT_DIGITS, and at 1e200 it still answers: loss = eps/2 + ln 2 - ..."""
    import time

    import sympy

    import exactdp
    from exactdp.cost import TooCostly

    t0 = time.process_time()
    with pytest.raises(TooCostly, match=r"^check_dp: .*10\^4999"):
        exactdp.check_dp(exactdp.PermuteAndFlip(10**5000), [0, -1], [-1, 0])
    assert time.process_time() - t0 < 5
    res = exactdp.check_dp(exactdp.PermuteAndFlip(10**200), [0, -1], [-1, 0])
    assert res.holds
    # PF on [0, -1] vs [-1, 0]: loss = ln((1 - x/2)/(x/2)), x = exp(-eps/2)
    want = sympy.Integer(10) ** 200 / 2 + sympy.log(2)
    assert abs(sympy.N(res.loss - want, 30)) < sympy.Float("1e-25")


# ---------------------------------------------------------- mutation survivors (issue 20)
def test_check_dp_allow_non_neighbour_compares_a_pair_beyond_the_sensitivity():
    """PF(1) on [0, 0] against [0, 2] (gap 2 > sensitivity 1): P = (1/2, 1/2) against
    (e^-1/2, 1 - e^-1/2) (PF with two items), so output 0 has loss ln(e) = 1 and output 1
    ln(2 - e^-1) < 1: the loss is exactly 1, the tie with epsilon = 1 holds."""
    pf = exactdp.PermuteAndFlip(1)
    with pytest.raises(ValueError, match="exceeds the sensitivity"):
        check_dp(pf, [0, 0], [0, 2])
    res = check_dp(pf, [0, 0], [0, 2], allow_non_neighbour=True)
    assert res.loss == 1 and res.holds and res.witness.output == 0
    assert privacy_loss(pf, [0, 0], [0, 2], allow_non_neighbour=True).value == 1


def test_check_dp_refuses_a_symbolic_claim_on_a_numeric_mechanism():
    e = sympy.Symbol("e", positive=True)
    with pytest.raises(ValueError,
                       match=r"^check_dp: epsilon must be a number here, not symbolic, got e$"):
        check_dp(exactdp.PermuteAndFlip(1), [0, 1], epsilon=e)


def test_ball_check_dp_reports_the_deciding_precision():
    """RNM-Gaussian on [1, 0] vs [0, 0] (loss 0.735..., see the normal CDF test above):
    decided at the first level, 30 digits."""
    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    res = check_dp(GaussianNoisyMax(sigma=1), [1, 0], [0, 0], epsilon=1)
    assert res.holds and res.dps == 30 and res.interval[1] < 0.7351112


def test_an_undecided_comparison_with_epsilon_names_check_dp():
    from exactdp.analysis.check import _at_most_claim
    from exactdp.exact import UndecidedSignError

    assert _at_most_claim(0, sympy.Integer(1)) and not _at_most_claim(1, sympy.Integer(1))
    with pytest.raises(UndecidedSignError,
                       match=r"^check_dp: cannot compare the privacy loss with epsilon = 2 "):
        _at_most_claim(None, sympy.Integer(2))


def test_ball_check_dp_at_epsilon_equal_to_the_loss_is_undecided_not_guessed():
    """The loss of RNM-Gaussian(sigma = 1) on [1, 0] vs [0, 0] is -ln(2 Phi(-1/sqrt 2)) =
    -ln(erfc(1/2)) exactly; at that epsilon no enclosure separates them."""
    from exactdp.analysis.engines.ball import BallUndecided
    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    eps = -sympy.log(sympy.erfc(R(1, 2)))
    with pytest.raises(BallUndecided, match=r"^check_dp: undecided at dps=120: the certified "
                       r"enclosure of the largest privacy loss of RNM-Gaussian still contains "
                       r"epsilon = "
                       r"-log\(erfc\(1/2\)\) \(or a probability cannot be told from 0\)$"):
        check_dp(GaussianNoisyMax(sigma=1), [1, 0], [0, 0], epsilon=eps)


def test_density_check_dp_on_an_enclosed_supremum():
    """RNM with Laplace noise releasing the value, [0, 0, 1, 0, 0] vs [0, -1, 1, 0, 1]: the
    supremum of the log density ratio is at an interior critical point, 0.2880628...
    (a dense grid, tests/mechanisms/test_noisy_max_value_engine.py), known by an enclosure. An
    epsilon above or below it is decided by the enclosure's ends, one at its lower end is
    undecided (the loss may equal it)."""
    from exactdp.exact import UndecidedSignError

    m = exactdp.ReportNoisyMax(1, noise="laplace", output="value")
    q, q2 = [0, 0, 1, 0, 0], [0, -1, 1, 0, 1]
    above = check_dp(m, q, q2, epsilon=R(29, 100))
    below = check_dp(m, q, q2, epsilon=R(28, 100))
    assert above.holds and not below.holds
    for res in (above, below):
        lo, hi = res.interval
        assert res.engine == "density" and res.search == "given neighbour"
        assert 0.2880628 < lo <= hi < 0.2880629 and hi - lo < 1e-20
        assert "the value at [0.00495899" in res.witness.output
    # every mechanism is oo-DP: at epsilon = oo (no noise) the check holds vacuously
    at_oo = exactdp.ReportNoisyMax(sympy.oo, noise="laplace", output="value")
    assert check_dp(at_oo, [0, 1], [1, 0]).holds
    with pytest.raises(UndecidedSignError, match=r"^check_dp: the certified bracket "
                       r"\[0.288062, 0.288063\] of the largest privacy loss contains epsilon = "):
        check_dp(m, q, q2, epsilon=sympy.Rational(above.interval[0]))


def test_exact_and_ball_checks_report_their_search_and_digits():
    """``search`` names how the neighbours were chosen; a ball check's loss is a Float of
    ``dps`` digits (DPCheck's docstring): 30 digits at the first level."""
    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    given = check_dp(exactdp.PermuteAndFlip(1), [0, 1], [1, 1])
    assert given.search == "given neighbour" and given.engine == "x-form"
    searched = check_dp(exactdp.PermuteAndFlip(1), [0, 1])
    assert searched.search == "exhaustive vertices {-1,0,1}^n" and searched.engine == "x-form"
    assert searched.neighbours_checked == 3**2 - 1
    ball = check_dp(GaussianNoisyMax(sigma=1), [1, 0], [0, 0], epsilon=1)
    assert ball.dps == 30 and ball.loss._prec == sympy.Float(1, 30)._prec


def test_a_sequence_witness_names_the_output_itself_not_its_index():
    # before: "at output 1", the index of (False, True) in the distribution's outputs
    from exactdp.programs.library import svt1

    for m in (svt1(epsilon=1, threshold=1, c=1), exactdp.SparseVector(1, 1, c=1)):
        res = check_dp(m, [0, 1])
        w = res.witness
        # independently: the loss of the witness pair, attained at an index of the outputs
        loss = privacy_loss(m, list(w.scores), list(w.neighbour))
        assert loss.loss == res.loss
        assert w.output == m.distribution(list(w.scores)).outputs[loss.output]
        assert w.output == (False, True)
        assert "at output (False, True)" in repr(res) and len(repr(res)) <= 200
    # a selection names its index, the output itself
    assert check_dp(exactdp.PermuteAndFlip(1), [0, -1]).witness.output == 1


def test_svt2_at_a_score_of_1e300_is_decided_and_equals_the_loss_at_100():
    # was undecided after 2.25 s (a ball of 190791 bits still held 0); an independent route:
    # the x-form engine's exact loss at a first score of 100, its exp(-50) and exp(-51)
    # terms (the first query's tail, exp(-5e299) at 1e300) set to 0
    import flint

    from exactdp import SparseVector, privacy_loss
    from exactdp.exact import to_arb
    from exactdp.programs import library

    far = privacy_loss(SparseVector(1, 0, variant=2), [100, 0], [101, -1])
    limit = far.loss.xreplace({sympy.exp(-50): 0, sympy.exp(-51): 0})  # exp(-5e299): 0
    assert not limit.has(sympy.exp(-50)) and limit != far.loss
    for m in (SparseVector(1, 0, variant=2), library.svt2(epsilon=1, threshold=0)):
        check = exactdp.check_dp(m, [10**300, 0])
        assert check.holds and check.certified
        gap = to_arb(check.loss, 200) - to_arb(limit, 200)  # sympy.N underflows to zoo
        assert abs(gap) < flint.arb(10) ** -25


def test_sparse_vector_at_epsilon_1e_300_is_decided_and_linear_in_epsilon():
    # took 23 s (sympy's cancel in an exact zero test); the loss is linear in a tiny
    # epsilon: the same multiple of epsilon at 1e-300 as at 1e-30 (a second computation)
    import flint

    from exactdp import SparseVector
    from exactdp.exact import to_arb

    tiny = exactdp.check_dp(SparseVector(sympy.Rational(1, 10**300), 1), ["1e-300", 0])
    small = exactdp.check_dp(SparseVector(sympy.Rational(1, 10**30), 1), ["1e-30", 0])
    assert tiny.holds and tiny.certified
    ratio, ratio_small = (to_arb(c.loss, 1200) / to_arb(c.epsilon, 1200) for c in (tiny, small))
    assert abs(ratio - ratio_small) < flint.arb(10) ** -6 and 0 < ratio <= 1


def test_a_release_program_over_its_neighbours_keeps_the_joint_bracket(monkeypatch):
    # one neighbour's exact loss 1/2 and another's certified bracket [0.4, 0.7] reaching
    # above it: the largest loss is known only within [1/2, 0.7], the witness is the exact
    # pair; before, "compare: value must be exact". (adaptive_svt on (0, 0), which showed it,
    # is now exact on every neighbour: the losses are fabricated here.)
    import exactdp.analysis.check as check
    from exactdp.analysis.loss import PrivacyLoss
    from exactdp.exact import UndecidedSignError
    from exactdp.scores import as_scores

    def fake(mech, q, nb):
        if nb.values == (1, 1):
            return PrivacyLoss(R(1, 2), "exact", (), q.values, nb.values, 1, (), "density")
        return PrivacyLoss(sympy.Float("0.55"), "bracket", (), q.values, nb.values, 1, (),
                           "density", (sympy.Float("0.4"), sympy.Float("0.7")))

    monkeypatch.setattr(check, "density_privacy_loss", fake)
    nbrs = [as_scores(v) for v in ([1, 1], [1, -1])]
    mech = PROGRAMS["adaptive_svt"](epsilon=1, threshold=1)  # priced by its own runs
    r = check._density_check_dp(mech, as_scores([0, 0]), nbrs, sympy.Integer(1), "given")
    lo, hi = r.interval
    assert r.holds and r.witness.neighbour == (1, 1)
    assert lo <= R(1, 2) < hi and abs(hi - sympy.Float("0.7")) < 1e-12
    assert r.loss == (lo + hi) / 2 and len(repr(r)) <= 200
    # a wide ball: its ends rounded outward (the joint bracket's ends are balls around 1/2, 0.7)
    assert "[0.500000, 0.700000] (certified bracket)" in repr(r)
    # the claim inside the joint bracket is undecided, never a guess
    with pytest.raises(UndecidedSignError, match="contains epsilon = 3/5"):
        check._density_check_dp(mech, as_scores([0, 0]), nbrs, R(3, 5), "given")


def test_density_check_dp_takes_the_largest_loss_whatever_the_neighbours_order():
    """Mutation seed 11: the exact density search reads every neighbour, not only the first.
    RNM-Laplace releasing the value at epsilon = 1/10 on [0, 1]: by the one-neighbour checks
    (an enumeration of the pairs), [1, 0] has loss 0, [0, 2] 1/20 and [1, 2] (all shifted)
    1/10; the search over them in that order finds 1/10 at [1, 2]."""
    from exactdp.analysis.check import _density_check_dp
    from exactdp.scores import as_scores

    m = exactdp.ReportNoisyMax("0.1", noise="laplace", output="value")
    nbrs = [[1, 0], [0, 2], [1, 2]]
    assert [check_dp(m, [0, 1], nb).loss for nb in nbrs] == [0, R(1, 20), R(1, 10)]
    res = _density_check_dp(m, as_scores([0, 1]), [as_scores(nb) for nb in nbrs],
                            R(1, 20), "given neighbours")
    assert res.loss == R(1, 10) and not res.holds and res.witness.neighbour == (1, 2)
    assert res.search == "given neighbours" and res.neighbours_checked == 3


def test_a_ball_check_names_its_search():
    """Mutation seed 11: the ball engine's result carries how its neighbours were chosen, as
    the exact engines' do."""
    from exactdp.mechanisms.gaussian_noisy_max import GaussianNoisyMax

    ball = check_dp(GaussianNoisyMax(sigma=1), [1, 0], [0, 0], epsilon=1)
    assert ball.engine == "ball" and ball.search == "given neighbour"


def test_check_dp_refuses_a_negative_epsilon_in_its_words():
    """Mutation seed 11: the claimed epsilon must be > 0, said in exactly those words."""
    with pytest.raises(ValueError, match=r"^check_dp: epsilon must be > 0, got -1$"):
        check_dp(exactdp.PermuteAndFlip(1), [0, 1], epsilon=-1)


def test_check_dp_over_different_output_sets_is_not_private_with_the_witness():
    """The output True is reached on (1,) only (probability 1/2 there, 0 on (0,)): the
    loss is infinite and check_dp names that output; incorrect randomized response at
    epsilon 1 (no flip: each vector's output is itself) likewise, at any claim."""
    r = check_dp(overlap(epsilon=1), [1])
    assert not r.holds and r.loss is sympy.oo
    assert r.witness.neighbour == (0,) and r.witness.output is True
    back = check_dp(overlap(epsilon=1), [0], epsilon=100)
    assert not back.holds and back.loss is sympy.oo
    assert back.witness.output == 1 and type(back.witness.output) is int
    rr = check_dp(programs_library.randomized_response_incorrect(epsilon=1), [0, 1])
    assert not rr.holds and rr.loss is sympy.oo
    w = rr.witness
    assert w.output in ((0, 1), tuple(w.neighbour))  # reached on one vector only


def test_density_check_dp_prices_pairs_by_the_release_distribution():
    """check_dp on a program releasing real values prices each neighbour by the release
    distribution's own estimate (loss_seconds): the histogram of 30 answers (60
    neighbours, about 8 s estimated, 0.2 s CPU measured) runs and gives epsilon exactly;
    AdaptiveSVT at 12 answers (about 38 s a pair estimated, 42 s measured) is refused at
    once, naming check_dp and the cheaper route, before any supremum; at the cost model's
    one limit, SECONDS_LIMIT (it was 10 s here alone)."""
    start = time.process_time()
    res = check_dp(PROGRAMS["histogram"](epsilon=1), [1] * 30, progress=False)
    assert res.holds and res.loss == 1 and res.neighbours_checked == 60
    assert time.process_time() - start < 30  # 0.2 s measured; estimate 8 s
    for name in ("adaptive_svt", "bad_adaptive_svt"):
        start = time.process_time()
        with pytest.raises(TooCostly, match=r"^check_dp: the exact density suprema of "
                           r"(at least )?\d+ neighbours would need about \d+ s \(limit 120 s\); "
                           r"pass the one neighbour to check \(neighbour=\.\.\.\)"):
            check_dp(PROGRAMS[name](epsilon=1, threshold=1), [1] * 12)
        assert time.process_time() - start < 2
    with pytest.raises(TooCostly) as info:
        check_dp(PROGRAMS["adaptive_svt"](epsilon=1, threshold=1), [1] * 12)
    assert info.value.limit == f"{SECONDS_LIMIT:.0f} s"


def test_permute_and_flip_start_line_uses_its_tree_estimate(capsys):
    # one gap over 60 scores: PF's product trees cost well under a second (pf_trees_seconds);
    # the generic analysis_seconds said 13 s and printed a start line for a 0.01 s call
    from exactdp.analysis.engines.select import pf_trees_seconds

    r = exactdp.check_dp(exactdp.PermuteAndFlip(1), [1] + [0] * 59)
    assert r.holds
    assert "started" not in capsys.readouterr().err
    assert pf_trees_seconds([(1,) + (0,) * 59]) < 1.0


def test_a_sign_past_the_cost_model_is_check_dp_s_refusal(monkeypatch):
    """RNM-Laplace at epsilon 7 with a score of 1e20: a ratio of probabilities of 361
    nodes whose balls contain 0 at the affordable precision. Its exact zero test took
    10-60 s CPU before an undecided sign (an ArithmeticError); now it is skipped (past
    EXACT_ZERO_NODES) and check_dp refuses in its own name with the balls' estimate."""
    def never(e):
        raise AssertionError("the exact zero test ran past the cost model")

    monkeypatch.setattr("exactdp.exact.signs._exact_zero", never)
    with pytest.raises(TooCostly, match=r"^check_dp: deciding the sign of .* would need "
                       r"about \S+ s \(limit 1\.5 s\); compare the float64 views") as info:
        check_dp(exactdp.ReportNoisyMax(7, noise="laplace"),
                 [-408, 10**20, "1/3", "1/3", 0, 1, "1/3"])
    assert "\n" not in str(info.value)
    assert float(info.value.estimate.split()[1]) > 1.5


def test_an_analysis_past_the_limit_at_two_vectors_is_refused_before_the_search(
        monkeypatch):
    """PF on 2000 scores: the neighbour search (3-4 s CPU) came before the refusal of the
    4003 vectors' analysis; the analysis of q and one neighbour alone, a lower bound (every
    search has one), is past the limit: refused before any neighbour is built."""
    from exactdp.analysis import check as check_module
    from exactdp.cost import analysis_seconds

    def never(*args):
        raise AssertionError("the neighbours were built before the refusal")

    monkeypatch.setattr(check_module, "neighbour_list", never)
    with pytest.raises(TooCostly, match=r"^check_dp: an exact analysis of at least 2 score "
                       r"vectors of n = 2000 outputs would need about 1\.44e\+03 s") as info:
        check_dp(exactdp.PermuteAndFlip(1), list(range(2000)))
    assert info.value.estimate == f"about {analysis_seconds(2, 2000, 1999):.3g} s"


def test_check_dp_on_a_release_prints_its_own_line_not_one_per_neighbour(capsys, monkeypatch):
    """Each neighbour's loss printed its own start line inside check_dp (noisy top-k with
    gap, k = 3 on 4 answers: 32 lines of "about 18 s"); check_dp's own line or bar covers
    them. Here every line is made to print (threshold 0): check_dp's alone is left."""
    import exactdp.progress as P
    from exactdp.programs import library_release as L

    monkeypatch.setattr(P, "LINE_SECONDS", 0.0)
    check = exactdp.check_dp(L.svt3(epsilon=1, threshold=1), [0, 1])
    assert check.loss == 1  # on (0, 1) the worst neighbour reaches epsilon, a constant ratio
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("check_dp: started, about ")
