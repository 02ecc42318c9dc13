"""Benchmark: sweep throughput of the dominance certificate at n = 5, gaps <= 4 (70 vectors).

Run: ``python benchmarks/bench_sweep.py``. Prints vectors per second for: the check in this
process (one thread), a local process pool with 1 and 2 workers, and a 2-worker local Dask
cluster (``dask[distributed]``, one thread per worker process). Each configuration runs the
whole family once after a warm-up of its workers; pool start-up is excluded, dispatch and
result collection are included.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from exactdp.audit.sweeps import sweep
from exactdp.proofs.checks import pf_dominates_em


def _run(label: str, executor) -> float:
    sweep(pf_dominates_em, 2, 1, executor=executor, progress=False)  # warm the workers
    res = sweep(pf_dominates_em, 5, 4, executor=executor, n_min=5, progress=False)
    assert res.holds and res.cases == 70
    print(f"  {label:<34} {res.per_second:7.1f} vectors/s  ({res.seconds:5.2f} s)")
    return res.per_second


def main() -> None:
    print(f"dominance certificate sweep, n = 5, gaps <= 4 (70 vectors); "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    with ThreadPoolExecutor(1) as pool:
        _run("in process (1 thread)", pool)
    with ProcessPoolExecutor(1) as pool:
        one = _run("local process pool, 1 worker", pool)
    with ProcessPoolExecutor(2) as pool:
        two = _run("local process pool, 2 workers", pool)
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("  dask not installed (pip install 'exactdp[dask]')")
        return
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        dask2 = _run("Dask LocalCluster, 2 workers", client.get_executor())
    print(f"  speed-up 2 vs 1 local workers: {two / one:.2f}x; Dask vs local 2: "
          f"{dask2 / two:.2f}x")


if __name__ == "__main__":
    main()
