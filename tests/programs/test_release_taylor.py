"""Taylor-form enclosures of exponential polynomials over intervals: they hold the true
range (mpmath at 50 digits on a grid) and shrink like the interval's width to the order."""

from __future__ import annotations

from fractions import Fraction as F

import flint
import mpmath
import pytest

from exactdp.exact.arb import flint_prec
from exactdp.programs.release_taylor import TAYLOR_ORDER, fraction_ball, interval, taylor_ball

#: exp(v) - 1 and a cancelling sum: 1e5 exp(v / 2) - 1e5 exp(v / 3) - (1e5 / 6) v e^0 ...
CASES = {
    "exp(v) - 1": {(F(1), F(0)): (F(1),), (F(0), F(0)): (F(-1),)},
    "v e^(-v) + e^(-2v)": {(F(-1), F(0)): (F(0), F(1)), (F(-2), F(0)): (F(1),)},
    "cancelling": {(F(1, 2), F(0)): (F(10**5),), (F(1, 3), F(0)): (F(-10**5),)},
}


def value(f, v):
    return sum(sum(c * v**j for j, c in enumerate(p)) * mpmath.exp(k * v + w)
               for (k, w), p in f.items())


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("x,y", [(F(1, 8), F(3, 8)), (F(-2), F(-1)), (F(0), F(1, 1000))])
def test_the_ball_holds_the_range(name, x, y):
    f = CASES[name]
    with flint_prec(128):
        b = taylor_ball(f, F(1), x, y)
    with mpmath.workdps(50):
        for i in range(21):
            v = mpmath.mpf(x.numerator) / x.denominator + (
                mpmath.mpf((y - x).numerator) / (y - x).denominator) * i / 20
            assert b.contains(flint.arb(mpmath.nstr(value(f, v), 40)))


def test_it_shrinks_with_the_interval():
    f = CASES["cancelling"]
    widths = []
    for h in (F(1, 10), F(1, 100)):
        with flint_prec(128):
            widths.append(float(taylor_ball(f, F(1), F(1) - h, F(1) + h).rad()))
    # the range's own width shrinks like h: the enclosure's excess like h^2 at least
    assert widths[1] < widths[0] / 8 and TAYLOR_ORDER >= 2


def test_rational_balls_and_intervals_are_exact_ends():
    with flint_prec(64):
        assert fraction_ball(F(1, 3)).contains(flint.arb(1) / 3)
        i = interval(F(1, 4), F(3, 4))
        assert i.contains(flint.arb(1) / 4) and i.contains(flint.arb(3) / 4)
        assert not i.contains(flint.arb(1))


def test_cached_by_id_keeps_one_entry_per_terms_and_precision():
    from exactdp.programs.release_taylor import cached_by_id

    cache, f, built = {}, {(F(1), F(0)): (F(1),)}, []
    for prec in (64, 64, 128):
        with flint_prec(prec):
            cached_by_id(cache, f, F(1), lambda: built.append(1) or [len(built)])
    assert built == [1, 1] and len(cache) == 2  # one build per precision
    g = dict(f)  # equal terms, another object: its own entry
    cached_by_id(cache, g, F(1), lambda: [0])
    assert len(cache) == 3
