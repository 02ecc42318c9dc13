"""The field's benchmark programs that add noise to answers and release the sums: the
Laplace mechanism and its parallel copies, the histograms, the partial and prefix sums and
SmartSum, with their incorrect twins, in the program language.

Each is declared ``@program(adjacency="one", output="release")``
(:mod:`exactdp.programs.release`): neighbouring inputs differ in one answer, by at most the
sensitivity ``D``. Each cites its source and states the privacy level its authors claim
(and whether it holds). Laplace scales ``b`` have density ``exp(-|z|/b) / (2b)``. The
release programs of :mod:`exactdp.programs.library_release` (the sparse vector and noisy
max families) and these share one registry,
:data:`exactdp.programs.library_release.PROGRAMS`.

Each program is a factory (:func:`~exactdp.programs.program`): its keywords
(``prefix_sum(epsilon=1)``) make a mechanism, whose methods take the answers ``q``. A
program's Parameters and Returns describe one run of the function as written;
``sensitivity`` is ``D``, reserved (set by ``@program(sensitivity=...)``). A bad keyword
(epsilon not > 0, a count below 1, a missing or unknown one) raises a one-line
``ValueError`` when the mechanism is made (:class:`~exactdp.programs.Program`).

References
----------
C. Dwork, F. McSherry, K. Nissim and A. Smith, "Calibrating noise to sensitivity in
private data analysis", TCC 2006 (the Laplace mechanism, histograms). B. Bichsel et al.,
"DP-Sniper", IEEE S&P 2021 (the histogram with the wrong scale, LaplaceParallel). T.-H. H.
Chan, E. Shi and D. Song, "Private and continual release of statistics", ACM TISSEC 14(3),
2011 (SmartSum). Y. Wang, Z. Ding, D. Kifer and D. Zhang, "CheckDP", CCS 2020 (the
incorrect twins of the partial sum and SmartSum).
"""

from __future__ import annotations

from .draws import laplace
from .language import program


@program(sensitivity=1, adjacency="one", output="release")
def laplace_mechanism(q, epsilon, sensitivity=1):
    """The Laplace mechanism on the first answer: ``q_0 + Lap(D/epsilon)``.

    Claimed epsilon-DP, and it is, tightly (Dwork et al. 2006): the loss of ``q`` against
    ``q + D e_0`` is exactly epsilon, attained by every value beyond both answers.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers (given to the mechanism's methods); the program reads ``q[0]`` only.
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    real
        The noisy first answer.

    Examples
    --------
    The density of ``3 + Lap(1)`` at 3 is ``1/2``; the loss of 3 against 4 is epsilon:

    >>> import exactdp
    >>> from exactdp.programs.library_sums import laplace_mechanism
    >>> m = laplace_mechanism(epsilon=1)
    >>> m.distribution([3]).density(3)
    1/2
    >>> r = exactdp.privacy_loss(m, [3], [4])
    >>> r.loss, r.attained
    (1, True)
    """
    return q[0] + laplace(sensitivity / epsilon)


@program(sensitivity=1, adjacency="one", output="release")
def histogram(q, epsilon, sensitivity=1):
    """The noisy histogram: every ``a_i + Lap(D/epsilon)``.

    Claimed epsilon-DP under ``"one"`` adjacency (one count moves), and it is, tightly.

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
    tuple of real, shape (m,)
        The noisy answers.

    Examples
    --------
    The density at the answers themselves is ``(1/2)^2``; one count moving costs epsilon:

    >>> import exactdp
    >>> from exactdp.programs.library_sums import histogram
    >>> m = histogram(epsilon=1)
    >>> m.distribution([1, 0]).density((1, 0))
    1/4
    >>> exactdp.privacy_loss(m, [1, 0], [1, 1]).loss
    1
    """
    return tuple(a + laplace(sensitivity / epsilon) for a in q)


