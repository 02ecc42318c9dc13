"""Speed of the public API at every size, side by side in one run (issue 10).

Usage: ``python benchmarks/bench_speed.py [--quick] [--skip SECTION ...] [--json PATH]``.
Prints one table per section, each time with the ratio the issue's targets are stated in:

A. public float probabilities (PF, EM) at n = 10^6 for four input kinds, against a numpy
   softmax that includes the same input conversion (``numpy.asarray``);
B. exact permute-and-flip: the flint core (PF's coins, Poisson-binomial), the product tree,
   ``rational_form()``, its sympy ``forms`` and ``.probabilities``;
C. ``OptimalRegularMechanism``: exact (closed form by the product tree) against PF's exact route,
   float at n = 10^6 against PF's float route, and the section-5 recursion it replaces;
D. the exhaustive 3^6 - 1 neighbour search of ``check_dp`` for every mechanism with a
   closed form;
E. the guards: seconds until each guarded call refuses;
F. baselines: the McKenna-Sheldon O(n^2) alternating sum (float64) against ``pf_float``,
   and diffprivlib's and OpenDP's samplers against ``sample`` (where installed);
G. start-up: ``import exactdp`` and ``python -m exactdp --version`` in a child process,
   against ``python -c pass``.

Timings are CPU seconds (``time.process_time``; for a child process its own CPU, from
``getrusage(RUSAGE_CHILDREN)``), the least of a few runs (one cold run for the exact steps
that fill caches: B after the product tree, C's exact rows, D), so the load of other jobs on
a shared machine matters little. ``--quick`` keeps every row but runs the n = 200 rows of B
and C at n = 80 (the full ones take minutes) with fewer repeats. ``--json PATH`` also writes
every timing as ``{"rows": {key: {"s": seconds, "baseline": bool}}, "meta": {...}}``, the
input of ``benchmarks/bench_speed_rounds.py`` (before/after rounds); a baseline row times a
reference (numpy, a peer, the interpreter) rather than exactdp.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import warnings
from pathlib import Path

import numpy as np
import sympy
from _baselines import alternating_sum, softmax
from _timing import best_of, child_cpu, once

import exactdp
from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax

ROWS: dict[str, dict] = {}  # every timing of the run, written by --json


def rec(key: str, seconds: float, baseline: bool = False) -> float:
    """Record one timing under ``key`` (unique in the run) and return it."""
    if not math.isnan(seconds):
        ROWS[key] = {"s": seconds, "baseline": baseline}
    return seconds


def header(title: str) -> None:
    print(f"\n## {title}\n")


# ----------------------------------------------------------------------------- A
def section_a(repeat: int) -> None:
    header("A. public float probabilities, n = 10^6 (ratio to numpy softmax incl. asarray)")
    n = 10**6
    rng = np.random.default_rng(0)
    inputs = {
        "float64 array": rng.uniform(0, 40, n),
        "int64 array, 0..40": rng.integers(0, 41, n),
        "int64 array, 0..10^6": rng.integers(0, 10**6 + 1, n),
        "list of Python ints": rng.integers(0, 41, n).tolist(),
    }
    print("| input | softmax ms | PF ms | PF / softmax | EM ms | EM / softmax |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, q in inputs.items():
        ts = rec(f"A {label}: softmax",
                 best_of(lambda q=q: softmax(q, 0.5), repeat)[0], baseline=True)
        tp = rec(f"A {label}: PF to_numpy",
                 best_of(lambda q=q: PermuteAndFlip(1).distribution(q).to_numpy(), repeat)[0])
        te = rec(f"A {label}: EM to_numpy", best_of(
            lambda q=q: ExponentialMechanism(1).distribution(q).to_numpy(), repeat)[0])
        print(f"| {label} | {ts * 1e3:.1f} | {tp * 1e3:.1f} | {tp / ts:.2f} | "
              f"{te * 1e3:.1f} | {te / ts:.2f} |")


# ----------------------------------------------------------------------------- B
def _pf_core(G):
    from exactdp.mechanisms.permute_flip import pf_ring_probabilities
    from exactdp.xform import generators_for

    return pf_ring_probabilities(generators_for(G, None, sympy.Integer(1)))


def _clear_tree_cache() -> None:
    import exactdp.xform

    cache = getattr(exactdp.xform, "_cached_tree", None)  # None before the cache existed
    if cache is not None:
        cache.cache_clear()


def section_b(quick: bool, n200_forms: bool = False) -> None:
    from exactdp.xform import pf_polynomials_tree

    header("B. exact permute-and-flip (ratio to the flint core: PF's coins, Poisson-binomial)")
    print("| n | scores | distinct gaps | core s | tree s | rational_form() s | ratio | "
          "+ .forms s | .probabilities s | ratio |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    big = 80 if quick else 200  # the large row: no core, forms only on request
    for n, top in [(50, 100), (100, 10), (big, 100)]:
        q = np.random.default_rng(1).integers(0, top + 1, n).tolist()
        G = [max(q) - v for v in q]
        key = f"B n = {n}, 0..{top}:"
        # the core and the tree use no cache but the tree's (cleared): least of 3 cold runs;
        # the steps after it run once, cold (their caches would make a second run warm)
        tc = (rec(f"{key} flint core", best_of(lambda G=G: _pf_core(G), 3)[0])
              if n != big else math.nan)
        tt = rec(f"{key} product tree", best_of(
            lambda G=G: (_clear_tree_cache(), pf_polynomials_tree(G)), 1 if n == big else 3)[0])
        d = PermuteAndFlip(1).distribution(q)
        _clear_tree_cache()  # each step timed cold (the tree is cached per gap multiset)
        trf, rf = once(d.rational_form)
        rec(f"{key} rational_form()", trf)
        tf = tp = math.nan
        if n != big or n200_forms:
            tf = rec(f"{key} .forms", once(lambda rf=rf: rf.forms)[0])
            _clear_tree_cache()
            tp = rec(f"{key} .probabilities",
                     once(lambda q=q: PermuteAndFlip(1).distribution(q).probabilities)[0])
        print(f"| {n} | 0..{top} | {len(set(G))} | {tc:.2f} | {tt:.2f} | {trf:.2f} | "
              f"{trf / tc:.2f} | {tf:.2f} | {tp:.2f} | {tp / tc:.2f} |")


# ----------------------------------------------------------------------------- C
def section_c(repeat: int, quick: bool) -> None:
    header("C. OptimalRegularMechanism (exact: closed form by the product tree; float: PF's "
           "engine)")
    from exactdp import OptimalRegularMechanism

    def optimal(q):
        return OptimalRegularMechanism(1).distribution(q)

    rows: list[tuple[str, float, float | None]] = []
    q = list(range(0, -50, -1))  # n = 50, 50 distinct gaps
    rows.append(("exact, n = 50, 50 distinct gaps",
                 rec("C exact, n = 50: optimal rational_form()",
                     once(lambda: optimal(q).rational_form())[0]), None))
    big = 80 if quick else 200
    q = np.random.default_rng(1).integers(0, 101, big).tolist()
    _clear_tree_cache()
    t_opt = rec(f"C exact, n = {big}, 0..100: optimal rational_form()",
                once(lambda: optimal(q).rational_form())[0])
    _clear_tree_cache()
    t_pf = rec(f"C exact, n = {big}, 0..100: PF rational_form()",
               once(lambda: PermuteAndFlip(1).distribution(q).rational_form())[0])
    rows.append((f"exact, n = {big}, scores 0..100 (ratio to PF exact)", t_opt, t_opt / t_pf))
    qf = np.random.default_rng(2).uniform(0, 40, 10**6)
    t_opt = rec("C float, n = 10^6: optimal to_numpy",
                best_of(lambda: optimal(qf).to_numpy(), repeat)[0])
    t_pf = rec("C float, n = 10^6: PF to_numpy",
               best_of(lambda: PermuteAndFlip(1).distribution(qf).to_numpy(), repeat)[0])
    rows.append(("float, n = 10^6 (ratio to PF float)", t_opt, t_opt / t_pf))
    sizes = [10**4, 10**5, 10**6]
    ts = [rec(f"C float, n = {m}: optimal to_numpy",
              best_of(lambda m=m: optimal(qf[:m]).to_numpy(), repeat)[0])
          for m in sizes]
    slope = np.polyfit(np.log(sizes), np.log(ts), 1)[0]
    print("| task | s | ratio |")
    print("|---|---:|---:|")
    for label, t, r in rows:
        print(f"| {label} | {t:.3f} | {'' if r is None else f'{r:.2f}'} |")
    print(f"\nfitted scaling exponent of the float route, 10^4..10^6: {slope:.2f}")


# ----------------------------------------------------------------------------- D
def section_d() -> None:
    header("D. check_dp, exhaustive 3^6 - 1 = 728 neighbours of q = (0, -1, -2, 0, 3, 1)")
    from exactdp.analysis import check_dp

    q6 = [0, -1, -2, 0, 3, 1]
    tenth = sympy.Rational(1, 10)
    mechs = [
        ("PF", PermuteAndFlip(1)),
        ("EM", ExponentialMechanism(1)),
        ("RNM-exponential", ReportNoisyMax(1)),
        ("RNM-Gumbel", ReportNoisyMax(1, noise="gumbel")),
        ("RNM-Laplace (eps = 1/10)", ReportNoisyMax(tenth, noise="laplace")),
    ]
    print("| mechanism | s | holds | neighbours |")
    print("|---|---:|---|---:|")
    for label, m in mechs:
        t, res = once(lambda m=m: check_dp(m, q6, search="exhaustive"))
        rec(f"D check_dp exhaustive: {label}", t)
        print(f"| {label} | {t:.2f} | {res.holds} | {res.neighbours_checked} |")


# ----------------------------------------------------------------------------- E
def _guarded_calls():
    from exactdp.analysis.renyi import renyi_divergence

    P = PermuteAndFlip(2).distribution([0, 1, 2])
    Q = PermuteAndFlip(2).distribution([1, 0, 1])
    gauss = exactdp.GaussianNoisyMax(1).distribution(list(range(10)))
    calls = [
        ("sample(10**12)", lambda: P.sample(10**12, rng=0)),
        ("renyi_divergence(alpha=10**5000)", lambda: renyi_divergence(P, Q, 10**5000)),
        ("RNM-Gaussian evalf(2000), n = 10", lambda: gauss.evalf(2000)),
        ("PF rational_form, n = 3*10^4", lambda: PermuteAndFlip(1).distribution(
            [0] + [-g for g in range(1, 3001)] * 10).rational_form()),
        ("EM probabilities, n = 10^5 + 1", lambda: ExponentialMechanism(1).distribution(
            np.arange(10**5 + 1)).probabilities),
    ]
    extra = [
        ("OptimalRegularMechanism evalf_balls(10**9)",
         lambda: exactdp.OptimalRegularMechanism(1).distribution([0, 1]).evalf_balls(10**9)),
        ("check_dp exhaustive, n = 12", lambda: exactdp.check_dp(
            PermuteAndFlip(1), list(range(12)), search="exhaustive")),
        ("lattice_size(10**6, 10**6)", lambda: exactdp.lattice_size(10**6, 10**6)),
    ]
    return calls + extra


def section_e() -> None:
    header("E. guards: seconds until the refusal")
    print("| call | s | refused |")
    print("|---|---:|---|")
    for label, call in _guarded_calls():
        t, refused = once(lambda call=call: _refusal(call))
        if refused.startswith("yes") and t < 0.2:  # a quick refusal: least of 5 (stable)
            t = min(t, best_of(lambda call=call: _refusal(call), 4)[0])
        if refused.startswith("yes"):
            rec(f"E guard: {label}", t)
        print(f"| {label} | {t:.4f} | {refused} |")


def _refusal(call) -> str:
    """Run a guarded call; say whether (and how) it refused."""
    try:
        call()
    except ValueError as exc:
        return "yes: " + str(exc).split(";")[0][:70]
    except (AttributeError, TypeError) as exc:  # an API not present in this version
        return f"n/a ({type(exc).__name__})"
    return "no"


# ----------------------------------------------------------------------------- F
def section_f(repeat: int) -> None:
    from exactdp.numeric.pf import pf_float

    header("F. baselines")
    print("| task | baseline s | exactdp s | speed-up |")
    print("|---|---:|---:|---:|")
    rng = np.random.default_rng(3)
    for n in (1000, 10**4):
        d = rng.uniform(0, 5, n)
        d[0] = 0.0
        with np.errstate(all="ignore"):
            tb = rec(f"F alternating sum, n = {n}",
                     best_of(lambda d=d: alternating_sum(d), 1)[0], baseline=True)
        tp = rec(f"F pf_float, n = {n}", best_of(lambda d=d: pf_float(d), repeat)[0])
        print(f"| O(n^2) alternating sum vs pf_float, n = {n} | {tb:.4f} | {tp:.4f} | "
              f"{tb / tp:.0f} |")
    q = rng.integers(0, 20, 100).tolist()
    size = 10**4
    ours = {"EM": ExponentialMechanism(1).distribution(q),
            "PF": PermuteAndFlip(1).distribution(q)}
    peers = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from exactdp.audit.peers import diffprivlib_exponential, diffprivlib_permute_and_flip

            peers += [("diffprivlib Exponential", "EM", diffprivlib_exponential(q, 1)),
                      ("diffprivlib PermuteAndFlip", "PF", diffprivlib_permute_and_flip(q, 1))]
        except (ImportError, ValueError) as exc:
            print(f"(diffprivlib not measured: {exc})")
        try:
            from exactdp.audit.peers import opendp_noisy_max

            peers.append(("OpenDP make_noisy_max", "PF", opendp_noisy_max(q, 1)))
        except (ImportError, ValueError) as exc:
            print(f"(OpenDP not measured: {exc})")
        for label, key, adapter in peers:
            call = ((lambda s=adapter.sampler: s(size, rng=0)) if adapter.seedable
                    else (lambda s=adapter.sampler: s(size)))
            tb = rec(f"F {label}, {size} draws", once(call)[0], baseline=True)
            to = rec(f"F {key} sample(), {size} draws (vs {label})",
                     best_of(lambda key=key: ours[key].sample(size, rng=0), repeat)[0])
            print(f"| {label} vs sample(), {size} draws, n = 100 | {tb:.4f} | {to:.4f} | "
                  f"{tb / to:.1f} |")


# ----------------------------------------------------------------------------- G
def section_g(repeat: int) -> None:
    header("G. start-up in a child process (child CPU, least of the runs; python -P with "
           "PYTHONPATH at this exactdp)")
    root = str(Path(exactdp.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": root}
    commands = [
        ("python -c pass", ["-c", "pass"], True),
        ("python -c 'import exactdp'", ["-c", "import exactdp"], False),
        ("python -m exactdp --version", ["-m", "exactdp", "--version"], False),
    ]
    print("| command | CPU s | ratio to python -c pass |")
    print("|---|---:|---:|")
    base = math.nan
    for label, args, baseline in commands:
        runs = [child_cpu([sys.executable, "-P", *args], env=env, cwd=root)
                for _ in range(7)]
        failed = [r.stderr.strip().splitlines()[-1:] for _, r in runs if r.returncode]
        if failed:
            print(f"| {label} | failed: {failed[0]} | |")
            continue
        t = rec(f"G start-up: {label}", min(t for t, _ in runs), baseline=baseline)
        base = t if baseline else base
        print(f"| {label} | {t:.3f} | {t / base:.2f} |")


def write_json(path: str, argv: list[str]) -> None:
    """Write every recorded timing and what was run to ``path``."""
    meta = {"argv": argv, "exactdp_file": exactdp.__file__, "python": platform.python_version(),
            "numpy": np.__version__, "sympy": sympy.__version__,
            "load_end": os.getloadavg()[0], "cpu_s": time_used()}
    with open(path, "w") as fh:
        json.dump({"meta": meta, "rows": ROWS}, fh, indent=1)


def time_used() -> float:
    """CPU seconds of this process so far (user + system)."""
    usage = os.times()
    return usage.user + usage.system


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="fewer repeats; the n = 200 rows of B and C at n = 80")
    ap.add_argument("--n200-forms", action="store_true",
                    help="also build the sympy forms and probabilities at n = 200 (minutes)")
    ap.add_argument("--skip", nargs="*", default=[], choices=list("ABCDEFG"),
                    help="sections to skip")
    ap.add_argument("--json", metavar="PATH", help="also write every timing to PATH (JSON)")
    args = ap.parse_args(argv)
    repeat = 2 if args.quick else 3
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, numpy {np.__version__}, sympy "
          f"{sympy.__version__}, exactdp {exactdp.__version__}; load average {load:.1f}")
    sections = {
        "A": lambda: section_a(repeat),
        "B": lambda: section_b(args.quick, args.n200_forms),
        "C": lambda: section_c(repeat, args.quick),
        "D": section_d,
        "E": section_e,
        "F": lambda: section_f(repeat),
        "G": lambda: section_g(repeat),
    }
    for key, run in sections.items():
        if key not in args.skip:
            run()
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}; CPU of this run "
          f"{time_used():.1f} s")
    if args.json:
        write_json(args.json, sys.argv[1:] if argv is None else list(argv))


if __name__ == "__main__":
    main()
