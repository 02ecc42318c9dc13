"""The every-epsilon column of the verification suite: :func:`exactdp.certify_dp` on every
pair of DiPC's domain ({-1, 0, 1}^3, answers moving by at most 1; Barthe et al., LICS 2020).

A proof on that domain only (every pair of it, every epsilon > 0); "not applicable" for
adjacency ``"one"``, monotonic programs (DiPC's adjacency is the box) and programs that
release real values (densities: ``certify_dp`` decides probabilities). With an executor
(``dask.distributed.Client(address).get_executor()``, as :func:`exactdp.sweep`) the pairs run
there, one task each.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from ..analysis import certify_dp
from ..analysis.certify_laplace import EpsilonInterval, union_intervals
from ..analysis.common import EPSILON
from ..result_text import cut_text
from .program_suite import build, setting

#: DiPC's domain: answers in {-1, 0, 1}, 3 queries (Barthe et al., LICS 2020).
DIPC_VALUES = (-1, 0, 1)
DIPC_QUERIES = 3


@dataclass(frozen=True)
class EveryEpsilon:
    """The every-epsilon column: :func:`exactdp.certify_dp` on every pair of DiPC's domain.

    Attributes
    ----------
    status : str
        ``"certified"`` (epsilon-DP for every epsilon > 0 on every pair), ``"refuted"``,
        ``"not applicable"`` (adjacency ``"one"`` or monotonic: DiPC's adjacency is the box),
        or ``"not decided"`` (``reason`` says why).
    pairs : int
        Unordered pairs certified (``certify_dp`` checks both directions): 158.
    failing_pairs : int
    failing_epsilons : tuple of EpsilonInterval
        Where the bound fails on some pair (their union).
    reason : str
    seconds : float
        CPU seconds of the column.
    """

    status: str
    pairs: int = 0
    failing_pairs: int = 0
    failing_epsilons: tuple[EpsilonInterval, ...] = ()
    reason: str = ""
    seconds: float = 0.0

    def __str__(self) -> str:
        if self.status == "refuted":
            where = " U ".join(str(i) for i in self.failing_epsilons)
            return f"refuted for epsilon in {where} ({self.failing_pairs}/{self.pairs} pairs)"
        if self.status == "certified":
            return f"certified ({self.pairs} pairs)"
        return f"{self.status} ({self.reason})" if self.reason else self.status


def dipc_pairs(n: int = DIPC_QUERIES) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The unordered pairs of distinct vectors of {-1, 0, 1}^n moving by at most 1 each
    (DiPC's 316 ordered pairs at n = 3, once each: 158)."""
    vecs = list(product(DIPC_VALUES, repeat=n))
    return [(a, b) for i, a in enumerate(vecs) for b in vecs[i + 1:]
            if all(abs(x - y) <= 1 for x, y in zip(a, b, strict=True))]


def certify_pair(name: str, pair: tuple) -> tuple[bool, tuple[EpsilonInterval, ...]]:
    """``certify_dp`` of program ``name`` (DiPC's parameters, symbolic epsilon) on one
    pair: whether it holds and where it fails (a module-level function: a Dask task)."""
    cert = certify_dp(build(name, EPSILON, dipc=True), *pair)
    return cert.holds, tuple(cert.failing_epsilons)


@lru_cache(maxsize=64)
def _every_epsilon_cached(name: str) -> EveryEpsilon:
    return _every_epsilon(name, None)


def every_epsilon_cache_clear() -> None:
    """Empty the every-epsilon column's cache (benchmarks time cold runs)."""
    _every_epsilon_cached.cache_clear()


def every_epsilon(name: str, executor: Executor | None = None) -> EveryEpsilon:
    """The every-epsilon column of program ``name`` on DiPC's domain (cached per program).

    Parameters
    ----------
    name : str
        A program of the library.
    executor : concurrent.futures.Executor, optional
        Where the pairs are certified, one task per pair: for a Dask cluster
        ``dask.distributed.Client(address).get_executor()`` (as :func:`exactdp.sweep`).
        None: here, and cached.

    Returns
    -------
    EveryEpsilon
    """
    if executor is None:
        return _every_epsilon_cached(name)
    return _every_epsilon(name, executor)


def _every_epsilon(name: str, executor: Executor | None) -> EveryEpsilon:
    start = time.process_time()
    mech = build(name)
    if mech.output_kind == "release":
        return EveryEpsilon("not applicable", reason="releases real values: densities, "
                            "not probabilities")
    if mech.adjacency != "all" or mech.monotonic:
        why = "adjacency 'one'" if mech.adjacency != "all" else "monotonic adjacency"
        return EveryEpsilon("not applicable", reason=f"{why}; DiPC's adjacency is the box")
    pairs = dipc_pairs(DIPC_QUERIES if len(setting(name).base or ()) != 1 else 1)
    try:
        if executor is None:
            results = [certify_pair(name, p) for p in pairs]
        else:
            results = list(executor.map(certify_pair, [name] * len(pairs), pairs))
    except ValueError as exc:  # outside certify_dp's forms, or the cost limit
        return EveryEpsilon("not decided", len(pairs), reason=cut_text(str(exc), 100),
                            seconds=time.process_time() - start)
    failing = [iv for ok, ivs in results if not ok for iv in ivs]
    bad = sum(not ok for ok, _ in results)
    return EveryEpsilon("refuted" if bad else "certified", len(pairs), bad,
                        _merged(failing), "", time.process_time() - start)


def _merged(intervals: list[EpsilonInterval]) -> tuple[EpsilonInterval, ...]:
    """The union of the failing intervals (merged where rational bounds prove overlaps;
    x-form ends that are not rational are kept apart, once each)."""
    try:
        return union_intervals(intervals)
    except TypeError:  # a closed-form end (2 log(3/2)) beside an isolated root
        return tuple(dict.fromkeys(intervals))
