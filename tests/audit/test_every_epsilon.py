"""The every-epsilon column on DiPC's domain (exactdp/audit/every_epsilon.py).

Independent routes: DiPC's published verdicts and witnesses on its domain (``final.txt``:
SVT1 and SVT2 True; SVT4 fails at epsilon = 3/5, SVT6 at 67/92), the count of DiPC's pairs
(316 ordered pairs of {-1, 0, 1}^3 moving by at most 1: 158 unordered), and the same column
computed on an executor (the Dask route) and here.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import product

import pytest
import sympy

from exactdp.audit import every_epsilon as ee
from exactdp.exact.exp_poly_sign import Root


def _inside(iv, e) -> bool:
    lo = iv.lower.hi if isinstance(iv.lower, Root) else iv.lower
    hi = None if iv.upper is None else (iv.upper.lo if isinstance(iv.upper, Root) else iv.upper)
    return lo < e and (hi is None or e < hi)


def test_dipc_pairs_are_dipcs_316_ordered_pairs_once():
    vecs = list(product((-1, 0, 1), repeat=3))
    ordered = [(a, b) for a in vecs for b in vecs
               if a != b and all(abs(x - y) <= 1 for x, y in zip(a, b, strict=True))]
    assert len(ordered) == 316 and len(ee.dipc_pairs()) == 158
    assert {frozenset(p) for p in ordered} == {frozenset(p) for p in ee.dipc_pairs()}
    assert ee.dipc_pairs(1) == [((-1,), (0,)), ((0,), (1,))]


def test_every_epsilon_on_dipc_domain_agrees_with_dipc():
    """DiPC: SVT1 and SVT2 True; SVT4 False with witness 3/5; SVT6 False with 67/92."""
    one = ee.every_epsilon("svt1")
    assert one.status == "certified" and one.pairs == 158 and str(one) == "certified (158 pairs)"
    assert ee.every_epsilon("svt2").status == "certified"
    svt4, six = ee.every_epsilon("svt4"), ee.every_epsilon("svt6")
    assert svt4.status == "refuted" and svt4.failing_pairs > 0
    assert six.status == "refuted"
    for col, witness in ((svt4, sympy.Rational(3, 5)), (six, sympy.Rational(67, 92))):
        assert any(_inside(iv, witness) for iv in col.failing_epsilons), str(col)
    assert str(six).startswith("refuted for epsilon in (0, ")


def test_every_epsilon_on_an_executor_matches_the_cached_column():
    """The all-pairs sweep on a given executor (Dask: Client.get_executor()) gives the same
    column as the local run; each task is certify_pair on one pair."""
    with ThreadPoolExecutor(2) as pool:
        remote = ee.every_epsilon("svt4", executor=pool)
    local = ee.every_epsilon("svt4")
    assert (remote.status, remote.pairs, remote.failing_pairs) == (
        local.status, local.pairs, local.failing_pairs)
    holds, failing = ee.certify_pair("svt1", ((0, 0, 0), (1, 1, 1)))
    assert holds and failing == ()


def test_not_applicable_and_not_decided_say_why(monkeypatch):
    """DiPC's adjacency is the box: adjacency "one" and monotone programs are not
    applicable; programs releasing values have densities; a program outside certify_dp's
    forms is "not decided" with the reason. Discrete Laplace noise is certified: its
    probabilities are quotients of polynomials in x = exp(-epsilon/4) for every epsilon."""
    assert str(ee.every_epsilon("randomized_response")) == (
        "not applicable (adjacency 'one'; DiPC's adjacency is the box)")
    assert "monotonic adjacency" in str(ee.every_epsilon("svt_monotone"))
    release = ee.every_epsilon("laplace_mechanism")
    assert release.status == "not applicable" and "releases real values" in release.reason
    discrete = ee.every_epsilon("above_threshold_discrete")
    assert (discrete.status, discrete.pairs, discrete.failing_pairs) == ("certified", 158, 0)
    ee.every_epsilon_cache_clear()

    def outside(name, pair):
        raise ValueError("certify_dp: no form rational in x here")

    monkeypatch.setattr(ee, "certify_pair", outside)
    undecided = ee.every_epsilon("svt1")
    assert undecided.status == "not decided" and "no form rational" in undecided.reason
    ee.every_epsilon_cache_clear()
    assert ee.every_epsilon("randomized_response").status == "not applicable"


def test_every_epsilon_on_a_dask_cluster(capsys):
    """The Dask route end to end: ``exactdp suite --scheduler ADDRESS`` runs the column's
    158 pairs as tasks of a cluster and prints the local column."""
    dd = pytest.importorskip("dask.distributed")
    from exactdp.io.cli import main

    with dd.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                         dashboard_address=None) as cluster:
        assert main(["suite", "--programs", "svt4", "--scheduler", cluster.scheduler_address,
                     "--no-progress", "--format", "markdown"]) == 0
    row = capsys.readouterr().out.splitlines()[2].split(" | ")
    assert row[8] == str(ee.every_epsilon("svt4"))
