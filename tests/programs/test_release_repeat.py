"""Pairs proved below a floor, remembered up to a renumbering of the noises: a permuted
pair has the same class and the same loss (checked by computing both losses exactly), a
pair with other answers another class, and a remembered class answers only floors at
least as high as the one it was proved below."""

from __future__ import annotations

import sympy

import exactdp
from exactdp.exact import compare
from exactdp.programs import library_release as L
from exactdp.programs import release_repeat as R

EPS = sympy.Rational(1, 10)


def test_a_permuted_pair_has_one_class_and_one_loss():
    m = L.noisy_top_k_gap(epsilon=EPS)
    one = m.distribution((1, 1, 1, 1, 1))
    cls = R.pair_class(one, m.distribution((2, 2, 0, 0, 0)))
    assert cls is not None and cls == R.pair_class(one, m.distribution((0, 2, 0, 2, 0)))
    assert cls != R.pair_class(one, m.distribution((2, 2, 2, 0, 0)))
    a = exactdp.privacy_loss(m, (1, 1, 1, 1, 1), (2, 2, 0, 0, 0)).loss
    b = exactdp.privacy_loss(m, (1, 1, 1, 1, 1), (0, 2, 0, 2, 0)).loss
    assert compare(a, b) == 0


def test_a_class_answers_floors_at_least_the_one_it_was_proved_below():
    m = L.noisy_top_k_gap_exponential(epsilon=EPS)
    one = m.distribution((1, 1, 1, 1, 1))
    cls = R.pair_class(one, m.distribution((2, 0, 0, 0, 0)))
    R._BELOW.pop(cls, None)
    assert not R.known_below(cls, EPS)
    R.record_below(cls, EPS)
    assert R.known_below(cls, EPS) and R.known_below(cls, 2 * EPS)
    assert not R.known_below(cls, EPS / 2)
    R.record_below(cls, EPS / 2)  # a lower floor is kept
    assert R.known_below(cls, EPS / 2)
    R._BELOW.pop(cls)
    assert not R.known_below(None, EPS)
    R.record_below(None, EPS)  # no class: nothing recorded


def test_loss_at_least_answers_a_permuted_pair_from_its_class():
    m = L.noisy_top_k_gap(epsilon=EPS)
    d = m.distribution((1, 1, 1, 1, 1))
    floor = exactdp.privacy_loss(m, (1, 1, 1, 1, 1), (0, 0, 2, 2, 2)).loss
    assert d.loss_at_least((2, 2, 0, 0, 0), floor) is None
    assert R.known_below(R.pair_class(d, m.distribution((0, 0, 0, 2, 2))), floor)
    assert d.loss_at_least((0, 0, 0, 2, 2), floor) is None
    assert compare(exactdp.privacy_loss(m, (1, 1, 1, 1, 1), (0, 0, 0, 2, 2)).loss, floor) < 0


def test_a_product_programs_class_is_read_from_its_parts():
    # SVT34Parallel on (1, 1, 1): (2, 2, 0) and (2, 0, 2) differ in the position of the
    # lowered answer, so in their classes; their losses, computed exactly, differ too (the
    # class of a pair made anew is the same)
    m = L.svt34_parallel(epsilon=EPS, c=1)
    one = m.distribution((1, 1, 1))
    cls = R.pair_class(one, m.distribution((2, 2, 0)))
    assert cls is not None and len(cls) == 3 and cls[0] == m
    assert cls == R.pair_class(one, m.distribution((2, 2, 0)))
    assert cls != R.pair_class(one, m.distribution((2, 0, 2)))
    a = exactdp.privacy_loss(m, (1, 1, 1), (2, 2, 0)).loss
    b = exactdp.privacy_loss(m, (1, 1, 1), (2, 0, 2)).loss
    assert compare(a, b) != 0
