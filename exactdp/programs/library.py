"""The field's benchmark programs with discrete outputs, written in the program language.

Each program cites its source and states the privacy level its authors claim (and whether
the claim holds). Scales: ``D`` is the declared sensitivity; Laplace and discrete Laplace
scales ``b`` as in :mod:`exactdp.programs.values`. The sparse vector programs follow
:class:`~exactdp.SparseVector`'s scales (Lyu, Su and Li's Figure 1 as the DP-testing tools
implement it) and give its outputs: tuples of ``True`` / ``False`` / ``None`` of length m,
``None`` after the stop, in its order.

Each program is a factory (:func:`~exactdp.programs.program`): its keywords
(``svt1(epsilon=1, threshold=0)``) make a mechanism, whose methods take the answers ``q``
(``m.distribution(q)``, ``exactdp.privacy_loss(m, q, q2)``). A program's Parameters and
Returns describe one run of the function as written; ``sensitivity`` is ``D``, reserved
(set by ``@program(sensitivity=...)``). A bad keyword (epsilon not > 0, a count below 1,
a missing or unknown one) raises a one-line ``ValueError`` when the mechanism is made
(:class:`~exactdp.programs.Program`); a score outside the declared domain, when given.

References
----------
M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017 (Figure 1, Algorithms 1-6). C. Dwork and A. Roth, "The
Algorithmic Foundations of Differential Privacy", 2014 (Claim 3.9; AboveThreshold,
Algorithm 1 of section 3.6). Y. Wang, Z. Ding, D. Kifer and D. Zhang, "CheckDP", CCS 2020
(``svt_increasing.c``). B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev, "DP-Sniper",
S&P 2021 (``TruncatedGeometricMechanism``). S. L. Warner, "Randomized response", JASA 60,
1965. G. Barthe et al., "Deciding differential privacy of online algorithms with
multiple variables" (DiPC), LICS 2020 (the incorrect randomized response).
"""

from __future__ import annotations

import sympy

from .builtins import argmax
from .draws import bernoulli, discrete_laplace, exponential, laplace
from .language import program


# ---------------------------------------------------------------------------- noisy max
@program(sensitivity=1, output="selection")
def noisy_max_laplace(q, epsilon, sensitivity):
    """Report-noisy-max: the index of the largest ``a_i + Lap(2D/epsilon)``.

    Claimed epsilon-DP, and it is (Dwork and Roth 2014, Claim 3.9, with the factor 2 for
    answers moving both ways). Equals ``ReportNoisyMax(epsilon, noise="laplace")``.

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
    int
        The index in ``range(m)`` of the largest noisy answer (ties have probability 0).

    Examples
    --------
    Two answers: index 0 wins with ``1 - P(Y - X > 1)``, the tail of a difference of two
    ``Lap(2)`` noises, ``(1/2) exp(-t/b) (1 + t/(2b))`` at ``t = 1, b = 2``:

    >>> import exactdp
    >>> from exactdp.programs.library import noisy_max_laplace
    >>> m = noisy_max_laplace(epsilon=1)
    >>> m.distribution([1, 0]).pmf(0)
    1 - 5*exp(-1/2)/8
    >>> exactdp.privacy_loss(m, [1, 0], [0, 1])
    PrivacyLoss(loss=0.493448 (exact: log((8/5 - exp(-1/2))*exp(1/2))), output=0,
                engine='x-form', certified)
    """
    b = 2 * sensitivity / epsilon  # each answer's noise scale (computed once)
    return argmax([a + laplace(b) for a in q])


