"""The field's benchmark programs that release real values, in the program language.

Each is declared ``@program(output="release")`` (:mod:`exactdp.programs.release`); each
cites its source and states the privacy level its authors claim (and whether it holds).
Scales: ``D`` is the declared sensitivity; Laplace scales ``b`` (density ``exp(-|z|/b) /
(2b)``), exponential means ``b``. The sparse vector programs give
:class:`~exactdp.SparseVector`'s answer tuples with the released value in place of
``True``: a number above the threshold, ``False`` below, ``None`` after the stop.

References
----------
C. Dwork, F. McSherry, K. Nissim and A. Smith, "Calibrating noise to sensitivity in
private data analysis", TCC 2006 (the Laplace mechanism, histograms). M. Lyu, D. Su and
N. Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6),
2017 (Algorithm 3). Y. Wang, Z. Ding, G. Wang, D. Kifer and D. Zhang, "Proving
differential privacy with shadow execution", PLDI 2019 (NumSVT; the noisy-max variants
returning the value). Z. Ding, Y. Wang, Y. Xiao, G. Wang, D. Zhang and D. Kifer, "Free gap
estimates from the exponential mechanism, sparse vector, noisy max and related
algorithms", PVLDB 13 / VLDB J. 2023 (the sparse vector with gap). B. Bichsel et al.,
"DP-Sniper", IEEE S&P 2021 (the histogram with the wrong scale).
"""

from __future__ import annotations

from .language import program
from .values import argmax, exponential, laplace


@program(sensitivity=1, adjacency="one", output="release")
def laplace_mechanism(q, epsilon, sensitivity=1):
    """The Laplace mechanism on the first answer: ``q_0 + Lap(D/epsilon)``.

    Claimed epsilon-DP, and it is, tightly (Dwork et al. 2006): the loss of ``q`` against
    ``q + D e_0`` is exactly epsilon, attained by every value beyond both answers.
    """
    return q[0] + laplace(sensitivity / epsilon)


@program(sensitivity=1, adjacency="one", output="release")
def histogram(q, epsilon, sensitivity=1):
    """The noisy histogram: every ``a_i + Lap(D/epsilon)``.

    Claimed epsilon-DP under ``"one"`` adjacency (one count moves), and it is, tightly.
    """
    return tuple(a + laplace(sensitivity / epsilon) for a in q)


@program(sensitivity=1, adjacency="one", output="release")
def histogram_wrong_scale(q, epsilon, sensitivity=1):
    """The noisy histogram with the scale inverted: every ``a_i + Lap(epsilon)`` (D = 1).

    Claimed epsilon-DP; it is not: its true level is ``D / epsilon`` (DP-Sniper's
    ``HistogramMechanism`` at the wrong scale; PROGRAMS.md).
    """
    return tuple(a + laplace(epsilon) for a in q)


@program(sensitivity=1, output="release")
def noisy_max_value_laplace(q, epsilon, sensitivity=1):
    """Report-noisy-max returning the noisy maximum value ``max_i(a_i + Lap(2D/epsilon))``.

    Claimed epsilon-DP (the index is); the value is not private for ``n >= 3``: the loss
    of ``a`` against ``a + D`` (every answer moving) is ``n epsilon / 2``. Equals
    ``ReportNoisyMax(epsilon, noise="laplace", output="value")``.
    """
    values = [a + laplace(2 * sensitivity / epsilon) for a in q]
    return values[argmax(values)]


@program(sensitivity=1, output="release")
def noisy_max_value_exponential(q, epsilon, sensitivity=1):
    """Report-noisy-max returning the noisy maximum value with exponential noise of mean
    ``2D/epsilon``.

    Claimed epsilon-DP; not private for any epsilon: the support ``[max a, oo)`` moves
    with the answers (an infinite loss). Equals ``ReportNoisyMax(epsilon,
    noise="exponential", output="value")``.
    """
    values = [a + exponential(2 * sensitivity / epsilon) for a in q]
    return values[argmax(values)]


@program(sensitivity=1, output="release")
def svt3(q, epsilon, threshold, c=1, sensitivity=1):
    """Lyu-Su-Li's Algorithm 3: ``rho ~ Lap(2D/epsilon)``, ``nu_i ~ Lap(2cD/epsilon)``;
    releases the noisy answer ``a_i + nu_i`` when it is at least ``T + rho``; stops after
    the c-th release.

    Claimed epsilon-DP; it is not: no bound independent of the number of queries m (Lyu,
    Su and Li 2017, section 4.2). Equals ``SparseVector(epsilon, threshold, c,
    variant=3)``.
    """
    rho = laplace(2 * sensitivity / epsilon)
    out, count = [], 0
    for a in q:
        if count == c:
            out.append(None)
            continue
        v = a + laplace(2 * c * sensitivity / epsilon)
        if v >= threshold + rho:
            out.append(v)
            count += 1
        else:
            out.append(False)
    return tuple(out)


