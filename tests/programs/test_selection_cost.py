"""exactdp.programs.selection_cost: the integration of a selection's runs priced at the
selection, against the sum over every run (trace_seconds), and the refusal it gives."""

from __future__ import annotations

import time

import pytest
import sympy

from exactdp.cost import SECONDS_LIMIT, TooCostly
from exactdp.programs import integrate, library, library_release, mechanism, release
from exactdp.programs.mechanism import trace_seconds
from exactdp.programs.runs import Budget, Draw, Estimate
from exactdp.programs.selection_cost import LADDER_START, SAMPLES, orders, price_selection
from exactdp.programs.values import Noisy

R = sympy.Rational


def test_orders_spread_the_first_over_the_ranks():
    assert orders([3, 1, 2], False, 1) == [(0,), (2,), (1,)]
    assert orders([3, 1, 2], True, 1) == [(1,), (2,), (0,)]
    got = orders(list(range(20)), False, 1)
    assert len(got) == SAMPLES and len({o[0] for o in got}) == SAMPLES
    top3 = orders(list(range(10)), False, 3)
    assert len(top3) == SAMPLES and all(len(set(o)) == 3 for o in top3)
    assert orders([5, 4], False, 2) == [(0, 1), (1, 0)]  # 2 orders only


def test_price_of_an_argmax_against_the_sum_over_its_runs():
    """noisy_max_laplace on 30 distinct answers (about 10 s of integrals, under the limit):
    the price at the argmax (8 winners spread over the ranks, times 30) is within a factor
    2 of the estimate summed over the 30 runs once they exist."""
    m = library.noisy_max_laplace(epsilon=R(1, 2))
    q = tuple(sympy.Integer(a) for a in range(30))
    seen: list[Estimate] = []
    budget = Budget(lambda run: mechanism._run_seconds("noisy_max_laplace", run), seen.append)

    run = _AtArgmax(budget, [Draw(i, "laplace", 4 / m.epsilon, "library.py:41")
                             for i in range(30)])
    values = [Noisy(a, {i: 1}, {i: "laplace"}) for i, a in enumerate(range(30))]
    price_selection(run, values, False, None, "library.py:41")
    assert run.budget is None  # once per execution
    # checked after every branch: lower bounds of the mean (the others cost at least 0)
    assert len(seen) == SAMPLES
    assert all(a.seconds <= b.seconds for a, b in zip(seen, seen[1:], strict=False))
    est = seen[-1]
    total = trace_seconds(m, q)
    assert est.runs == 30
    assert total / 2 < est.seconds < 2 * total, (est, total)


class _AtArgmax:
    """An execution at its argmax: the draws made, nothing compared before."""

    def __init__(self, budget, draws):
        self.budget, self.draws, self.constraints, self.arities = budget, draws, [], []
        self.weight = sympy.Integer(1)

    def noises(self, v):
        return v.coef


def test_noisy_max_on_200_answers_is_refused_at_its_argmax(monkeypatch):
    """Before, the structural trace and the plans of the 200 runs (3.8-4.1 s CPU) came
    before the estimate refused; now the first execution's argmax prices 8 of its runs
    and refuses: the integrator's estimate is asked fewer than SAMPLES times (a branch of
    fewer values, a lower bound, refuses first), not 200."""
    calls = []
    cost = integrate.run_cost
    monkeypatch.setattr(mechanism, "run_cost", lambda run: calls.append(1) or cost(run))
    m = library.noisy_max_laplace(epsilon=R(1, 2))
    start = time.process_time()
    with pytest.raises(TooCostly, match=r"^probabilities: the exact probabilities of about "
                       r"200 runs would need about \S+ s \(limit 120 s\); use fewer queries"
                       ) as info:
        m.distribution(list(range(200))).probabilities  # noqa: B018
    cpu = time.process_time() - start
    assert 0 < len(calls) < SAMPLES
    # a lower bound: the first branch with 128 of the other values (about 1e6 s in all)
    assert float(info.value.estimate.split()[1]) > 100 * SECONDS_LIMIT
    assert cpu < 2  # 0.2 s measured; a 10x margin


def test_top_3_of_16_is_refused_at_its_selection(monkeypatch):
    """noisy_top_k_gap (k = 3, a chain of comparisons: a tree per run) on 16 answers:
    3,360 runs, near the run limit, so the enumeration counted them exactly and the
    integrals' estimate refused after it (4.6 s CPU); now the topk call prices 8 of its
    orders (or fewer: the mean's lower bound past the limit) and refuses before any other
    run exists."""
    calls = []
    cost = integrate.run_cost
    monkeypatch.setattr(release, "run_cost", lambda run: calls.append(1) or cost(run))
    m = library_release.noisy_top_k_gap(epsilon=R(1, 2), k=3)
    start = time.process_time()
    with pytest.raises(TooCostly, match=r"^noisy_top_k_gap\.probabilities: the exact "
                       r"integrals of about 3\.36e\+03 runs would need about \S+ s"):
        m.distribution(list(range(16))).probabilities  # noqa: B018
    assert 0 < len(calls) <= SAMPLES
    assert time.process_time() - start < 2  # 0.01 s measured