@program(sensitivity=1, output="selection")
def noisy_max_exponential(q, epsilon, sensitivity):
    """Report-noisy-max with one-sided exponential noise of mean ``2D/epsilon``.

    Claimed epsilon-DP, and it is, tightly: it equals permute-and-flip (Ding, Kifer et al.,
    "The permute-and-flip mechanism is identical to report-noisy-max with exponential
    noise", arXiv:2105.07260, 2021). Equals ``ReportNoisyMax(epsilon, noise="exponential")``.

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
    int
        The index in ``range(m)`` of the largest noisy answer (ties have probability 0).

    Examples
    --------
    Two answers: the difference of two exponential noises of mean 2 is ``Lap(2)``, so index 0
    wins with ``1 - exp(-1/2)/2``:

    >>> import exactdp
    >>> from exactdp.programs.library import noisy_max_exponential
    >>> m = noisy_max_exponential(epsilon=1)
    >>> m.distribution([1, 0]).pmf(0)
    1 - exp(-1/2)/2
    >>> exactdp.privacy_loss(m, [1, 0], [0, 1])
    PrivacyLoss(loss=0.831797 (exact: log((2 - exp(-1/2))*exp(1/2))), output=0,
                engine='x-form', certified)
    """
    b = 2 * sensitivity / epsilon  # each answer's noise scale (computed once)
    return argmax([a + exponential(b) for a in q])


# ---------------------------------------------------------------------------- sparse vector
@program(sensitivity=1, counts=("c",))
def svt1(q, epsilon, threshold, c=1, sensitivity=1):
    """Lyu-Su-Li's Algorithm 1: ``rho ~ Lap(2D/epsilon)``, ``nu_i ~ Lap(4cD/epsilon)``,
    stop after the c-th True.

    Claimed epsilon-DP, and it is (Lyu, Su and Li 2017, Theorem 2). Equals
    ``SparseVector(epsilon, threshold, c, variant=1)``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    c : int >= 1, default 1
        The number of ``True`` answers before the stop.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (bool or None), shape (m,)
        ``True`` where the noisy answer reaches the noisy threshold, ``False`` below,
        ``None`` after the stop.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library import svt1
    >>> m = svt1(epsilon=1, threshold=0)
    >>> m.distribution([1, 0]).outputs
    ((True, None), (False, True), (False, False))
    >>> exactdp.privacy_loss(m, [1, 0], [0, 1])
    PrivacyLoss(loss=0.395815, output=(False, True), engine='x-form', certified)
    """
    rho = laplace(2 * sensitivity / epsilon)
    b = 4 * c * sensitivity / epsilon  # the query noise's scale (computed once)
    out, count = [], 0
    for a in q:
        if count == c:
            out.append(None)
        elif a + laplace(b) >= threshold + rho:
            out.append(True)
            count += 1
        else:
            out.append(False)
    return tuple(out)


@program(sensitivity=1, counts=("c",))
def svt2(q, epsilon, threshold, c=1, sensitivity=1):
    """Lyu-Su-Li's Algorithm 2: ``rho ~ Lap(2cD/epsilon)`` drawn afresh after every True,
    ``nu_i ~ Lap(4cD/epsilon)``, stop after the c-th True.

    Claimed epsilon-DP, and it is (Lyu, Su and Li 2017, section 4.1). Equals
    ``SparseVector(epsilon, threshold, c, variant=2)``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    c : int >= 1, default 1
        The number of ``True`` answers before the stop.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (bool or None), shape (m,)
        ``True`` where the noisy answer reaches the noisy threshold, ``False`` below,
        ``None`` after the stop.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library import svt2
    >>> m = svt2(epsilon=1, threshold=0, c=2)
    >>> m.distribution([1, 0]).pmf((True, True))
    -exp(-1/8)/3 + exp(-1/4)/12 + 1/2
    >>> exactdp.privacy_loss(m, [1, 0], [0, 1])
    PrivacyLoss(loss=0.199402, output=(False, True), engine='x-form', certified)
    """
    t, b = 2 * c * sensitivity / epsilon, 4 * c * sensitivity / epsilon  # the scales
    rho = laplace(t)
    out, count = [], 0
    for a in q:
        if count == c:
            out.append(None)
        elif a + laplace(b) >= threshold + rho:
            out.append(True)
            count += 1
            rho = laplace(t)
        else:
            out.append(False)
    return tuple(out)