@program(sensitivity=1, output="release")
def numerical_svt(q, epsilon, threshold, c=1, sensitivity=1):
    """The numerical sparse vector: ``rho ~ Lap(3D/epsilon)``, ``nu_i ~ Lap(6cD/epsilon)``;
    above the threshold it releases ``a_i + Lap(3cD/epsilon)`` (a fresh noise), below
    ``False``; stops after the c-th release.

    Claimed epsilon-DP, and it is (Wang et al., PLDI 2019). Equals
    ``NumericalSparseVector(epsilon, threshold, c)``.
    """
    rho = laplace(3 * sensitivity / epsilon)
    out, count = [], 0
    for a in q:
        if count == c:
            out.append(None)
        elif a + laplace(6 * c * sensitivity / epsilon) >= threshold + rho:
            out.append(a + laplace(3 * c * sensitivity / epsilon))
            count += 1
        else:
            out.append(False)
    return tuple(out)


@program(sensitivity=1, output="release")
def gap_svt(q, epsilon, threshold, c=1, sensitivity=1):
    """The sparse vector with gap: Algorithm 1's scales (``rho ~ Lap(2D/epsilon)``,
    ``nu_i ~ Lap(4cD/epsilon)``), releasing the gap ``a_i + nu_i - (T + rho)`` when it is
    at least 0; stops after the c-th release.

    Claimed epsilon-DP, and it is (Ding et al., "Free gap estimates", PVLDB 2020: the gap
    costs no extra budget).
    """
    rho = laplace(2 * sensitivity / epsilon)
    out, count = [], 0
    for a in q:
        if count == c:
            out.append(None)
            continue
        gap = a + laplace(4 * c * sensitivity / epsilon) - (threshold + rho)
        if gap >= 0:
            out.append(gap)
            count += 1
        else:
            out.append(False)
    return tuple(out)


@program(sensitivity=1, adjacency="one", output="release")
def laplace_parallel(q, epsilon, copies=20, sensitivity=1):
    """``copies`` independent Laplace mechanisms on the first answer, each at
    ``epsilon / copies``: ``q_0 + Lap(copies D / epsilon)``, ``copies`` times (DP-Sniper's
    ``LaplaceParallel``, 20 copies).

    Claimed epsilon-DP, and it is, tightly (basic composition; each copy costs
    ``epsilon / copies``).
    """
    return tuple(q[0] + laplace(copies * sensitivity / epsilon) for _ in range(copies))


@program(sensitivity=1, adjacency="one", output="release")
def partial_sum(q, epsilon, sensitivity=1):
    """The noisy sum ``sum(q) + Lap(D/epsilon)``.

    Claimed epsilon-DP under ``"one"`` adjacency, and it is, tightly.
    """
    return sum(q) + laplace(sensitivity / epsilon)


@program(sensitivity=1, adjacency="one", output="release")
def bad_partial_sum(q, epsilon, sensitivity=1):
    """The noisy sum with half the noise: ``sum(q) + Lap(D/(2 epsilon))``.

    Claimed epsilon-DP; it is not: its true level is ``2 epsilon`` (PROGRAMS.md).
    """
    return sum(q) + laplace(sensitivity / (2 * epsilon))


@program(sensitivity=1, adjacency="one", output="release")
def prefix_sum(q, epsilon, sensitivity=1):
    """The running sums of ``a_i + Lap(D/epsilon)``: ``(s_1, ..., s_m)``, ``s_j = sum_{i <=
    j} (a_i + nu_i)`` (an invertible triangular map of independent noises).

    Claimed epsilon-DP under ``"one"`` adjacency, and it is, tightly (the sums are a
    function of the noisy histogram). Its density is exact (each sum fixes one more
    noise); its loss is exactly ``epsilon |a_j - a'_j| / D`` when one answer moves,
    attained: the translation bound of :mod:`~exactdp.programs.release_bound` meets the
    log density ratio at an output found by :mod:`~exactdp.programs.release_search`.
    """
    out, total = [], 0
    for a in q:
        total = total + a + laplace(sensitivity / epsilon)
        out.append(total)
    return tuple(out)


#: Every release program of the library, by name (the suite's release rows read this).
PROGRAMS = {
    p.name: p for p in (
        noisy_max_value_laplace, noisy_max_value_exponential, svt3, numerical_svt, gap_svt,
        laplace_mechanism, laplace_parallel, histogram, histogram_wrong_scale, partial_sum,
        bad_partial_sum, prefix_sum,
    )
}
