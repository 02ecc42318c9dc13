"""A release program of two independent parts: the split read from its runs, the product
law against the full program's own integrals and a quadrature, and the loss as the sum of
the parts' against the full route (the same exact value)."""

from __future__ import annotations

import mpmath
import pytest
import sympy

import exactdp
from exactdp.cost import TooCostly, check_seconds
from exactdp.exact.signs import is_zero
from exactdp.programs import laplace, program, release_factor, release_loss, release_patterns
from exactdp.programs import release as rel
from exactdp.programs.library_release import svt3, svt34_parallel
from exactdp.programs.release_factor import (
    factor,
    product_bound,
    product_estimate,
    product_hint,
    product_supremum,
    split_pair,
)

R = sympy.Rational


def same(a, b) -> bool:
    """``a == b`` for logs of exponential sums, exactly (Lindemann-Weierstrass)."""
    return is_zero(sympy.expand(sympy.exp(a) - sympy.exp(b)))


@program(output="release")
def two_values(q, epsilon):
    z1 = laplace(1 / epsilon)
    z2 = laplace(2 / epsilon)  # noises are grouped by the line drawing them
    return q[0] + z1, q[1] + z2


@program(output="release")
def shared(q, epsilon):
    z = laplace(1 / epsilon)
    return q[0] + z, q[1] + z >= 0  # one noise under both components


def test_the_sparse_vectors_side_by_side_split_into_a_product_law():
    m = svt34_parallel(epsilon=1, c=1)
    d = m.distribution([0, 1])
    (a, b), sides = factor(d)
    assert sides[0] != sides[1] and a.components == (0,) and b.components == (1,)
    assert sum(a.probabilities) == 1 and sum(b.probabilities) == 1
    # every pattern of the program: its own integrals against the product of the parts'
    for pattern, p in zip(d.outputs, d.probabilities, strict=True):
        assert is_zero(sympy.expand(p - a.pmf(pattern[0]) * b.pmf(pattern[1])))


def test_no_split_where_the_components_share_a_noise_or_there_is_one_group():
    assert factor(shared(epsilon=1).distribution([0, 1])) is None
    assert factor(svt3(epsilon=1, threshold=1).distribution([0, 1])) is None


def test_a_density_is_the_product_of_the_parts_by_quadrature():
    # q = (0, 1), T = 1, epsilon = 1, c = 1: svt3's rho ~ Lap(4), nu ~ Lap(4); svt4's
    # rho ~ Lap(8), nu ~ Lap(8/3). The output ((v, None), (False, True)) at v = 3/2 has
    # density lap4(v) Pr[rho <= v - 1] times Pr[u1 < 1 + r, 1 + u2 >= 1 + r] over r.
    d = svt34_parallel(epsilon=1, c=1).distribution([0, 1])
    v, b = mpmath.mpf(3) / 2, mpmath.mpf(8) / 3

    def lap(b, x):
        return mpmath.exp(-abs(x) / b) / (2 * b)

    def cdf(b, x):
        return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

    with mpmath.workdps(30):  # the integrand's kinks at r = -1 and r = 0
        first = lap(4, v) * cdf(4, v - 1)
        second = mpmath.quad(lambda r: lap(8, r) * cdf(b, 1 + r) * (1 - cdf(b, r)),
                             [-mpmath.inf, -1, 0, mpmath.inf])
        got = d.density(((R(3, 2), None), (False, True)))
        assert abs(sympy.N(got, 30) - first * second) < mpmath.mpf(10) ** -15


@pytest.mark.parametrize("a, b", [((1, 1, 1), (2, 2, 2)), ((1, 0, 1), (2, 1, 0)),
                                  ((0, 0), (0, 1)), ((2, 0), (2, 1))])
def test_the_loss_is_the_sum_of_the_parts_as_the_full_route(a, b, monkeypatch):
    # (0, 0) vs (0, 1) and (2, 0) vs (2, 1): the parts' worst outputs lean opposite ways
    m = svt34_parallel(epsilon=R(1, 10) if len(a) == 3 else 1, c=1)
    d, e = m.distribution(list(a)), m.distribution(list(b))
    split = product_supremum(d, e, release_loss.directional_supremum)
    assert split is not None and split.attained and split.witness.startswith("the pattern ((")
    monkeypatch.setattr(release_loss, "product_supremum", lambda *args: None)
    assert same(split.loss, exactdp.privacy_loss(m, list(a), list(b)).loss)


