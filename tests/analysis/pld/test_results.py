"""analysis/pld/results.py: the helpers shared by the exact and the grid PLD."""

from __future__ import annotations

from fractions import Fraction

from exactdp.analysis.pld.results import power_by_squaring


def test_power_by_squaring_against_repetition():
    calls = []

    def concat(a, b):
        calls.append(1)
        return a + b

    for k in (1, 2, 5, 13, 64):
        calls.clear()
        assert power_by_squaring("ab", k, concat) == "ab" * k  # associative, not commutative
        assert len(calls) <= 2 * k.bit_length()


def test_a_tiny_exact_delta_prints_its_significant_digits():
    import mpmath
    import sympy

    from exactdp import PermuteAndFlip, privacy_loss_distribution

    h = privacy_loss_distribution(PermuteAndFlip("1e-300"), [0, -1], [1, -2]).delta(0)
    # independent route: sympy's own evalf at many digits of the exact difference
    truth = h.value.evalf(30, maxn=2000, strict=True)
    assert abs(truth - sympy.Float("5e-301", 30)) < sympy.Float("1e-310")
    assert mpmath.almosteq(h.evalf(20), mpmath.mpf("5e-301"), 1e-15)
    # the short decimal 5.0e-301 is not the exact value: its offset is shown (at 700 digits
    # the difference 5e-301 - delta is 5.0e-601)
    gap = sympy.Float("5e-301", 700) - h.value.evalf(700, maxn=20000, strict=True)
    assert abs(gap / sympy.Float("5e-601", 700) - 1) < sympy.Float("1e-9")
    assert "delta=5.0e-301 - 5.0e-601 (rounded), " in repr(h) and "(exact)" not in repr(h)
    assert r"5.0 \times 10^{-301}" in h._repr_latex_()


def test_a_delta_ball_without_digits_prints_clipped_at_zero():
    import flint
    import sympy

    from exactdp.analysis.pld.results import HockeyStick

    h = HockeyStick(epsilon=sympy.Integer(0), ball=flint.arb(0, 1e-300),
                    algorithm="closed form", certified=True, caveat="", k=1)
    text = repr(h)
    # a bracket (no right digit), its upper end rounded outward: the ball's radius is the
    # float 1e-300 rounded up (arb's mag), so its end is above 1e-300 and prints above it
    assert "delta=[0, 1.00001e-300] (certified bracket)" in text, text
    assert "ball" not in text and h.upper >= Fraction(1e-300) and h.lower == 0


def test_wide_enclosures_print_as_brackets_with_ends_rounded_outward():
    """A ball with fewer than two right digits is a bracket, never "(certified ball)"; a
    grid's bounds and an epsilon's interval print their ends rounded outward (rounding to
    nearest printed 0.666667 for a lower end 2/3, above it)."""
    import flint
    import sympy

    from exactdp.analysis.pld.results import EpsilonResult, HockeyStick
    from exactdp.result import interval_ball

    def hockey(ball, algorithm="closed form"):
        return HockeyStick(epsilon=sympy.Integer(0), ball=ball, algorithm=algorithm,
                           certified=True, caveat="", k=1)

    wide = hockey(interval_ball(Fraction(2, 3), Fraction(3, 4)))
    # the union ball's upper end is a hair above 3/4 (arb rounds it up)
    assert repr(wide).startswith("HockeyStick(delta=[0.666666, 0.750001] (certified bracket), ")
    narrow = hockey(interval_ball(Fraction(2, 3), Fraction(2, 3) + Fraction(1, 10**9)))
    assert repr(narrow).startswith("HockeyStick(delta=0.666667 (certified ball), ")
    grid = hockey(interval_ball(Fraction(2, 3), Fraction(5, 6)), "grid")
    assert repr(grid).startswith(
        "HockeyStick(delta=[0.666666, 0.833334] (certified lattice bounds), ")
    eps = EpsilonResult(sympy.Rational(1, 10), Fraction(2, 3), Fraction(2, 3) + Fraction(
        1, 10**12), True, "")
    assert "in [0.6666666666, 0.6666666667]" in repr(eps), repr(eps)
    # the printed ends contain the exact ones (Fractions compared exactly)
    assert Fraction("0.666666") <= Fraction(2, 3) and Fraction(5, 6) <= Fraction("0.833334")
    assert isinstance(wide.ball, flint.arb)


def test_epsilon_result_shows_a_float_delta_in_decimals():
    import warnings
    from fractions import Fraction

    from exactdp import PermuteAndFlip, privacy_loss_distribution

    p = privacy_loss_distribution(PermuteAndFlip(1), [0, -1], [1, -2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = p.epsilon(1e-3)
    assert Fraction(1e-3) == Fraction(1152921504606847, 1152921504606846976)
    assert e.delta == Fraction(1e-3)  # kept exact
    text = repr(e)
    assert "delta=0.001," in text and "1152921504606847" not in text, text


def test_a_delta_near_one_prints_its_distance_to_one_never_a_rounded_exact_one():
    """PF(2) on [0, 0] vs [1, -1] composed 1000 times: delta(8) = 1 - 1.68e-63 (issue 35 item 8
    printed "delta=1.0 (exact)"); its summary shows decimals and the ball, not 349k characters."""
    import sympy

    from exactdp import PermuteAndFlip, privacy_loss_distribution

    h = privacy_loss_distribution(PermuteAndFlip(2), [0, 0], [1, -1]).self_compose(1000).delta(8)
    # independent route: sympy's own evalf of 1 - delta, to 20 digits
    gap = (1 - h.value).evalf(20, maxn=5000, strict=True)
    assert abs(gap / sympy.Float("1.67878e-63", 20) - 1) < sympy.Float("1e-5")
    text = repr(h)
    # beside algorithm='exact' the offset form says it is rounded (its 6 digits)
    assert text.startswith("HockeyStick(delta=1 - 1.67878e-63 (rounded), epsilon=8, k=1000"), text
    assert "1.0" not in text and "(exact)" not in text and len(text) <= 200
    short = h.summary()
    assert len(short) < 1000 and "1 - 1.67878e-63" in short and "certified ball" in short
    assert "summary(full=True)" in short
    full = h.summary(full=True)
    assert len(full) > 300_000 and "exp(-2000)" in full
