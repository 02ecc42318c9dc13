"""analysis/pld/results.py: the helpers shared by the exact and the grid PLD."""

from __future__ import annotations

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