@program(sensitivity=1, counts=("c",))
def svt4(q, epsilon, threshold, c=1, sensitivity=1):
    """Lyu-Su-Li's Algorithm 4: ``rho ~ Lap(4D/epsilon)``, ``nu_i ~ Lap(4D/(3 epsilon))``,
    stop after the c-th True.

    Claimed epsilon-DP; it is not: it is ``((1 + 6c)/4) epsilon``-DP (Lyu, Su and Li 2017,
    section 4.2). Equals ``SparseVector(epsilon, threshold, c, variant=4)``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    c : int >= 1, default 1
        The number of ``True`` answers before the stop.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (bool or None), shape (m,)
        ``True`` where the noisy answer reaches the noisy threshold, ``False`` below,
        ``None`` after the stop.

    Examples
    --------
    Above the claimed epsilon = 1 (the true level at c = 1 is 7/4):

    >>> import exactdp
    >>> from exactdp.programs.library import svt4
    >>> exactdp.privacy_loss(svt4(epsilon=1, threshold=0), [1, 0], [0, 1])
    PrivacyLoss(loss=1.03257, output=(False, True), engine='x-form', certified)
    """
    rho = laplace(4 * sensitivity / epsilon)
    b = 4 * sensitivity / (3 * epsilon)  # the query noise's scale (computed once)
    out, count = [], 0
    for a in q:
        if count == c:
            out.append(None)
        elif a + laplace(b) >= threshold + rho:
            out.append(True)
            count += 1
        else:
            out.append(False)
    return tuple(out)


@program(sensitivity=1)
def svt5(q, epsilon, threshold, sensitivity=1):
    """Lyu-Su-Li's Algorithm 5: ``rho ~ Lap(2D/epsilon)``, no query noise, never stops.

    Claimed epsilon-DP; it is not epsilon'-DP for any finite epsilon' (Lyu, Su and Li 2017,
    section 4.2). Equals ``SparseVector(epsilon, threshold, variant=5)``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of bool, shape (m,)
        Whether each answer reaches the noisy threshold ``T + rho``.

    Examples
    --------
    Without query noise, the answers' order is revealed: an infinite loss.

    >>> import exactdp
    >>> from exactdp.programs.library import svt5
    >>> exactdp.privacy_loss(svt5(epsilon=1, threshold=0), [1, 0], [0, 1])
    PrivacyLoss(loss=inf, output=(True, False), engine='x-form', certified)
    """
    rho = laplace(2 * sensitivity / epsilon)
    return tuple(a >= threshold + rho for a in q)


@program(sensitivity=1)
def svt6(q, epsilon, threshold, sensitivity=1):
    """Lyu-Su-Li's Algorithm 6: ``rho ~ Lap(2D/epsilon)``, ``nu_i ~ Lap(2D/epsilon)``,
    never stops.

    Claimed epsilon-DP; it is not epsilon'-DP for any finite epsilon' (Lyu, Su and Li 2017,
    section 4.2: its loss grows with the number of queries). Equals
    ``SparseVector(epsilon, threshold, variant=6)``.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of bool, shape (m,)
        Whether each noisy answer reaches the noisy threshold ``T + rho``.

    Examples
    --------
    The loss grows with the number of answers, past the claimed epsilon = 1:

    >>> import exactdp
    >>> from exactdp.programs.library import svt6
    >>> m = svt6(epsilon=1, threshold=0)
    >>> round(float(exactdp.privacy_loss(m, [1, 0], [0, 1]).loss), 6)
    0.736704
    >>> round(float(exactdp.privacy_loss(m, [1, 0, 1, 0], [0, 1, 0, 1]).loss), 6)
    1.529539
    """
    rho = laplace(2 * sensitivity / epsilon)
    b = 2 * sensitivity / epsilon  # the query noise's scale (computed once)
    return tuple(a + laplace(b) >= threshold + rho for a in q)


