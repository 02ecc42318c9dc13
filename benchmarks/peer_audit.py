"""Audit the peers' selection samplers (diffprivlib, OpenDP) against exactdp's exact pmfs.

Produces the tables of ``docs/peers.md``: peer, mechanism, scores, epsilon, samples,
p-value, verdict, including samplers that are wrong on purpose (which the audit must
reject) and exactdp's own samplers.

Usage::

    python benchmarks/peer_audit.py [--samples 100000] [--alpha 0.01] [--seed 2024]

Needs the optional extra ``peers`` (``pip install "exactdp[peers]"``). The expected
probabilities are exactdp's exact sympy expressions evaluated to 30 digits. diffprivlib
and exactdp's samplers are seeded from ``--seed``; OpenDP cannot be seeded (OS CSPRNG),
so its rows vary between runs.
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy
from _timing import stopwatch

import exactdp
from exactdp.audit import goodness_of_fit, peers

# name -> (scores, epsilon, sensitivity, monotone)
CASES = {
    "known": ([3, 1, 0, 0, -2], 2, 1, False),
    "ties": ([1, 1, 0, -1, -1, -1], 1, 1, False),
    "monotone": ([4, 4, 2, 0], 1, 1, True),
    "tiny": ([0, -1, -2, -40], 1, 1, False),
    "sens2-rational": ([Fraction(1, 2), 0, Fraction(-3, 2), Fraction(9, 4)], "3/2", 2, False),
}


@dataclass
class Row:
    peer: str
    mechanism: str
    reference: str
    scores: list
    epsilon: object
    monotone: bool
    samples: int
    p_value: float | None
    verdict: str
    statistic: str
    seconds: float
    wrong: bool = False


def exact_vector(dist) -> list[float]:
    return [float(sympy.N(p, 30)) for p in dist.probabilities]


def ref_name(mech: exactdp.Mechanism) -> str:
    name = type(mech).__name__
    if isinstance(mech, exactdp.ReportNoisyMax):
        name = f"RNM-{mech.noise}"
    return name


def run(
    peer: str,
    mechanism: str,
    sampler: Callable,
    reference: exactdp.Mechanism,
    scores: list,
    n: int,
    alpha: float,
    rng,
    wrong: bool = False,
) -> Row:
    elapsed = stopwatch()
    try:
        probs = exact_vector(reference.distribution(scores))
        res = goodness_of_fit(sampler, probs, n, rng=rng, alpha=alpha)
        p, verdict = res.p_value, res.verdict
        stat = f"{res.statistic:.4g} ({res.dof})"
        if res.p_value_rare is not None and res.method != "binomial":
            stat += f"; p cells {res.p_value_cells:.3g}, rare {res.p_value_rare:.3g}"
    except Exception as exc:  # recorded in the table, not hidden
        p, verdict, stat = None, f"error: {type(exc).__name__}: {exc}"[:90], "-"
    return Row(
        peer,
        mechanism,
        ref_name(reference)
        + (" (monotone)" if reference.monotonic else "")
        + (f", Delta={reference.sensitivity}" if reference.sensitivity != 1 else ""),
        list(scores),
        reference.epsilon,
        bool(reference.monotonic),
        n,
        p,
        verdict,
        stat,
        elapsed(),
        wrong,
    )


def peer_rows(n: int, alpha: float, seed: int) -> list[Row]:
    rows = []
    rng = np.random.default_rng(seed)
    for case, (q, eps, sens, mono) in CASES.items():
        for make in (peers.diffprivlib_exponential, peers.diffprivlib_permute_and_flip):
            a = make(q, eps, sens, mono)
            rows.append(run(a.peer, a.mechanism, a.sampler, a.reference, q, n, alpha, rng))
        if case == "tiny":
            continue
        for measure in ("max_divergence", "zero_concentrated_divergence"):
            a = peers.opendp_noisy_max(q, eps, sens, mono, measure=measure)
            rows.append(run(a.peer, a.mechanism, a.sampler, a.reference, q, n, alpha, rng))
    return rows


def wrong_rows(n: int, alpha: float, seed: int) -> list[Row]:
    rng = np.random.default_rng(seed + 1)
    q = [3, 1, 0, 0, -2]
    rows = []
    a = peers.diffprivlib_exponential(q, 2, monotonic=True)
    rows.append(
        run(
            a.peer,
            "Exponential, monotonic=True on a non-monotone score (exponent doubled)",
            a.sampler,
            exactdp.ExponentialMechanism(2),
            q,
            n,
            alpha,
            rng,
            wrong=True,
        )
    )
    a = peers.opendp_noisy_max(q, 2)
    rows.append(
        run(
            a.peer,
            "make_noisy_max(max_divergence) audited as if it were EM",
            a.sampler,
            exactdp.ExponentialMechanism(2),
            q,
            n,
            alpha,
            rng,
            wrong=True,
        )
    )
    # report-noisy-max with Laplace noise of scale b/2 instead of b (numpy, written here)
    lq = [0, -1, -2]
    b = 2.0  # c*Delta/eps with eps = 1

    def half_scale(size, rng):
        noise = rng.laplace(0.0, b / 2, size=(size, len(lq)))
        return np.argmax(np.asarray(lq, float) + noise, axis=1)

    def full_scale(size, rng):
        noise = rng.laplace(0.0, b, size=(size, len(lq)))
        return np.argmax(np.asarray(lq, float) + noise, axis=1)

    ref = exactdp.ReportNoisyMax(1, noise="laplace")
    rows.append(
        run("numpy (control)", "argmax(q + Lap(b)): correct", full_scale, ref, lq, n, alpha, rng)
    )
    rows.append(
        run(
            "numpy",
            "argmax(q + Lap(b/2)): Laplace scale halved",
            half_scale,
            ref,
            lq,
            n,
            alpha,
            rng,
            wrong=True,
        )
    )
    return rows


def own_rows(n: int, alpha: float, seed: int) -> list[Row]:
    rng = np.random.default_rng(seed + 2)
    rows = []
    mechs = {
        "EM": lambda e, s, m: exactdp.ExponentialMechanism(e, s, m),
        "PF": lambda e, s, m: exactdp.PermuteAndFlip(e, s, m),
        "RNM-exponential": lambda e, s, m: exactdp.ReportNoisyMax(e, s, m, noise="exponential"),
        "RNM-gumbel": lambda e, s, m: exactdp.ReportNoisyMax(e, s, m, noise="gumbel"),
        "RNM-laplace": lambda e, s, m: exactdp.ReportNoisyMax(e, s, m, noise="laplace"),
    }
    for case in ("known", "ties", "tiny"):
        q, eps, sens, mono = CASES[case]
        for name, make in mechs.items():
            mech = make(eps, sens, mono)
            dist = mech.distribution(q)
            rows.append(run("exactdp", name, dist.sample, mech, q, n, alpha, rng))
    return rows


def fmt_p(p: float | None) -> str:
    if p is None:
        return "-"
    if p == 0.0:
        return "0 (< 1e-300)"
    return f"{p:.3g}"


def table(rows: list[Row]) -> str:
    head = (
        "| peer | mechanism | audited against (exactdp) | scores | epsilon | samples "
        "| chi2 (dof) | p-value | verdict |\n|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for r in rows:
        verdict = r.verdict
        if r.wrong:
            verdict += " (wrong on purpose)"
        lines.append(
            f"| {r.peer} | {r.mechanism} | {r.reference} | ({', '.join(map(str, r.scores))}) "
            f"| {r.epsilon} | {r.samples} | {r.statistic} | {fmt_p(r.p_value)} | {verdict} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--skip-own", action="store_true", help="omit exactdp's own samplers")
    args = ap.parse_args(argv)

    versions = peers.peer_versions()
    print(
        f"exactdp {exactdp.__version__}; diffprivlib {versions['diffprivlib']}; "
        f"opendp {versions['opendp']}; numpy {np.__version__}; "
        f"Python {platform.python_version()}; alpha = {args.alpha}; seed = {args.seed}\n"
    )
    elapsed = stopwatch()
    print("## Peers\n")
    print(table(peer_rows(args.samples, args.alpha, args.seed)))
    print("\n## Wrong on purpose (and a control)\n")
    print(table(wrong_rows(args.samples, args.alpha, args.seed)))
    if not args.skip_own:
        print("\n## exactdp's own samplers\n")
        print(table(own_rows(args.samples, args.alpha, args.seed)))
    print(f"\ntotal time {elapsed():.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