@program(sensitivity=1, adjacency="one", output="release")
def histogram_wrong_scale(q, epsilon, sensitivity=1):
    """The noisy histogram with the scale inverted: every ``a_i + Lap(epsilon)`` (D = 1).

    Claimed epsilon-DP; it is not: its true level is ``D / epsilon`` (DP-Sniper's
    ``HistogramMechanism`` at the wrong scale; PROGRAMS.md).

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
    tuple of real, shape (m,)
        The noisy answers.

    Examples
    --------
    At epsilon = 1/2 the noise is ``Lap(1/2)``: the loss is ``D / epsilon = 2``:

    >>> import exactdp
    >>> from exactdp.programs.library_sums import histogram_wrong_scale
    >>> exactdp.privacy_loss(histogram_wrong_scale(epsilon="1/2"), [1, 0], [1, 1]).loss
    2
    """
    return tuple(a + laplace(epsilon) for a in q)


@program(sensitivity=1, adjacency="one", output="release", counts=("copies",))
def laplace_parallel(q, epsilon, copies=20, sensitivity=1):
    """``copies`` independent Laplace mechanisms on the first answer, each at
    ``epsilon / copies``: ``q_0 + Lap(copies D / epsilon)``, ``copies`` times (DP-Sniper's
    ``LaplaceParallel``, 20 copies).

    Claimed epsilon-DP, and it is, tightly (basic composition; each copy costs
    ``epsilon / copies``).

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers (given to the mechanism's methods); the program reads ``q[0]`` only.
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    copies : int >= 1, default 20
        The number of copies.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of real, shape (copies,)
        The noisy first answers.

    Examples
    --------
    Two copies of ``Lap(2)``: the density at the answer is ``(1/4)^2``; the loss is epsilon:

    >>> import exactdp
    >>> from exactdp.programs.library_sums import laplace_parallel
    >>> m = laplace_parallel(epsilon=1, copies=2)
    >>> m.distribution([0]).density((0, 0))
    1/16
    >>> exactdp.privacy_loss(m, [0], [1]).loss
    1
    """
    return tuple(q[0] + laplace(copies * sensitivity / epsilon) for _ in range(copies))


@program(sensitivity=1, adjacency="one", output="release")
def partial_sum(q, epsilon, sensitivity=1):
    """The noisy sum ``sum(q) + Lap(D/epsilon)``.

    Claimed epsilon-DP under ``"one"`` adjacency, and it is, tightly.

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
        The noisy sum.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.programs.library_sums import partial_sum
    >>> m = partial_sum(epsilon=1)
    >>> m.distribution([1, 2]).density(3)
    1/2
    >>> exactdp.privacy_loss(m, [1, 0], [1, 1]).loss
    1
    """
    return sum(q) + laplace(sensitivity / epsilon)


@program(sensitivity=1, adjacency="one", output="release")
def bad_partial_sum(q, epsilon, sensitivity=1):
    """The noisy sum with half the noise: ``sum(q) + Lap(D/(2 epsilon))``.

    Claimed epsilon-DP; it is not: its true level is ``2 epsilon`` (PROGRAMS.md).

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
        The noisy sum.

    Examples
    --------
    The density of ``Lap(1/2)`` at 0 is 1; the loss is ``2 epsilon``:

    >>> import exactdp
    >>> from exactdp.programs.library_sums import bad_partial_sum
    >>> m = bad_partial_sum(epsilon=1)
    >>> m.distribution([1, 2]).density(3)
    1
    >>> exactdp.privacy_loss(m, [1, 0], [1, 1]).loss
    2
    """
    return sum(q) + laplace(sensitivity / (2 * epsilon))


@program(sensitivity=1, adjacency="one", output="release")
def prefix_sum(q, epsilon, sensitivity=1):
    """The running sums of ``a_i + Lap(D/epsilon)``: ``(s_1, ..., s_m)``, ``s_j = sum_{i <=
    j} (a_i + nu_i)`` (an invertible triangular map of independent noises).

    Claimed epsilon-DP under ``"one"`` adjacency, and it is (the sums are a function of the
    noisy histogram). Its density is exact (each sum fixes one more noise), and so is its
    loss (the sums are a triangular map of free noises): epsilon when an answer moves by D.

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
    tuple of real, shape (m,)
        The noisy running sums.

    Examples
    --------
    Both noises 0 at ``(1, 3)`` on ``(1, 2)``: the density is ``(1/2)^2``:

    >>> import exactdp
    >>> from exactdp.programs.library_sums import prefix_sum
    >>> m = prefix_sum(epsilon=1)
    >>> m.distribution([1, 2]).density((1, 3))
    1/4
    >>> exactdp.privacy_loss(m, [1, 0], [1, 1]).loss
    1
    """
    out, total = [], 0
    for a in q:
        total = total + a + laplace(sensitivity / epsilon)
        out.append(total)
    return tuple(out)


