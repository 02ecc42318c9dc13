"""Benchmark: lattice LP at n = 5, k = 4 (210 variables), float (HiGHS) and exact.

Run: ``python benchmarks/bench_lp.py``.  Prints median CPU times of several repeats.
"""

from __future__ import annotations

import sympy
from _timing import median_of

from exactdp.optimality.lattice import build_lattice, pf_dual_polys
from exactdp.optimality.program import lattice_lp
from exactdp.optimality.region import pf_optimality_region


def main() -> None:
    n, k = 5, 4
    build_lattice(n, k)  # build once (cached), as a user's second call would see it
    eps_exact = sympy.log(sympy.Rational(3, 2))
    res_f = lattice_lp(n, k, float(eps_exact))
    res_e = lattice_lp(n, k, eps_exact, method="exact")
    print(f"lattice LP n={n} k={k}: {res_f.n_variables} variables, {res_f.n_constraints} rows")
    t_f = median_of(lambda: lattice_lp(n, k, float(eps_exact)), 7)
    t_e = median_of(lambda: lattice_lp(n, k, eps_exact, method="exact"), 5)
    t_full = median_of(lambda: lattice_lp(n, k, float(eps_exact), constraints="full"), 5)
    t_fe = median_of(
        lambda: lattice_lp(n, k, eps_exact, method="exact", constraints="full"), 3
    )
    print(f"  float (HiGHS + PF/EM + full-DP check), eps=log(3/2): {t_f * 1e3:8.1f} ms")
    print(f"  exact (HiGHS + rational crossover + certificate):    {t_e * 1e3:8.1f} ms"
          f"  [{res_e.certificate.route}, verified={res_e.certificate.verify()}]")
    print(f"  float, constraints='full' ({lattice_lp(n, k, 0.5, constraints='full').n_constraints}"
          f" rows): {t_full * 1e3:8.1f} ms")
    print(f"  exact, constraints='full':                           {t_fe * 1e3:8.1f} ms")
    print(f"  exact optimum = {res_e.optimum} ~ {float(res_e.optimum):.10g};"
          f" PF/OPT = {float(res_e.pf_ratio):.10f}")

    def region():
        pf_dual_polys.cache_clear()
        pf_optimality_region(n, k)

    t_r = median_of(region, 3)
    print(f"  pf_optimality_region(5, 4) (exact, uncached):        {t_r * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
