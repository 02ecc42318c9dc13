"""The field's benchmark programs that release real values, in the program language.

Each is declared ``@program(output="release")`` (:mod:`exactdp.programs.release`); each
cites its source and states the privacy level its authors claim (and whether it holds).
Scales: ``D`` is the declared sensitivity; Laplace scales ``b`` (density ``exp(-|z|/b) /
(2b)``), exponential means ``b``. The sparse vector programs give
:class:`~exactdp.SparseVector`'s answer tuples with the released value in place of
``True``: a number above the threshold, ``False`` below, ``None`` after the stop. The
noise-addition programs (the Laplace mechanism, histograms, sums, SmartSum) live in
:mod:`exactdp.programs.library_sums`; :data:`PROGRAMS` names both modules' programs.

Each program is a factory (:func:`~exactdp.programs.program`): its keywords
(``svt3(epsilon=1, threshold=0)``) make a mechanism, whose methods take the answers ``q``
(``m.distribution(q)``: a :class:`~exactdp.programs.release.ProgramRelease`, whose
outputs are patterns with ``REAL`` where a value is released; ``exactdp.privacy_loss(m, q,
q2)``). A program's Parameters and Returns describe one run of the function as written;
``sensitivity`` is ``D``, reserved (set by ``@program(sensitivity=...)``). A bad keyword
(epsilon not > 0, a count below 1, a missing or unknown one) raises a one-line
``ValueError`` when the mechanism is made (:class:`~exactdp.programs.Program`).

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017 (Algorithm 3). Y. Wang, Z. Ding, G. Wang, D. Kifer and D.
Zhang, "Proving differential privacy with shadow execution", PLDI 2019 (NumSVT; the
noisy-max variants returning the value). Z. Ding, Y. Wang, Y. Xiao, G. Wang, D. Zhang and
D. Kifer, "Free gap estimates from the exponential mechanism, sparse vector, noisy max and
related algorithms", PVLDB 13 / VLDB J. 2023 (the sparse vector with gap, the adaptive
sparse vector, noisy top-k with gap). B. Bichsel et al., "DP-Sniper", IEEE S&P 2021
(SVT34Parallel). Y. Wang, Z. Ding, D. Kifer and D. Zhang, "CheckDP", CCS 2020 (the
incorrect twin of the adaptive sparse vector).
"""

from __future__ import annotations

from .builtins import max_value, topk
from .draws import exponential, laplace
from .language import program
from .library_sums import (
    bad_partial_sum,
    bad_smart_sum,
    histogram,
    histogram_wrong_scale,
    laplace_mechanism,
    laplace_parallel,
    partial_sum,
    prefix_sum,
    smart_sum,
)


@program(sensitivity=1, output="release")
def noisy_max_value_laplace(q, epsilon, sensitivity=1):
    """Report-noisy-max returning the noisy maximum value ``max_i(a_i + Lap(2D/epsilon))``.

    Claimed epsilon-DP (the index is); the value is not private for ``n >= 3``: the loss
    of ``a`` against ``a + D`` (every answer moving) is ``n epsilon / 2``. Equals
    ``ReportNoisyMax(epsilon, noise="laplace", output="value")``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    real
        The largest noisy answer.

    Examples
    --------
    The density of the maximum of two ``Lap(2)`` at 0 is ``2 f(0) F(0) = 1/4``; on three
    answers the loss is ``3 epsilon / 2``:

    >>> import exactdp
    >>> from exactdp.programs.library_release import noisy_max_value_laplace
    >>> m = noisy_max_value_laplace(epsilon=1)
    >>> m.distribution([0, 0]).density(0)
    1/4
    >>> r = exactdp.privacy_loss(m, [0, 0, 0], [1, 1, 1])
    >>> r.loss, r.attained
    (3/2, True)
    """
    values = [a + laplace(2 * sensitivity / epsilon) for a in q]
    return max_value(values)


