"""Close to the floor (issue 21): every target as a ratio to a baseline measured in the same run.

Usage: ``python benchmarks/bench_floor.py [--quick] [--only A B ...]``. Sections:

A. float PF / EM ``to_numpy()`` at n = 10^7 (float64 and int64 0..40 input) and n = 10^3
   against numpy's softmax (incl. ``asarray``), and the peak memory (``tracemalloc``) in
   arrays of length n beyond the input;
B. ``.sample(size)`` (the default ``algorithm="pmf"``) against ``rng.choice`` on the same
   probabilities, size 10^4 and 10^6, for every mechanism with a known distribution;
C. start-up: ``import exactdp``, ``python -m exactdp --version`` and ``--help`` against
   ``import numpy, sympy, mpmath, flint`` and ``import numpy, sympy`` (fresh interpreters),
   plus the modules ``import exactdp`` loads that it should not (``python -X importtime``);
D. composition counting: the two-atom pair's exact k = 10^5 self-composition against
   ``scipy.stats.binom.pmf`` over 0..k, and the three-atom pair at k = 10^3.

Contenders are interleaved (A, B, A, B, ...) and the medians compared, because the
machine is shared; absolute times vary with the load, the ratios much less.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc

import numpy as np
from _baselines import softmax

import exactdp
from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax


def interleaved(fns: dict, repeat: int) -> dict:
    """Median seconds of each callable, the contenders run in turn ``repeat`` times."""
    times: dict = {k: [] for k in fns}
    for f in fns.values():
        f()  # warm
    for _ in range(repeat):
        for k, f in fns.items():
            start = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def peak_arrays(fn, n: int) -> float:
    """Peak traced memory of ``fn()`` in units of float64 arrays of length n."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del out
    return (peak - base) / (8 * n)


def header(title: str) -> None:
    print(f"\n## {title}\n")


