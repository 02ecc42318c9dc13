"""The module paths that existed before the layout split still import, and re-export the same
objects as the new modules (thin shims, kept for code written against them)."""

import importlib

import pytest

OLD_TO_NEW = {
    "exactdp.analysis.privacy": {
        "privacy_loss": "exactdp.analysis.loss",
        "check_dp": "exactdp.analysis.check",
        "certify_dp": "exactdp.analysis.certify",
        "sup_privacy_loss": "exactdp.analysis.supremum",
        "neighbours": "exactdp.analysis.neighbourhood",
        "BallUndecided": "exactdp.analysis.engines.ball",
        "BALL_DPS": "exactdp.analysis.engines.ball",
        "exact_sign": "exactdp.analysis.common",
        "Witness": "exactdp.analysis.check",
        "DPCertificate": "exactdp.analysis.certify",
    },
    "exactdp.lp": {
        "lattice_lp": "exactdp.optimality.program",
        "pf_optimality_region": "exactdp.optimality.region",
        "lattice_size": "exactdp.optimality.lattice",
        "DualCertificate": "exactdp.optimality.exact_solve",
    },
    "exactdp.optimal": {
        "optimal_mechanism": "exactdp.mechanisms.optimal",
        "pf_polynomials": "exactdp.mechanisms.optimal",
        "section5_exact": "exactdp.mechanisms.optimal",
    },
    "exactdp.algebra": {
        "sign_on_unit_interval": "exactdp.exact.unit_interval",
        "to_arb": "exactdp.exact.poly",
        "xform_from_probabilities": "exactdp.exact.poly",
    },
    "exactdp.numeric.laplace": {
        "laplace_exact": "exactdp.numeric.laplace.closed_form",
        "laplace_mp": "exactdp.numeric.laplace.mp",
        "laplace_float": "exactdp.numeric.laplace.float64",
        "laplace_quad": "exactdp.numeric.laplace.quadrature",
    },
}


@pytest.mark.parametrize("old", sorted(OLD_TO_NEW))
def test_old_path_reexports_new_objects(old):
    mod = importlib.import_module(old)
    for name in mod.__all__:
        assert hasattr(mod, name), f"{old}.{name}"
    for name, new in OLD_TO_NEW[old].items():
        assert getattr(mod, name) is getattr(importlib.import_module(new), name)


def test_top_level_names_unchanged():
    import exactdp

    for name in exactdp.__all__:
        assert hasattr(exactdp, name), name
    assert exactdp.lattice_lp is importlib.import_module("exactdp.optimality").lattice_lp