@program(sensitivity=1, output="release")
def noisy_max_value_exponential(q, epsilon, sensitivity=1):
    """Report-noisy-max returning the noisy maximum value with exponential noise of mean
    ``2D/epsilon``.

    Claimed epsilon-DP; not private for any epsilon: the support ``[max a, oo)`` moves
    with the answers (an infinite loss). Equals ``ReportNoisyMax(epsilon,
    noise="exponential", output="value")``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    real
        The largest noisy answer (at least ``max(q)``).

    Examples
    --------
    The density of the maximum of two exponentials of mean 2 at 1 is ``2 f(1) F(1)``; values
    in ``(0, 1)`` are reached from ``(0, 0)`` only:

    >>> import exactdp
    >>> from exactdp.programs.library_release import noisy_max_value_exponential
    >>> m = noisy_max_value_exponential(epsilon=1)
    >>> m.distribution([0, 0]).density(1)
    -exp(-1) + exp(-1/2)
    >>> exactdp.privacy_loss(m, [0, 0], [1, 1]).loss
    oo
    """
    values = [a + exponential(2 * sensitivity / epsilon) for a in q]
    return max_value(values)


@program(sensitivity=1, output="release", counts=("c",))
def svt3(q, epsilon, threshold, c=1, sensitivity=1):
    """Lyu-Su-Li's Algorithm 3: ``rho ~ Lap(2D/epsilon)``, ``nu_i ~ Lap(2cD/epsilon)``;
    releases the noisy answer ``a_i + nu_i`` when it is at least ``T + rho``; stops after
    the c-th release.

    Claimed epsilon-DP; it is not: no bound independent of the number of queries m (Lyu,
    Su and Li 2017, section 4.2). Equals ``SparseVector(epsilon, threshold, c,
    variant=3)``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    c : int >= 1, default 1
        The number of releases before the stop.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (real or False or None), shape (m,)
        The released value where the test passes, ``False`` below, ``None`` after the stop.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library_release import svt3
    >>> m = svt3(epsilon=1, threshold=0)
    >>> m.distribution([1, 0]).outputs
    ((False, False), (False, REAL), (REAL, None))
    >>> exactdp.privacy_loss(m, [1, 0], [0, 1]).loss
    log(-2*exp(1/2) + 1/2 + 2*E)
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


@program(sensitivity=1, output="release", counts=("c",))
def numerical_svt(q, epsilon, threshold, c=1, sensitivity=1):
    """The numerical sparse vector: ``rho ~ Lap(3D/epsilon)``, ``nu_i ~ Lap(6cD/epsilon)``;
    above the threshold it releases ``a_i + Lap(3cD/epsilon)`` (a fresh noise), below
    ``False``; stops after the c-th release.

    Claimed epsilon-DP, and it is (Wang et al., PLDI 2019). Equals
    ``NumericalSparseVector(epsilon, threshold, c)``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    c : int >= 1, default 1
        The number of releases before the stop.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (real or False or None), shape (m,)
        The released value where the test passes, ``False`` below, ``None`` after the stop.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library_release import numerical_svt
    >>> r = exactdp.privacy_loss(numerical_svt(epsilon=1, threshold=0), [1, 0], [0, 1])
    >>> round(float(r.loss), 6), r.certified
    (0.598645, True)
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


