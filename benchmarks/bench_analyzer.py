"""Timings of the exact privacy analyzer (issue 4).

Run: ``/tmp/v0/bin/python benchmarks/bench_analyzer.py``. Prints one line per task with the
CPU time (best of ``--repeat`` runs) and the exact result.

Tasks
-----
1. ``certify_dp`` on one pair of n = 10 integer score vectors (PF and EM), for every
   epsilon > 0 at once; and the same with the certificate's ``check()``.
2. ``check_dp`` with the exhaustive search of the 3**6 - 1 = 728 neighbour vertices (PF,
   EM, RNM-Laplace at eps = 1/10).
3. The StatDP / DP-Sniper noisy-max pairs (docs/formulas.md section 7): exact loss of RNM-Laplace
   (scale 2/eps, eps = 0.1) and RNM-exponential.
"""

from __future__ import annotations

import argparse

import sympy
from _timing import best_of

import exactdp
from exactdp.analysis.certify import certify_dp
from exactdp.analysis.check import check_dp
from exactdp.analysis.loss import privacy_loss

TENTH = sympy.Rational(1, 10)
Q10 = [0, -1, -3, -3, -4, -6, -7, -9, -10, -12]
Q10_NEIGHBOUR = [-1, 0, -4, -2, -5, -5, -8, -8, -11, -11]
Q6 = [0, -1, -2, 0, 3, 1]


def main(repeat: int = 3) -> list[tuple[str, float, str]]:
    rows = []
    for name, mech in (("PF", exactdp.PermuteAndFlip(1)), ("EM", exactdp.ExponentialMechanism(1))):
        t, cert = best_of(lambda m=mech: certify_dp(m, Q10, Q10_NEIGHBOUR), repeat)
        rows.append((f"certify_dp {name} n=10 pair (all eps)", t,
                     f"holds={cert.holds}, {len(cert.conditions)} conditions"))
        t, ok = best_of(lambda c=cert: c.verify(), 1)
        rows.append((f"certificate.verify() {name} n=10", t, f"verified={ok}"))
    for name, mech in (("PF", exactdp.PermuteAndFlip(1)), ("EM", exactdp.ExponentialMechanism(1)),
                       ("RNM-Laplace", exactdp.ReportNoisyMax(TENTH, noise="laplace"))):
        t, res = best_of(lambda m=mech: check_dp(m, Q6, search="exhaustive"), 1)
        rows.append((f"check_dp {name} exhaustive 3^6-1", t,
                     f"holds={res.holds}, loss={float(res):.10f}, "
                     f"{res.neighbours_checked} neighbours"))
    lap = exactdp.ReportNoisyMax(TENTH, noise="laplace")
    rnm = exactdp.ReportNoisyMax(TENTH)
    for label, m, q2 in (("RNM-Laplace (1,1,1,1,1) vs (2,0,0,0,0)", lap, [2, 0, 0, 0, 0]),
                         ("RNM-Laplace (1,1,1,1,1) vs (0,2,2,2,2)", lap, [0, 2, 2, 2, 2]),
                         ("RNM-Exp     (1,1,1,1,1) vs (0,2,2,2,2)", rnm, [0, 2, 2, 2, 2])):
        t, loss = best_of(lambda m=m, q2=q2: privacy_loss(m, [1] * 5, q2), repeat)
        rows.append((f"privacy_loss {label}", t, f"loss={float(loss):.7f} ({loss.value})"))
    return rows


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for name, t, info in main(args.repeat):
        print(f"{name:55s} {t:8.3f} s   {info}")