def test_two_released_values_of_separate_noises_add_their_losses(monkeypatch):
    # Laplace(1/epsilon) and Laplace(2/epsilon) on answers moving by 1 and -1: epsilon and
    # epsilon / 2, both attained far out (the separable route's number, and the closed form)
    m = two_values(epsilon=R(1, 3))
    assert exactdp.privacy_loss(m, [0, 0], [1, -1]).loss == R(1, 2)
    d, e = m.distribution([0, 0]), m.distribution([1, -1])
    found = product_supremum(d, e, release_loss.directional_supremum)
    assert found is not None and found.loss == R(1, 2) and found.attained
    monkeypatch.setattr(release_loss, "product_supremum", lambda *args: None)
    assert exactdp.privacy_loss(m, [0, 0], [1, -1]).loss == R(1, 2)


def test_the_bound_of_a_product_is_the_full_routes(monkeypatch):
    # the translation bound of a pattern pair (x, y) is the parts' sum in each direction,
    # so the largest over the product is the larger of the two sums of the parts' largest
    m = svt34_parallel(epsilon=R(1, 10), c=1)
    d = m.distribution([1, 1, 1])
    found = [product_bound("t", d, m.distribution(list(b))) for b in ((2, 2, 2), (0, 2, 0))]
    monkeypatch.setattr(release_factor, "product_bound", lambda *args: None)
    full = [d.loss_upper_bound(list(b)) for b in ((2, 2, 2), (0, 2, 0))]
    assert found == full and all(isinstance(b, sympy.Rational) for b in found)
    assert product_bound("t", shared(epsilon=1).distribution([0, 0]),
                         shared(epsilon=1).distribution([1, 1])) is None


def test_a_floor_prunes_the_dearer_part_and_keeps_the_loss():
    # the loss of (1, 1, 1) vs (2, 2, 0) is 0.147469 (the full route, above): under a
    # floor below it the same exact loss, above it None (|L_A| + |L_B| below the floor)
    m = svt34_parallel(epsilon=R(1, 10), c=1)
    d = m.distribution([1, 1, 1])
    loss = exactdp.privacy_loss(m, [1, 1, 1], [2, 2, 0]).loss
    assert abs(float(loss) - 0.147469) < 1e-6
    assert d.loss_at_least([2, 2, 0], R(3, 20)) is None
    assert same(d.loss_at_least([2, 2, 0], R(1, 10)).loss, loss)


def test_the_hint_of_a_product_is_the_full_programs_from_its_own_patterns():
    # the patterns releasing no value, read on the full program (its own integrals)
    # against the parts' sum rule; a pair split another way (or not at all) has no parts
    m = svt34_parallel(epsilon=R(1, 10), c=1)
    d = m.distribution([1, 1, 1])
    for b in ((2, 2, 2), (0, 2, 0), (2, 0, 0), (1, 1, 0)):
        e = m.distribution(list(b))
        parts = split_pair(d, e)
        assert [p.components for p, _ in parts] == [(0,), (1,)]
        full = release_patterns.discrete_hint(d, e, lambda x, k: x.pmf(x.outputs[
            x.keys.index(k)]))
        assert product_hint(parts) == pytest.approx(full, rel=1e-12)
        assert parts[0][0].probability(parts[0][0].keys[0]) == parts[0][0].probabilities[0]
    s = shared(epsilon=1)
    assert split_pair(s.distribution([0, 0]), s.distribution([1, 1])) is None


def test_a_split_pairs_loss_is_priced_on_its_parts(monkeypatch):
    # c = 2 on 4 answers: the product's 121 runs are priced at about 5.9 s (1.5 s on the
    # pair's pattern classes, release_loss_price.pair_seconds), the parts' route (twice
    # each part's 11 runs' own estimates) at about 0.66 s; under a limit between the two
    # the loss is computed on the parts, and refused on the full route
    from exactdp.scores import as_scores

    m = svt34_parallel(epsilon=R(1, 10), c=2)
    d, e = m.distribution([1, 1, 1, 1]), m.distribution([2, 2, 2, 0])
    est = product_estimate(split_pair(d, e))
    parts = split_pair(d, e)
    assert est.runs == sum(len(r) for p, _ in parts for r in p.runs.values())
    assert est.seconds == pytest.approx(2 * sum(p.loss_seconds("") for p, _ in parts))
    full = m._estimate(as_scores([1, 1, 1, 1]), as_scores([2, 2, 2, 0]))[0].seconds
    limit = (est.seconds + full) / 2
    assert est.seconds < limit < full < d.loss_seconds("t")
    found = product_supremum(d, e, release_loss.directional_supremum)

    def check(*args):
        return check_seconds(*args, limit=limit)

    monkeypatch.setattr(rel, "check_seconds", check)
    r = exactdp.privacy_loss(m, [1, 1, 1, 1], [2, 2, 2, 0])
    assert r.certified and same(r.loss, found.loss)
    monkeypatch.setattr(rel, "split_pair", lambda *args: None)
    with pytest.raises(TooCostly, match="the loss supremum over about 121 runs"):
        exactdp.privacy_loss(m, [1, 1, 1, 1], [2, 2, 2, 0])
