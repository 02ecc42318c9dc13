"""Audit of the peers' samplers (diffprivlib, OpenDP) against exactdp's exact distributions.

Skipped, with the reason, when the optional extra ``peers`` is not importable. diffprivlib
is seeded (deterministic audits). OpenDP draws from the OS CSPRNG and cannot be seeded, so
its correct samplers are asserted at alpha = 1e-6 (a false alarm once in a million runs per
test), and the deliberately wrong ones must reach p < 1e-6 at the same sample size (their
p-values are about 1e-97 or smaller, see docs/peers.md).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

import exactdp
from exactdp.audit import goodness_of_fit, peers

pytestmark = pytest.mark.peers

N = 20_000


def _importable(name: str) -> str | None:
    try:
        if name == "diffprivlib":
            peers._import_diffprivlib()
        else:
            peers._import_opendp()
    except ImportError as exc:
        return str(exc)
    return None


_DPL = _importable("diffprivlib")
_ODP = _importable("opendp")
need_diffprivlib = pytest.mark.skipif(_DPL is not None, reason=f"peers extra: {_DPL}")
need_opendp = pytest.mark.skipif(_ODP is not None, reason=f"peers extra: {_ODP}")

# name -> (scores, epsilon, sensitivity, monotone)
CASES = {
    "known": ([3, 1, 0, 0, -2], 2, 1, False),  # docs/formulas.md section 7
    "ties": ([1, 1, 0, -1, -1, -1], 1, 1, False),
    "monotone": ([4, 4, 2, 0], 1, 1, True),
    "sens2-rational": ([Fraction(1, 2), 0, Fraction(-3, 2), Fraction(9, 4)], "3/2", 2, False),
    "tiny": ([0, -1, -2, -40], 1, 1, False),
}


def exact_vector(dist) -> list[float]:
    return [float(sympy.N(p, 30)) for p in dist.probabilities]


# ---------------------------------------------------------------------------- diffprivlib


@need_diffprivlib
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize(
    "make", [peers.diffprivlib_exponential, peers.diffprivlib_permute_and_flip]
)
def test_diffprivlib_matches_exact(make, case):
    scores, eps, sens, mono = CASES[case]
    adapter = make(scores, eps, sens, mono)
    assert adapter.seedable and adapter.peer == "diffprivlib"
    expected_cls = (
        exactdp.ExponentialMechanism
        if make is peers.diffprivlib_exponential
        else exactdp.PermuteAndFlip
    )
    assert type(adapter.reference) is expected_cls
    assert adapter.reference.monotonic is mono
    assert adapter.peer_parameters["monotonic"] is mono
    probs = exact_vector(adapter.distribution())
    res = goodness_of_fit(adapter.sampler, probs, N, rng=1000 + len(case), alpha=1e-4)
    assert res.verdict == "consistent", res.summary()


@need_diffprivlib
def test_diffprivlib_seed_reproducible():
    a = peers.diffprivlib_permute_and_flip([1, 0, 0], 1)
    assert np.array_equal(a.sampler(200, rng=5), a.sampler(200, rng=5))
    assert not np.array_equal(a.sampler(200, rng=5), a.sampler(200, rng=6))


@need_diffprivlib
def test_diffprivlib_monotonic_misused_is_rejected():
    """Wrong on purpose: monotonic=True on a non-monotone score doubles EM's exponent."""
    q = [3, 1, 0, 0, -2]
    wrong = peers.diffprivlib_exponential(q, 2, monotonic=True).against(
        exactdp.ExponentialMechanism(2), "monotonic=True audited as the general EM"
    )
    assert wrong.wrong_on_purpose
    res = wrong.audit(N, rng=3)
    assert res.verdict == "rejected" and res.p_value < 1e-6


@need_diffprivlib
def test_diffprivlib_pf_is_not_em():
    q = [3, 1, 0, 0, -2]
    wrong = peers.diffprivlib_permute_and_flip(q, 2).against(
        exactdp.ExponentialMechanism(2), "PF audited as EM"
    )
    res = wrong.audit(N, rng=4)
    assert res.verdict == "rejected" and res.p_value < 1e-6


# ---------------------------------------------------------------------------- OpenDP