@program(sensitivity=1, adjacency="one", output="release", counts=("block",))
def smart_sum(q, epsilon, block=2, sensitivity=1):
    """SmartSum, the two-level running sum (Chan, Shi and Song, "Private and continual
    release of statistics", ACM TISSEC 14(3), 2011; the benchmark of LightDP, ShadowDP and
    CheckDP's ``smartsum.c``): at step i it releases the noisy running sum, built from one
    noisy total per finished block of ``block`` answers and one noisy answer per step of
    the current block, every noise ``Lap(2D/epsilon)``.

    Claimed epsilon-DP under ``"one"`` adjacency, and it is: an answer enters one noisy
    answer and one noisy block total (CheckDP's version draws ``Lap(1/epsilon')`` and
    checks ``2 epsilon'``: here ``epsilon = 2 epsilon'``). The released sums are an
    invertible triangular map of the noises (each step adds one).

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    block : int >= 1, default 2
        The block length.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of real, shape (m,)
        The noisy running sums.

    Examples
    --------
    The second answer enters one noisy block total only (``epsilon / 2``); the first enters
    two noisy values (epsilon):

    >>> import exactdp
    >>> from exactdp.programs.library_sums import smart_sum
    >>> m = smart_sum(epsilon=1)
    >>> exactdp.privacy_loss(m, [1, 0], [1, 1]).loss
    1/2
    >>> exactdp.privacy_loss(m, [0, 0], [1, 0]).loss
    1
    """
    out, total, within, partial = [], 0, 0, 0
    for i, a in enumerate(q):
        if (i + 1) % block == 0:
            total = total + within + a + laplace(2 * sensitivity / epsilon)
            within, partial = 0, total
        else:
            partial = partial + a + laplace(2 * sensitivity / epsilon)
            within = within + a
        out.append(partial)
    return tuple(out)


@program(sensitivity=1, adjacency="one", output="release", counts=("block",))
def bad_smart_sum(q, epsilon, block=2, sensitivity=1):
    """:func:`smart_sum` without noise on the block totals (CheckDP's ``badsmartsum``:
    noise 0 at the block's end).

    Claimed epsilon-DP; it is not: at the end of a block it releases the exact running sum
    (a point mass): an infinite loss on any pair whose running sums differ there.

    Parameters
    ----------
    q : sequence of numbers, shape (m,)
        The answers ``a_i`` (given to the mechanism's methods: ``m.distribution(q)``).
    epsilon : positive rational or positive sympy Symbol
        The claimed privacy level (a keyword of the factory, as every parameter below).
    block : int >= 1, default 2
        The block length.
    sensitivity : rational, default 1
        ``D`` (reserved: set by ``@program(sensitivity=...)``, not a keyword).

    Returns
    -------
    tuple of real, shape (m,)
        The noisy running sums.

    Examples
    --------
    The block's total is exact (the pattern ``(REAL, 1)`` on ``(1, 0)``):

    >>> import exactdp
    >>> from exactdp.programs.library_sums import bad_smart_sum
    >>> m = bad_smart_sum(epsilon=1)
    >>> m.distribution([1, 0]).outputs
    ((REAL, 1),)
    >>> exactdp.privacy_loss(m, [1, 0], [1, 1]).loss
    oo
    """
    out, total, within, partial = [], 0, 0, 0
    for i, a in enumerate(q):
        if (i + 1) % block == 0:
            total = total + within + a
            within, partial = 0, total
        else:
            partial = partial + a + laplace(2 * sensitivity / epsilon)
            within = within + a
        out.append(partial)
    return tuple(out)