def test_a_branch_outside_the_exact_class_is_left_to_the_integrator():
    """The integrator's refusal of a branch (its cost raises a ValueError) is not turned
    into a failed run here: the selection is not priced, and the integrator's one-line
    reason comes later; a TooCostly from the cost goes through."""
    values = [Noisy(a, {i: 1}, {i: "laplace"}) for i, a in enumerate(range(40))]
    draws = [Draw(i, "laplace", sympy.Integer(4), "f.py:1") for i in range(40)]
    checked = []

    def outside(run):
        raise ValueError("f.py:1: outside")

    price_selection(_AtArgmax(Budget(outside, checked.append), draws), values, False, None,
                    "f.py:2")
    assert checked == []

    def costly(run):
        raise TooCostly("costly")

    with pytest.raises(TooCostly, match="costly"):
        price_selection(_AtArgmax(Budget(costly, checked.append), draws), values, False,
                        None, "f.py:2")


def test_a_released_maximum_is_priced_by_its_own_estimate():
    """max_value's selection prices each branch as the run releasing the winner's value:
    a released maximum needs no integral (release_cost.loss_seconds), and the pair is
    priced by release_max.pair_seconds with both inputs' offsets. 40 scores spanning 975
    steps were refused at the argmax as 40 argmax integrals (1.8e3 s) pointing to
    ReportNoisyMax, whose value output is this same program."""
    from fractions import Fraction

    import exactdp
    from exactdp.programs.release_cost import loss_seconds
    from exactdp.programs.release_max import MaxForm, max_run, pair_seconds

    values = [Noisy(a, {i: 1}, {i: "laplace"}) for i, a in enumerate(range(0, 1000, 25))]
    draws = [Draw(i, "laplace", sympy.Integer(2), "f.py:1") for i in range(40)]
    runs, seen = [], []

    def cost(run):
        runs.append(run)
        return loss_seconds(run)

    price_selection(_AtArgmax(Budget(cost, seen.append), draws), values, False, None,
                    "f.py:2", value=True)
    assert len(runs) == SAMPLES and all(max_run(r) is not None for r in runs)
    assert seen[0].seconds < 1e-2 * 40
    q = [a + (i % 3) * 7 for i, a in enumerate(range(0, 1000, 25))]
    two = pair_seconds(*(MaxForm("laplace", sympy.Integer(2), tuple(map(Fraction, v)))
                         for v in (q, [a + 1 for a in q])))  # translated: 203 s CPU
    for m, name in ((library_release.noisy_max_value_laplace(epsilon=1), "privacy_loss"),
                    (exactdp.ReportNoisyMax(1, noise="laplace", output="value"),
                     "privacy_loss")):
        start = time.process_time()
        with pytest.raises(TooCostly) as info:
            exactdp.privacy_loss(m, q, [a + 1 for a in q])
        assert time.process_time() - start < 2
        msg = str(info.value)
        assert name in msg.split(":")[0], msg
        assert "the loss supremum over about 40 runs' patterns (a released maximum)" in msg
        assert f"about {two:.3g} s" in msg and "ReportNoisyMax" not in msg
        assert "smaller common denominator or span, or fewer scores" in msg


def test_an_argmax_far_past_the_limit_is_refused_on_the_ladder(monkeypatch):
    """noisy max on 8000 answers: each of the 8 branches priced with all 8000 values cost
    about 1.7 s (13.8 s CPU before the refusal); the first branch with 32, then 128, 512,
    2048 of the other values bounds the mean from below, and a rung past the limit refuses
    before any run of all 8000 values is priced (nor the 8 branches)."""
    sizes = []
    cost = integrate.run_cost
    monkeypatch.setattr(mechanism, "run_cost",
                        lambda run: sizes.append(len(run.constraints)) or cost(run))
    m = library.noisy_max_laplace(epsilon=R(1, 2))
    with pytest.raises(TooCostly, match=r"^probabilities: the exact probabilities of about "
                       r"8e\+03 runs would need about \S+ s \(limit 120 s\)"):
        m.distribution(list(range(8000))).probabilities  # noqa: B018
    assert sizes and max(sizes) < 8000 - 1
    assert sizes == [LADDER_START * 4**k for k in range(len(sizes))]