# ----------------------------------------------------------------------------- A
def section_a(repeat: int, sizes: tuple[int, ...] = (10**7, 10**3)) -> None:
    header("A. float views against numpy softmax (median of interleaved runs)")
    rng = np.random.default_rng(0)
    print("| n | input | softmax ms | PF ms | PF / softmax | EM ms | EM / softmax | "
          "PF peak (arrays) | EM peak (arrays) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        inputs = {"float64": rng.uniform(0, 40, n), "int64 0..40": rng.integers(0, 41, n)}
        reps = repeat if n > 10**5 else 50 * repeat
        for label, q in inputs.items():
            fns = {
                "softmax": lambda q=q: softmax(q, 0.5),
                "PF": lambda q=q: PermuteAndFlip(1).distribution(q).to_numpy(),
                "EM": lambda q=q: ExponentialMechanism(1).distribution(q).to_numpy(),
            }
            t = interleaved(fns, reps)
            mem = {k: peak_arrays(fns[k], n) for k in ("PF", "EM")}
            print(f"| {n:.0e} | {label} | {t['softmax'] * 1e3:.2f} | {t['PF'] * 1e3:.2f} | "
                  f"{t['PF'] / t['softmax']:.2f} | {t['EM'] * 1e3:.2f} | "
                  f"{t['EM'] / t['softmax']:.2f} | {mem['PF']:.2f} | {mem['EM']:.2f} |")
    print("\nTargets: n = 1e7 PF <= 3, EM <= 1.5, peak <= 3 arrays; n = 1e3 <= 3.")


# ----------------------------------------------------------------------------- B
def section_b(repeat: int) -> None:
    header("B. sample(size) against rng.choice on the same probabilities")
    q = np.random.default_rng(1).integers(0, 30, 100)
    mechanisms = {
        "PF": PermuteAndFlip(1),
        "EM": ExponentialMechanism(1),
        "RNM-exponential": ReportNoisyMax(1, noise="exponential"),
        "RNM-Gumbel": ReportNoisyMax(1, noise="gumbel"),
        "RNM-Laplace": ReportNoisyMax(1, noise="laplace"),
    }
    print("| mechanism | size | rng.choice ms | sample ms | ratio | "
          "sample(algorithm='mechanism') ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, mech in mechanisms.items():
        try:
            dist = mech.distribution(q)
            p = dist.to_numpy()
        except (ValueError, TypeError) as exc:
            print(f"| {label} | - | - | - | - | ({exc}) |")
            continue
        for size in (10**4, 10**6):
            fns = {
                "choice": lambda s=size, p=p: np.random.default_rng(0).choice(p.size, s, p=p),
                "sample": lambda s=size, d=dist: d.sample(s, rng=0),
            }
            t = interleaved(fns, repeat)
            lit = "-"
            if size == 10**4:
                start = time.perf_counter()
                dist.sample(size, rng=0, algorithm="mechanism")
                lit = f"{(time.perf_counter() - start) * 1e3:.1f}"
            print(f"| {label} | {size:.0e} | {t['choice'] * 1e3:.2f} | "
                  f"{t['sample'] * 1e3:.2f} | {t['sample'] / t['choice']:.2f} | {lit} |")
    print("\nTarget: ratio <= 2 for size >= 1e4 (a fresh distribution each call would add "
          "the float view once).")


# ----------------------------------------------------------------------------- C
def _run(code: list[str]) -> float:
    start = time.perf_counter()
    # run beside the exactdp being timed: ``-c`` puts the working directory first on the path
    subprocess.run([sys.executable, *code], check=True, capture_output=True,
                   cwd=os.path.dirname(os.path.dirname(exactdp.__file__)),
                   env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return time.perf_counter() - start


def section_c(repeat: int) -> None:
    header("C. start-up (fresh interpreters, median of interleaved runs)")
    fns = {
        "pass": lambda: _run(["-c", "pass"]),
        "deps": lambda: _run(["-c", "import numpy, sympy, mpmath, flint"]),
        "numpy+sympy": lambda: _run(["-c", "import numpy, sympy"]),
        "import exactdp": lambda: _run(["-c", "import exactdp"]),
        "first use PF": lambda: _run(["-c", "from exactdp import PermuteAndFlip"]),
        "first use check_dp": lambda: _run(["-c", "from exactdp import check_dp"]),
        "--version": lambda: _run(["-m", "exactdp", "--version"]),
        "--help": lambda: _run(["-m", "exactdp", "--help"]),
    }
    times: dict = {k: [] for k in fns}
    for _ in range(repeat):
        for k, f in fns.items():
            times[k].append(f())
    t = {k: statistics.median(v) for k, v in times.items()}
    print("| command | ms | / `python -c pass` | ratio | baseline | target |")
    print("|---|---:|---:|---:|---|---|")

    def row(label: str, key: str, base: str = "", base_label: str = "", target: str = "") -> None:
        ratio = f"{t[key] / t[base]:.2f}" if base else ""
        print(f"| {label} | {t[key] * 1e3:.0f} | {t[key] / t['pass']:.1f} | {ratio} | "
              f"{base_label} | {target} |")

    row("`python -c pass`", "pass")
    row("`import numpy, sympy, mpmath, flint`", "deps")
    row("`import numpy, sympy`", "numpy+sympy")
    row("`import exactdp`", "import exactdp", "deps", "the four dependencies", "<= 1.5")
    row("`from exactdp import PermuteAndFlip`", "first use PF", "deps", "the four dependencies",
        "(first use)")
    row("`from exactdp import check_dp`", "first use check_dp", "deps",
        "the four dependencies", "(first use)")
    for k in ("--version", "--help"):
        row(f"`python -m exactdp {k}`", k, "numpy+sympy", "numpy + sympy", "<= 2")
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import exactdp"],
                         capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(exactdp.__file__))).stderr
    heavy = ("scipy", "matplotlib", "tqdm", "dask", "exactdp.cli", "exactdp.io")
    rows = []
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        name = parts[2].strip()
        if name.startswith(heavy) and "." not in name.replace("exactdp.", "", 1):
            rows.append((int(parts[1]), name))
    print("\n`python -X importtime -c 'import exactdp'`: top-level heavy packages loaded: "
          + (", ".join(f"{name} ({us / 1e3:.0f} ms cumulative)" for us, name in rows)
             or "none"))


# ----------------------------------------------------------------------------- D
def _math_comb_terms(k: int, m: int) -> dict:
    """The counts as before issue 21's change: one ``math.comb`` per part of every term
    (the baseline of the three-atom target, reconstructed)."""
    import math

    def compositions(left: int, parts: int):
        if parts == 1:
            yield (left,)
            return
        for first in range(left, -1, -1):
            for rest in compositions(left - first, parts - 1):
                yield (first, *rest)

    out = {}
    for c in compositions(k, m):
        coef, left = 1, k
        for x in c:
            coef, left = coef * math.comb(left, x), left - x
        out[c] = coef
    return out


def section_d(repeat: int) -> None:
    header("D. composition counting")
    import scipy.stats

    from exactdp.analysis.pld import core

    k = 10**5
    fns = {
        "binom.pmf": lambda: scipy.stats.binom.pmf(np.arange(k + 1), k, 0.3),
        "two-atom counts": lambda: core._multinomial_terms(k, 2),
    }
    t = interleaved(fns, max(1, repeat // 3))
    print(f"two atoms, k = 1e5: binom.pmf {t['binom.pmf'] * 1e3:.1f} ms, exact counts "
          f"{t['two-atom counts'] * 1e3:.0f} ms, ratio "
          f"{t['two-atom counts'] / t['binom.pmf']:.0f} (target <= 20)")
    for k3 in (300, 1000):
        fns = {"math.comb route": lambda k3=k3: _math_comb_terms(k3, 3),
               "incremental": lambda k3=k3: core._multinomial_terms(k3, 3)}
        times: dict = {name: [] for name in fns}
        for _ in range(1 if k3 == 1000 else repeat):  # the old route takes ~1 min at 1e3
            for name, f in fns.items():
                start = time.perf_counter()
                f()
                times[name].append(time.perf_counter() - start)
        t = {name: statistics.median(v) for name, v in times.items()}
        assert _math_comb_terms(30, 3) == core._multinomial_terms(30, 3)
        print(f"three atoms, k = {k3}: math.comb route {t['math.comb route']:.2f} s, "
              f"incremental {t['incremental']:.2f} s, speed-up "
              f"{t['math.comb route'] / t['incremental']:.1f} (target >= 10 at k = 1000)")


SECTIONS = {"A": section_a, "B": section_b, "C": section_c, "D": section_d}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--only", nargs="*", default=list(SECTIONS), help="sections to run")
    ap.add_argument("--sizes", nargs="*", type=float, default=[1e7, 1e3],
                    help="section A: the values of n")
    args = ap.parse_args(argv)
    repeat = 3 if args.quick else 7
    load = os.getloadavg()[0]
    print(f"machine: {platform.machine()}, python {platform.python_version()}, "
          f"numpy {np.__version__}; exactdp from {os.path.dirname(exactdp.__file__)}; "
          f"load average at start {load:.1f}")
    for name in args.only:
        if name == "A":
            section_a(repeat, tuple(int(n) for n in args.sizes))
        else:
            SECTIONS[name](repeat)
    print(f"\nload average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
