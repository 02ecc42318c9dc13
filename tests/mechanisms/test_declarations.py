"""exactdp/mechanisms/declarations.py: what a mechanism declares, and its defaults."""

from __future__ import annotations

from exactdp import PermuteAndFlip, ReportNoisyMax, SparseVector, mechanism_from_function
from exactdp.mechanisms.declarations import Declarations


def test_the_defaults_are_the_general_case():
    d = Declarations()
    assert (d.regular, d.adjacency, d.score_domain, d.domain) == (False, "all", "real", None)
    assert Declarations.regular_claimed is False
    assert d.check_cost("f", []) is None  # nothing to refuse by default


def test_mechanisms_declare_what_they_are():
    assert PermuteAndFlip(1).regular and not PermuteAndFlip(1).regular_claimed
    assert not ReportNoisyMax(1, noise="laplace", output="value").regular  # per instance
    assert not SparseVector(1, 1, variant=6).regular

    def em(q, epsilon):  # a user's function: undeclared, not regular; claimed when said
        return [1 / len(q)] * len(q)

    assert not mechanism_from_function(em, epsilon=1).regular
    claimed = mechanism_from_function(em, epsilon=1, regular=True)
    assert claimed.regular and claimed.regular_claimed