@program(sensitivity=1, monotonic=True, counts=("c",))
def svt_monotone(q, epsilon, threshold, c=1, sensitivity=1):
    """The sparse vector technique for monotone queries: Algorithm 1 with query noise
    ``Lap(2cD/epsilon)`` (half of Algorithm 1's), ``rho ~ Lap(2D/epsilon)``.

    Claimed epsilon-DP when all answers move in one direction between neighbours, and it
    is (Lyu, Su and Li 2017, Theorem 2's monotone case; CheckDP's ``svt_increasing.c``).

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    c : int >= 1, default 1
        The number of ``True`` answers before the stop.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (bool or None), shape (m,)
        ``True`` where the noisy answer reaches the noisy threshold, ``False`` below,
        ``None`` after the stop.

    Examples
    --------
    Monotone neighbours (every answer moves down by one):

    >>> import exactdp
    >>> from exactdp.programs.library import svt_monotone
    >>> exactdp.privacy_loss(svt_monotone(epsilon=1, threshold=0), [1, 0], [0, -1])
    PrivacyLoss(loss=0.372325, output=(False, False), engine='x-form',
                certified)
    """
    rho = laplace(2 * sensitivity / epsilon)
    b = 2 * c * sensitivity / epsilon  # the query noise's scale (computed once)
    out, count = [], 0
    for a in q:
        if count == c:
            out.append(None)
        elif a + laplace(b) >= threshold + rho:
            out.append(True)
            count += 1
        else:
            out.append(False)
    return tuple(out)


@program(sensitivity=1)
def above_threshold_discrete(q, epsilon, threshold, sensitivity=1):
    """AboveThreshold (the sparse vector technique with c = 1) with two-sided geometric
    noise: ``rho ~ DLap(2D/epsilon)``, ``nu_i ~ DLap(4D/epsilon)`` on integer answers.

    Claimed epsilon-DP, and it is: Algorithm 1's proof (Lyu, Su and Li 2017, Theorem 2)
    uses only the shift bound ``P(z) <= exp(|s|/b) P(z + s)`` of the noise, which the
    two-sided geometric law meets for integer shifts (Dwork and Roth 2014, section 3.6).

    Parameters
    ----------
    q : sequence of integers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    threshold : rational
        The threshold ``T``.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of (bool or None), shape (m,)
        ``True`` at the first noisy answer reaching the noisy threshold, ``False`` before,
        ``None`` after.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library import above_threshold_discrete
    >>> m = above_threshold_discrete(epsilon=1, threshold=0)
    >>> m.distribution([1, 0]).pmf((True, None))
    exp(1/2)/(1 + exp(1/2))
    >>> exactdp.privacy_loss(m, [1, 0], [0, 1])
    PrivacyLoss(loss=0.393482, output=(False, True), engine='x-form', certified)
    """
    rho = discrete_laplace(2 * sensitivity / epsilon)
    b = 4 * sensitivity / epsilon  # the query noise's scale (computed once)
    out, stopped = [], False
    for a in q:
        if stopped:
            out.append(None)
        elif a + discrete_laplace(b) >= threshold + rho:
            out.append(True)
            stopped = True
        else:
            out.append(False)
    return tuple(out)


# ---------------------------------------------------------------------------- bits and counts
@program(sensitivity=1, adjacency="one", domain=(0, 1), score_domain="integer")
def randomized_response(q, epsilon):
    """Randomized response on bits: each bit is reported flipped with probability
    ``1 / (exp(epsilon) + 1)``.

    Claimed epsilon-DP (one bit changes between neighbours), and it is, tightly (Warner
    1965; Dwork and Roth 2014, section 3.2).

    Parameters
    ----------
    q : sequence of bits (0 or 1), shape (m,)
        The private bits (checked on the scores: ``domain=(0, 1)``, integers).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).

    Returns
    -------
    tuple of int, shape (m,)
        The reported bits.

    Examples
    --------
    The bit 1 is reported as 0 with probability ``1/(e + 1)``; the loss is epsilon:

    >>> import exactdp
    >>> from exactdp.programs.library import randomized_response
    >>> m = randomized_response(epsilon=1)
    >>> m.distribution([1]).pmf((0,))
    1/(1 + E)
    >>> exactdp.privacy_loss(m, [1], [0])
    PrivacyLoss(loss=1, output=(0,), engine='x-form', certified)
    """
    p = 1 / (sympy.exp(epsilon) + 1)
    return tuple(1 - int(a) if bernoulli(p) else int(a) for a in q)


