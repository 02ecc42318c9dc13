"""Every-epsilon certificates on DiPC's input domain (issue 34, item 3).

Usage: ``PYTHONPATH=. python benchmarks/bench_every_epsilon.py [--program NAME ...]``.

DiPC's domain (Barthe et al., LICS 2020; ``vishalrjagan/DifferentialPrivacy``,
``Inputs/input_3_*.txt``): three query answers in {-1, 0, 1}, two inputs adjacent when every
answer moves by at most 1: 316 ordered pairs. Its programs: threshold 0, c = 1, epsilon
symbolic (SVT1: Lyu-Su-Li Algorithm 1, SVT2, SVT4, SVT6; report-noisy-max with Laplace noise of
scale 2/epsilon). For each program, ``certify_dp(mech, a, b)`` on every pair, cold (the
forms cache cleared first). Times are CPU seconds (``time.process_time``: one core, robust
to other load): the first pair alone (cold), the slowest pair of the sweep (its forms may be
cached), then the whole domain.
"""

from __future__ import annotations

import argparse
import itertools
import time

import sympy

from exactdp import ReportNoisyMax, SparseVector, certify_dp
from exactdp.analysis.certify_laplace import forms_cache_clear

EPS = sympy.Symbol("epsilon", positive=True)
PROGRAMS = {
    "SVT1": lambda: SparseVector(EPS, 0, 1, 1),
    "SVT2": lambda: SparseVector(EPS, 0, 1, 2),
    "SVT4": lambda: SparseVector(EPS, 0, 1, 4),
    "SVT6": lambda: SparseVector(EPS, 0, 1, 6),
    "RNM-Laplace": lambda: ReportNoisyMax(EPS, noise="laplace"),
}


def dipc_pairs(n: int = 3) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The ordered pairs of distinct vectors of {-1, 0, 1}^n moving by at most 1 each."""
    vecs = list(itertools.product((-1, 0, 1), repeat=n))
    return [(a, b) for a in vecs for b in vecs
            if a != b and all(abs(x - y) <= 1 for x, y in zip(a, b, strict=True))]


def run(name: str) -> None:
    mech = PROGRAMS[name]()
    pairs = dipc_pairs()
    forms_cache_clear()
    t0 = time.process_time()
    certify_dp(mech, *pairs[0])
    first = time.process_time() - t0
    forms_cache_clear()
    t0 = time.process_time()
    kinds: dict[str, int] = {}
    failing = 0
    slowest = 0.0
    for a, b in pairs:
        t1 = time.process_time()
        cert = certify_dp(mech, a, b)
        slowest = max(slowest, time.process_time() - t1)
        kinds[type(cert).__name__] = kinds.get(type(cert).__name__, 0) + 1
        failing += not cert.holds
    total = time.process_time() - t0
    print(f"{name:12s} first pair {first:6.3f} s, slowest {slowest:6.3f} s | {len(pairs)} pairs "
          f"{total:6.2f} s ({1000 * total / len(pairs):.1f} ms/pair) | failing pairs {failing} "
          f"| {kinds}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", nargs="*", default=list(PROGRAMS), choices=list(PROGRAMS))
    for name in parser.parse_args().program:
        run(name)


if __name__ == "__main__":
    main()