@need_opendp
@pytest.mark.parametrize("case", ["known", "ties", "monotone", "sens2-rational", "tiny"])
@pytest.mark.parametrize("measure", ["max_divergence", "zero_concentrated_divergence"])
def test_opendp_matches_exact(measure, case):
    scores, eps, sens, mono = CASES[case]
    adapter = peers.opendp_noisy_max(scores, eps, sens, mono, measure=measure)
    assert not adapter.seedable
    # the peer's own privacy map agrees with the mapping: eps, or rho = eps^2/8
    assert adapter.peer_privacy == pytest.approx(adapter.expected_privacy, rel=1e-12)
    c = 1 if mono else 2
    assert adapter.peer_parameters["scale"] == pytest.approx(
        c * float(sympy.Rational(str(sens))) / float(sympy.Rational(str(eps))), rel=1e-15
    )
    ref = exactdp.PermuteAndFlip if measure == "max_divergence" else exactdp.ExponentialMechanism
    assert type(adapter.reference) is ref
    probs = exact_vector(adapter.distribution())
    res = goodness_of_fit(adapter.sampler, probs, N // 2, alpha=1e-6)
    assert res.verdict == "consistent", res.summary()


@need_opendp
def test_opendp_max_divergence_is_not_em():
    """Wrong on purpose: OpenDP's max-divergence noisy max (PF) audited as EM."""
    q = [3, 1, 0, 0, -2]
    wrong = peers.opendp_noisy_max(q, 2).against(
        exactdp.ExponentialMechanism(2), "PF audited as EM"
    )
    res = wrong.audit(N // 2)
    assert res.verdict == "rejected" and res.p_value < 1e-6


@need_opendp
def test_opendp_zcdp_privacy_map_is_bounded_range():
    a = peers.opendp_noisy_max([1, 0], 1, measure="zcdp")
    assert a.peer_privacy == pytest.approx(1 / 8)
    m = peers.opendp_noisy_max([1, 0], 1, monotonic=True, measure="zcdp")
    assert m.peer_privacy == pytest.approx(1 / 8)  # scale halves, map stays eps^2/8
    assert m.peer_parameters["scale"] == pytest.approx(1.0)


# ---------------------------------------------------------------------------- OpenDP top-k


@need_opendp
@pytest.mark.parametrize("measure, negate", [("max_divergence", True), ("zcdp", False)])
def test_opendp_top_k_matches_exact(measure, negate):
    """make_noisy_top_k against TopK(PF) (max divergence: peeling PF) and TopK(EM) (zCDP:
    Gumbel noise = peeling EM); negate=True is optimize="min"."""
    adapter = peers.opendp_noisy_top_k([0, -1, -2, -2, 1], "3/2", 2, measure=measure,
                                       negate=negate)
    inner = adapter.reference.mechanism
    assert type(inner) is (exactdp.PermuteAndFlip if measure == "max_divergence"
                           else exactdp.ExponentialMechanism)
    assert inner.optimize == ("min" if negate else "max")
    res = adapter.audit(N // 2, alpha=1e-6)
    assert res.verdict == "consistent", res.summary()


@need_opendp
@pytest.mark.parametrize("monotone", [False, True])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_opendp_top_k_privacy_maps(k, monotone):
    """OpenDP's maps: k * eps (max divergence) and k * eps^2 / 8 (zCDP), eps = c Delta / scale."""
    for measure in ("max_divergence", "zcdp"):
        a = peers.opendp_noisy_top_k([0, 1, 2, 3], 1, k, monotonic=monotone, measure=measure)
        assert a.peer_privacy == pytest.approx(a.expected_privacy, rel=1e-12)
        assert a.expected_privacy == pytest.approx(k if measure == "max_divergence" else k / 8)


@need_opendp
def test_opendp_top_k_is_not_peeling_em():
    """Wrong on purpose: OpenDP's max-divergence top-k (peeling PF) audited as peeling EM."""
    wrong = peers.opendp_noisy_top_k([0, -1, -2, -2], 1, 2).against(
        exactdp.TopK(exactdp.ExponentialMechanism(1), 2), "peeling PF audited as peeling EM")
    res = wrong.audit(N // 4)
    assert res.verdict == "rejected" and res.p_value < 1e-6


# ---------------------------------------------------------------------------- bad input


@need_opendp
def test_opendp_bad_measure():
    with pytest.raises(ValueError, match="measure"):
        peers.opendp_noisy_max([1, 0], 1, measure="renyi")


@need_diffprivlib
def test_bad_monotone_and_epsilon():
    with pytest.raises(ValueError, match="monotonic"):
        peers.diffprivlib_exponential([1, 0], 1, monotonic="yes")
    with pytest.raises(ValueError, match="epsilon"):
        peers.diffprivlib_permute_and_flip([1, 0], -1)
    with pytest.raises(ValueError, match="number"):
        peers.diffprivlib_exponential([1, 0], sympy.Symbol("e", positive=True))
    with pytest.raises(ValueError, match="Mechanism"):
        peers.diffprivlib_exponential([1, 0], 1).against("EM", "x")


def test_peer_versions_reports_both():
    v = peers.peer_versions()
    assert set(v) == {"diffprivlib", "opendp"}
