"""exactdp.sweep: enumeration, failures, executors (thread, process, Dask)."""

from __future__ import annotations

import concurrent.futures
import itertools
import math
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from functools import partial

import pytest

import exactdp
from exactdp import sweep
from exactdp.audit import SweepResult
from exactdp.audit.sweeps import count_score_vectors, score_vectors
from exactdp.proofs.checks import error_ratio_at_most, pf_dominates_em


def brute_force_family(n_max, gap_max):
    """Independent route: all integer vectors in [-gap_max, 0]^n with max 0, up to order."""
    out = set()
    for n in range(2, n_max + 1):
        for q in itertools.product(range(-gap_max, 1), repeat=n):
            if max(q) == 0:
                out.add(tuple(sorted(q, reverse=True)))
    return out


@pytest.mark.parametrize("n_max, gap_max", [(2, 0), (3, 2), (5, 4), (6, 3)])
def test_family_is_every_vector_once_up_to_shift_and_permutation(n_max, gap_max):
    vecs = list(score_vectors(n_max, gap_max))
    assert len(vecs) == len(set(vecs)) == count_score_vectors(n_max, gap_max)
    assert set(vecs) == brute_force_family(n_max, gap_max)


def test_seventy_vectors_at_n5_gaps4():
    assert count_score_vectors(5, 4, n_min=5) == 70 == math.comb(8, 4)


def negative_sum_below(bound, q):
    if sum(q) == -5:
        raise ArithmeticError("planted")
    return sum(q) > bound


def test_failures_name_the_vectors_and_the_reason():
    with ThreadPoolExecutor(2) as pool:
        res = sweep(partial(negative_sum_below, -4), 3, 3, executor=pool, progress=False)
    assert isinstance(res, SweepResult)
    expected = [q for q in score_vectors(3, 3) if sum(q) <= -4]
    assert [q for q, _ in res.failures] == expected
    details = dict(res.failures)
    assert details[(0, -2, -3)] == "raised ArithmeticError: planted"
    assert details[(0, -1, -3)] == "returned False"
    assert not res.holds and res.cases == count_score_vectors(3, 3)
    assert res.per_second > 0


def test_default_process_pool_matches_threads():
    check = partial(error_ratio_at_most, "19/10")  # false: the ratio tends to 2
    local = sweep(check, 3, 3, progress=False)
    with ThreadPoolExecutor(1) as pool:
        threads = sweep(check, 3, 3, executor=pool, progress=False, batch_size=4)
    assert local.failures == threads.failures and not local.holds
    assert (0, -3) in [q for q, _ in local.failures]
    with ProcessPoolExecutor(1) as pool:
        assert sweep(partial(error_ratio_at_most, 2), 3, 2, executor=pool).holds


@pytest.mark.parametrize("bad", [
    dict(check=None, n_max=3, gap_max=2), dict(check=max, n_max=1, gap_max=2),
    dict(check=max, n_max=3, gap_max=-1), dict(check=max, n_max=3.0, gap_max=2),
    dict(check=max, n_max=3, gap_max=2, batch_size=0),
])
def test_bad_arguments(bad):
    check = bad.pop("check")
    with pytest.raises(ValueError, match="sweep|score_vectors"):
        sweep(check, **bad, progress=False)


def test_dask_local_cluster_gives_the_local_result():
    distributed = pytest.importorskip("distributed")  # the 'dask' extra, installed in CI
    false_check = partial(error_ratio_at_most, "19/10")
    with ThreadPoolExecutor(1) as pool:
        local = [sweep(c, 4, 2, executor=pool, progress=False)
                 for c in (pf_dominates_em, false_check)]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = [sweep(c, 4, 2, executor=client.get_executor(), progress=False)
                  for c in (pf_dominates_em, false_check)]
    for a, b in zip(local, remote, strict=True):
        assert (a.cases, a.failures, a.holds) == (b.cases, b.failures, b.holds)
    assert remote[0].holds and remote[0].cases == count_score_vectors(4, 2) == 19
    assert not remote[1].holds


def _string_check(q):
    return "no"


def _true(q):
    return True


def test_sweep_counts_a_non_bool_result_as_a_failure():
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        res = exactdp.sweep(_string_check, 2, 1, executor=pool, progress=False)
    assert res.cases == 2 and not res.holds
    assert all("not a bool" in detail for _, detail in res.failures)


def test_sweep_refuses_huge_families_and_unpicklable_checks():
    with pytest.raises(ValueError, match="more than"):
        exactdp.sweep(_true, 10**6, 10**6)
    with pytest.raises(ValueError, match="picklable"):
        exactdp.sweep(lambda q: True, 2, 1)
    # the early stop never undercounts a family below the limit: C(8, 4) = 70 at n = 5
    assert count_score_vectors(5, 4, n_min=5, stop=10**7) == 70


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        ((0, 1), {}, r"^sweep: n_max must be an integer >= 2, got 0$"),
        ((2, -1), {}, r"^sweep: gap_max must be a non-negative integer, got -1$"),
        ((2, 1), {"n_min": 0}, r"^sweep: n_min must be a positive integer, got 0$"),
    ],
)
def test_sweep_size_errors_name_sweep(args, kwargs, match):
    """sweep's own name, not its helper count_score_vectors, heads the message."""
    with pytest.raises(ValueError, match=match):
        sweep(max, *args, progress=False, **kwargs)
    with pytest.raises(ValueError, match=r"^count_score_vectors: "):
        count_score_vectors(*args, **kwargs)