@program(sensitivity=1, adjacency="one", domain=(0, 1), score_domain="integer",
         max_epsilon=1)
def randomized_response_incorrect(q, epsilon):
    """DiPC's incorrect randomized response: each bit flipped with probability
    ``(1 - epsilon) / 2`` (epsilon in (0, 1]).

    Claimed epsilon-DP; it is not: the true level is ``ln((1 + epsilon)/(1 - epsilon))``,
    larger than epsilon (DiPC, LICS 2020, its benchmark inputs).

    Parameters
    ----------
    q : sequence of bits (0 or 1), shape (m,)
        The private bits (checked on the scores: ``domain=(0, 1)``, integers).
    epsilon : rational in (0, 1] or positive sympy Symbol
        The claimed privacy level (a keyword of the factory).

    Returns
    -------
    tuple of int, shape (m,)
        The reported bits.

    Examples
    --------
    At epsilon = 1/2 the loss is ``ln((1 + 1/2)/(1 - 1/2)) = ln 3``:

    >>> import exactdp
    >>> from exactdp.programs.library import randomized_response_incorrect
    >>> m = randomized_response_incorrect(epsilon="1/2")
    >>> exactdp.privacy_loss(m, [1], [0])
    PrivacyLoss(loss=1.09861 (exact: log(3)), output=(0,), engine='x-form',
                certified)
    """
    p = (1 - epsilon) / 2
    return tuple(1 - int(a) if bernoulli(p) else int(a) for a in q)


@program(sensitivity=1, adjacency="one", counts=("n",))
def truncated_geometric(q, epsilon, n, sensitivity=1):
    """The truncated geometric mechanism: the count ``q[0]`` plus two-sided geometric
    noise ``DLap(D/epsilon)``, clamped to ``[0, n]``.

    Claimed epsilon-DP for counts in ``[0, n]`` moving by one, and it is (Ghosh,
    Roughgarden and Sundararajan, "Universally utility-maximizing privacy mechanisms",
    STOC 2009; DP-Sniper's ``TruncatedGeometricMechanism``).

    Parameters
    ----------
    q : sequence of integers, shape (m,)
        The answers; the program reads the count ``q[0]`` only.
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    n : int >= 1
        The largest count (the output's upper clamp).
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    int
        The noisy count, in ``[0, n]``.

    Examples
    --------
    The count 1 is reported unchanged with the two-sided geometric law's weight at 0,
    ``(1 - e^-1)/(1 + e^-1)``; the loss is epsilon:

    >>> import exactdp
    >>> from exactdp.programs.library import truncated_geometric
    >>> m = truncated_geometric(epsilon=1, n=2)
    >>> m.distribution([1]).pmf(1)
    (-1 + E)/(1 + E)
    >>> exactdp.privacy_loss(m, [1], [0])
    PrivacyLoss(loss=1, output=0, engine='x-form', certified)
    """
    v = q[0] + discrete_laplace(sensitivity / epsilon)
    return min(max(v, 0), n)


#: Every program of the library, by name.
PROGRAMS = {
    p.name: p for p in (
        noisy_max_laplace, noisy_max_exponential, svt1, svt2, svt4, svt5, svt6,
        svt_monotone, above_threshold_discrete, randomized_response,
        randomized_response_incorrect, truncated_geometric,
    )
}
