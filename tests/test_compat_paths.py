"""The module paths that existed before the layout split still import, and re-export the same
objects as the new modules (thin shims, kept for code written against them)."""

import importlib
import warnings

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
    "exactdp.numeric.pf_engine": {  # forwarded silently (public path)
        "em_float": "exactdp.numeric.pf.float64",
        "pf_float": "exactdp.numeric.pf.float64",
        "em_mp": "exactdp.numeric.pf.mp",
        "pf_mp": "exactdp.numeric.pf.mp",
        "pf_arb": "exactdp.numeric.pf.arb",
    },
}


#: ``__all__`` of each old single module before it became a forwarding shim: every name stays.
OLD_ALL = {
    "exactdp.lp": [
        "DualCertificate", "HIGHS_TOLERANCE", "LatticeLPResult", "MAX_EXACT_VARIABLES",
        "MAX_FLOAT_SIZE", "PFOptimalityRegion", "RegionBoundary", "VIOLATION_TOLERANCE",
        "lattice_lp", "lattice_size", "pf_optimality_region",
    ],
    "exactdp.optimal": [
        "METHODS", "OptimalDistribution", "OptimalRegularMechanism", "optimal_mechanism",
        "pf_polynomials", "section5_exact",
    ],
    "exactdp.algebra": [
        "UnitIntervalSign", "Y", "as_fmpq_poly", "descartes_bound", "fmpq_poly_to_sympy",
        "is_nonnegative_on_unit_interval", "sign_at", "sign_on_unit_interval", "to_arb",
        "verify_sign_analysis", "xform_from_probabilities",
    ],
    "exactdp.analysis.privacy": [
        "BALL_DPS", "BallUndecided", "ConditionCertificate", "DPCertificate", "DPCheck",
        "EPSILON", "EXHAUSTIVE_MAX_N", "PrivacyLoss", "SupremumResult", "Witness", "Y",
        "certify_dp", "check_dp", "exact_sign", "neighbours", "privacy_loss",
        "sup_privacy_loss", "symbolic_probabilities",
    ],
}

#: Former private names of the single modules -> (new module, new name).
OLD_PRIVATE = {
    "exactdp.lp": {"_lattice": ("exactdp.optimality.lattice", "build_lattice"),
                   "_pf_dual_polys": ("exactdp.optimality.lattice", "pf_dual_polys")},
    "exactdp.analysis.privacy": {"_sv": ("exactdp.analysis.common", "score_vector"),
                                 "_intervals": ("exactdp.analysis.certify", "set_intervals"),
                                 "_BallEngine": ("exactdp.analysis.engines.ball", "BallEngine")},
}


@pytest.mark.parametrize("old", sorted(OLD_TO_NEW))
def test_old_path_reexports_new_objects(old):
    mod = importlib.import_module(old)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for name in mod.__all__:
            assert hasattr(mod, name), f"{old}.{name}"
        for name, new in OLD_TO_NEW[old].items():
            assert getattr(mod, name) is getattr(importlib.import_module(new), name)
        for name, (new, new_name) in OLD_PRIVATE.get(old, {}).items():
            assert getattr(mod, name) is getattr(importlib.import_module(new), new_name)


@pytest.mark.parametrize("old", sorted(OLD_ALL))
def test_deprecated_paths_keep_every_name_and_warn(old):
    mod = importlib.import_module(old)
    assert set(OLD_ALL[old]) <= set(mod.__all__) <= set(dir(mod))
    for name in OLD_ALL[old]:
        with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} is deprecated; use exactdp\."):
            getattr(mod, name)
    with pytest.raises(AttributeError, match="no_such_name"):
        mod.no_such_name  # noqa: B018
    with pytest.raises(AttributeError):
        mod._no_such_private  # noqa: B018


def test_from_import_of_a_deprecated_path():
    with pytest.warns(DeprecationWarning, match="use exactdp.optimality.lattice_lp"):
        from exactdp.lp import lattice_lp
    from exactdp.optimality import lattice_lp as new

    assert lattice_lp is new
    with pytest.warns(DeprecationWarning, match="use exactdp.mechanisms.optimal.pf_polynomials"):
        from exactdp.optimal import pf_polynomials
    # the forwarded function computes: PF with gaps (0, 1) is (1 - x/2, x/2)
    assert [str(p.as_expr()) for p in pf_polynomials([0, 1])] == ["1 - x/2", "x/2"]


@pytest.mark.parametrize("path", ["exactdp.latex", "exactdp.report", "exactdp.cli"])
def test_public_io_paths_forward_silently(path):
    mod = importlib.import_module(path)
    new = importlib.import_module(path.replace("exactdp.", "exactdp.io."))
    assert mod.__all__ == list(new.__all__) and set(new.__all__) <= set(dir(mod))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in new.__all__:
            assert getattr(mod, name) is getattr(new, name)
        from exactdp.latex import probability_table  # the contract of issue 9
    assert probability_table is importlib.import_module("exactdp.io.latex").probability_table
    namespace: dict = {}
    exec(f"from {path} import *", namespace)  # noqa: S102
    assert set(new.__all__) <= set(namespace)


def test_top_level_names_unchanged():
    import exactdp

    for name in exactdp.__all__:
        assert hasattr(exactdp, name), name
    assert exactdp.lattice_lp is importlib.import_module("exactdp.optimality").lattice_lp