@program(sensitivity=1, output="release", counts=("c",))
def gap_svt(q, epsilon, threshold, c=1, sensitivity=1):
    """The sparse vector with gap: Algorithm 1's scales (``rho ~ Lap(2D/epsilon)``,
    ``nu_i ~ Lap(4cD/epsilon)``), releasing the gap ``a_i + nu_i - (T + rho)`` when it is
    at least 0; stops after the c-th release.

    Claimed epsilon-DP, and it is (Ding et al., "Free gap estimates", PVLDB 2020: the gap
    costs no extra budget).

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    c : int >= 1, default 1
        The number of releases before the stop.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (real or False or None), shape (m,)
        The gap ``a_i + nu_i - (T + rho) >= 0`` where the test passes, ``False`` below,
        ``None`` after the stop.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library_release import gap_svt
    >>> r = exactdp.privacy_loss(gap_svt(epsilon=1, threshold=0), [1, 0], [0, 1])
    >>> r.loss, r.attained
    (log(11*E/(-1 + 12*exp(1/2))), False)
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


@program(sensitivity=1, output="release", counts=("c",))
def adaptive_svt(q, epsilon, threshold, c=1, sigma=16, sensitivity=1):
    """The adaptive sparse vector with gap (Ding et al., "Free gap estimates", Algorithm
    "Adaptive SVT with gap"; CheckDP's ``adaptivesparsevector.c``), budget split half to
    the threshold: ``rho ~ Lap(2D/epsilon)``; query i first tries the cheap branch, the gap
    ``a_i + eta_i - (T + rho)`` with ``eta_i ~ Lap(8cD/epsilon)``, released when at least
    ``sigma``; else the costly branch, ``a_i + xi_i - (T + rho)`` with ``xi_i ~
    Lap(4cD/epsilon)``, released when at least 0; else ``False``. A cheap answer spends one
    unit, a costly one two, of ``2c`` units; it stops (``None``) once more than ``2c - 2``
    are spent (at most c costly answers, up to 2c - 1 cheap ones).

    Claimed epsilon-DP, and it is (Ding et al., PVLDB 13, 2020, and VLDB J. 2023: the gaps
    are free). The paper's ``sigma = 4 sqrt(2) / epsilon_1`` is irrational: here ``sigma``
    is a rational parameter (CheckDP's constant 16 by default); privacy holds for every
    ``sigma``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    c : int >= 1, default 1
        The number of releases before the stop.
    sigma : rational, default 16
        The cheap branch's margin over the threshold.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (real or False or None), shape (m,)
        The released gap (from either branch), ``False`` below, ``None`` after the stop.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library_release import adaptive_svt
    >>> m = adaptive_svt(epsilon=1, threshold=0)
    >>> m.distribution([1, 0]).outputs
    ((False, False), (False, REAL), (REAL, None))
    >>> r = exactdp.privacy_loss(m, [1], [0])
    >>> round(float(r.loss), 6), r.certified
    (0.233053, True)
    """
    rho = laplace(2 * sensitivity / epsilon)
    out, spent = [], 0
    for a in q:
        if spent > 2 * c - 2:
            out.append(None)
            continue
        top = a + laplace(8 * c * sensitivity / epsilon) - (threshold + rho)
        if top >= sigma:
            out.append(top)
            spent += 1
            continue
        middle = a + laplace(4 * c * sensitivity / epsilon) - (threshold + rho)
        if middle >= 0:
            out.append(middle)
            spent += 2
        else:
            out.append(False)
    return tuple(out)


@program(sensitivity=1, output="release", counts=("c",))
def bad_adaptive_svt(q, epsilon, threshold, c=1, sigma=16, sensitivity=1):
    """:func:`adaptive_svt` whose cheap branch releases the noisy answer ``a_i + eta_i``
    instead of the gap (CheckDP's ``badadaptivesparsevector``).

    Claimed epsilon-DP; it is not: the released ``a_i + eta_i`` bounds the threshold noise
    from above while the earlier ``False`` answers bound it from below, so the answers
    before it are not hidden by ``rho``: on ``(0, 0, 0, 0)`` against ``(1, 1, 1, 1)``, the
    pattern ``(False, False, False, v)`` has ``ln f/f' = 3 (1/4 + 1/8) + 1/8 = 5/4`` (times
    ``epsilon / c``) for every ``v`` far enough below the threshold: each ``False`` before
    the release adds ``3 epsilon / (8c)``, without bound in the number of queries.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    c : int >= 1, default 1
        The number of releases before the stop.
    sigma : rational, default 16
        The cheap branch's margin over the threshold.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (real or False or None), shape (m,)
        The noisy answer (cheap branch) or the gap (costly branch), ``False`` below,
        ``None`` after the stop.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library_release import bad_adaptive_svt
    >>> r = exactdp.privacy_loss(bad_adaptive_svt(epsilon=1, threshold=0), [1], [0])
    >>> round(float(r.loss), 6), r.certified
    (0.222628, True)
    """
    rho = laplace(2 * sensitivity / epsilon)
    out, spent = [], 0
    for a in q:
        if spent > 2 * c - 2:
            out.append(None)
            continue
        top = a + laplace(8 * c * sensitivity / epsilon)
        if top - (threshold + rho) >= sigma:
            out.append(top)
            spent += 1
            continue
        middle = a + laplace(4 * c * sensitivity / epsilon) - (threshold + rho)
        if middle >= 0:
            out.append(middle)
            spent += 2
        else:
            out.append(False)
    return tuple(out)


@program(sensitivity=1, output="release", counts=("c",))
def svt34_parallel(q, epsilon, threshold=1, c=2, sensitivity=1):
    """Lyu-Su-Li's Algorithms 3 and 4 run side by side on the same answers, each at
    ``epsilon / 2`` (DP-Sniper's ``SVT34Parallel``, there at 0.1 each, ``c = 2``,
    ``T = 1``): the pair ``(svt3's answers, svt4's answers)`` with independent noises.

    Claimed epsilon-DP (composition of two ``epsilon/2`` claims); it is not: Algorithm 3
    has no bound independent of the number of queries, Algorithm 4 is only ``((1 + 6c)/4)
    (epsilon/2)``-DP. The log density ratio is the sum of the two parts', so the loss is at
    most the sum of theirs (equal when their worst outputs lean the same way).

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational, default 1
        The threshold ``T``.
    c : int >= 1, default 2
        The number of ``True`` answers (releases) before each part's stop.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    (tuple, tuple), each of shape (m,)
        Algorithm 3's answers (real, ``False`` or ``None``) and Algorithm 4's (``True``,
        ``False`` or ``None``).

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library_release import svt34_parallel
    >>> r = exactdp.privacy_loss(svt34_parallel(epsilon=1), [1, 0], [0, 1])
    >>> round(float(r.loss), 6), r.certified
    (0.772383, True)
    """
    rho = laplace(4 * sensitivity / epsilon)
    out3, count = [], 0
    for a in q:
        if count == c:
            out3.append(None)
            continue
        v = a + laplace(4 * c * sensitivity / epsilon)
        if v >= threshold + rho:
            out3.append(v)
            count += 1
        else:
            out3.append(False)
    rho = laplace(8 * sensitivity / epsilon)
    out4, count = [], 0
    for a in q:
        if count == c:
            out4.append(None)
        elif a + laplace(8 * sensitivity / (3 * epsilon)) >= threshold + rho:
            out4.append(True)
            count += 1
        else:
            out4.append(False)
    return tuple(out3), tuple(out4)


@program(sensitivity=1, output="release", counts=("k",))
def noisy_top_k_gap(q, epsilon, k=2, sensitivity=1):
    """Noisy top-k with gap (Ding et al., "Free gap estimates", Algorithm "Noisy Top-K with
    Gap"; freegap's ``gap_noisy_topk``): the indices of the k largest ``a_i +
    Lap(2kD/epsilon)``, largest first, then the k - 1 gaps between consecutive ones.

    Claimed epsilon-DP, and it is (Ding et al., PVLDB 13, 2020: the gaps are free). Exact
    for every k: the ordering ``v_w1 >= v_w2 >= ... >= v_wk >= the rest`` is a star
    centred at ``v_w2`` for ``k <= 2`` and a chain, integrated leaf first, for ``k >= 3``
    (:func:`~exactdp.programs.builtins.topk`); the gaps' density is one integral over
    ``v_wk``. The loss over ``k - 1 >= 2`` gaps is exact where the log ratio's limit along a
    ray of growing gaps reaches the translation bound (then not attained), for two gaps
    also where the plane's polygons settle it (:mod:`~exactdp.programs.
    release_chain_plane`), else a certified bracket (:mod:`~exactdp.programs.
    release_chain`). With two answers the output is the difference ``v_0 - v_1``, a Laplace
    difference: the loss of a shift s is ``s epsilon / (2k)``, not attained.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    k : int >= 2, default 2
        The number of indices released.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of length 2k - 1
        ``k`` indices in ``range(m)``, largest noisy answer first, then the ``k - 1`` gaps
        (reals) between consecutive ones.

    Examples
    --------
    Two answers: the gap is a Laplace difference, its loss ``s epsilon / (2k) = 1/2`` for a
    shift ``s = 2``, not attained:

    >>> import exactdp
    >>> from exactdp.programs.library_release import noisy_top_k_gap
    >>> m = noisy_top_k_gap(epsilon=1)
    >>> m.distribution([1, 0]).outputs
    ((0, 1, REAL), (1, 0, REAL))
    >>> r = exactdp.privacy_loss(m, [1, 0], [0, 1])
    >>> r.loss, r.attained
    (1/2, False)
    """
    values = [a + laplace(2 * k * sensitivity / epsilon) for a in q]
    order = topk(values, k)
    return (*order, *(values[i] - values[j] for i, j in zip(order, order[1:], strict=False)))


@program(sensitivity=1, output="release", counts=("k",))
def noisy_top_k_gap_exponential(q, epsilon, k=2, sensitivity=1):
    """:func:`noisy_top_k_gap` with exponential noise of mean ``2kD/epsilon`` (freegap's
    ``gap_noisy_topk_exp``).

    Claimed epsilon-DP, and it is (Ding et al., VLDB J. 2023, the exponential-noise
    variant). The loss over any number of gaps is exact: the density is ``exp(-sum G_j /
    b)`` times a function of one number, and the supremum lies on a path of least gaps
    (:mod:`~exactdp.programs.release_chain`). With two answers the released difference
    ``v_0 - v_1`` is Laplace (the difference of two exponentials): the loss of a shift s is
    ``s epsilon / (2k)``, attained.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    k : int >= 2, default 2
        The number of indices released.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of length 2k - 1
        ``k`` indices in ``range(m)``, largest noisy answer first, then the ``k - 1`` gaps
        (reals) between consecutive ones.

    Examples
    --------
    Two answers: the loss of the shift ``s = 2`` is ``s epsilon / (2k) = 1/2``, attained:

    >>> import exactdp
    >>> from exactdp.programs.library_release import noisy_top_k_gap_exponential
    >>> r = exactdp.privacy_loss(noisy_top_k_gap_exponential(epsilon=1), [1, 0], [0, 1])
    >>> r.loss, r.attained
    (1/2, True)
    """
    values = [a + exponential(2 * k * sensitivity / epsilon) for a in q]
    order = topk(values, k)
    return (*order, *(values[i] - values[j] for i, j in zip(order, order[1:], strict=False)))


#: Every release program of the library, by name (the suite's release rows read this).
PROGRAMS = {
    p.name: p for p in (
        noisy_max_value_laplace, noisy_max_value_exponential, svt3, numerical_svt, gap_svt,
        laplace_mechanism, laplace_parallel, histogram, histogram_wrong_scale, partial_sum,
        bad_partial_sum, prefix_sum, adaptive_svt, bad_adaptive_svt, smart_sum, bad_smart_sum,
        svt34_parallel, noisy_top_k_gap, noisy_top_k_gap_exponential,
    )
}
