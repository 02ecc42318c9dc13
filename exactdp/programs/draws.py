"""The draws a program may make: one fresh, independent noise (or coin) per call.

Each returns a noisy value (or, for :func:`bernoulli`, a branch) to the program being run;
outside a program each raises :class:`~exactdp.programs.values.ProgramError`. The laws and
their exact integrals are in :mod:`exactdp.programs.integrate_stars`; docs/programs.md
states the semantics.
"""

from __future__ import annotations

from typing import Any

from .values import active


def laplace(scale: object) -> Any:
    """A Laplace noise centred at 0: density ``exp(-|z|/b) / (2b)`` of scale ``b > 0``.

    Parameters
    ----------
    scale : exact number or sympy expression
        ``b``, provably positive and finite: a rational or an expression of the program's
        parameters (a symbolic epsilon is allowed); no float.

    Returns
    -------
    noisy value
        ``0 + Z``, to be added to data terms and compared (linearly) inside the program.

    Raises
    ------
    ProgramError
        Called outside a program, or a scale that is a float, depends on a noise, or is not
        provably positive and finite: one line naming the program's line.

    References
    ----------
    C. Dwork, F. McSherry, K. Nissim and A. Smith, "Calibrating noise to sensitivity in
    private data analysis", TCC 2006 (the Laplace mechanism).

    Examples
    --------
    >>> from exactdp.programs import program, laplace
    >>> @program(adjacency="one")
    ... def above(q, epsilon):
    ...     return q[0] + laplace(1 / epsilon) >= 1
    >>> above(epsilon=1).distribution([0]).probabilities
    (exp(-1)/2, 1 - exp(-1)/2)
    """
    return active("laplace").draw("laplace", scale)


def exponential(scale: object) -> Any:
    """A one-sided exponential noise: density ``exp(-z/b) / b`` for ``z >= 0``, mean ``b > 0``.

    Parameters
    ----------
    scale : exact number or sympy expression
        ``b``, provably positive and finite (see :func:`laplace`).

    Returns
    -------
    noisy value
        ``0 + Z``, used linearly inside the program.

    Raises
    ------
    ProgramError
        As :func:`laplace`.

    References
    ----------
    R. McKenna and D. Sheldon, "Permute-and-flip: a new mechanism for differentially private
    selection", NeurIPS 2020 (report-noisy-max with exponential noise is permute-and-flip).

    Examples
    --------
    >>> from exactdp.programs import program, exponential
    >>> @program(adjacency="one")
    ... def above(q, epsilon):
    ...     return q[0] + exponential(1 / epsilon) >= 1
    >>> above(epsilon=1).distribution([0]).probabilities
    (exp(-1), 1 - exp(-1))
    """
    return active("exponential").draw("exponential", scale)


def discrete_laplace(scale: object) -> Any:
    """A two-sided geometric noise on the integers: ``P(k)`` proportional to ``exp(-|k|/b)``.

    Comparisons with it are point constraints on the integers (docs/programs.md pins the
    ``>=`` versus ``>`` rule); the probabilities are geometric sums, rational in
    ``exp(-1/b)``.

    Parameters
    ----------
    scale : exact number or sympy expression
        ``b > 0``, provably positive and finite (see :func:`laplace`).

    Returns
    -------
    noisy value
        ``0 + K`` with ``K`` an integer.

    Raises
    ------
    ProgramError
        As :func:`laplace`.

    References
    ----------
    A. Ghosh, T. Roughgarden and M. Sundararajan, "Universally utility-maximizing privacy
    mechanisms", STOC 2009; C. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for
    differential privacy", NeurIPS 2020, section 2.

    Examples
    --------
    >>> from exactdp.programs import program, discrete_laplace
    >>> @program(adjacency="one")
    ... def above(q, epsilon):
    ...     return q[0] + discrete_laplace(1 / epsilon) >= 1
    >>> above(epsilon=1).distribution([0]).probabilities   # sum_{k>=1} e^-k / sum_k e^-|k|
    (1/(1 + E), E/(1 + E))
    """
    return active("discrete_laplace").draw("discrete_laplace", scale)


def gumbel(scale: object) -> Any:
    """A Gumbel noise of scale ``b > 0`` (CDF ``exp(-exp(-z/b))``), inside ``argmax`` or
    ``argmin`` only.

    Report-noisy-max with Gumbel noise of scale ``b`` is the exponential mechanism at
    ``1/b`` (the Gumbel-max trick), which is what the engine integrates.

    Parameters
    ----------
    scale : exact number or sympy expression
        ``b``, provably positive and finite (see :func:`laplace`).

    Returns
    -------
    noisy value
        To be passed to :func:`~exactdp.programs.builtins.argmax` or
        :func:`~exactdp.programs.builtins.argmin`; compared anywhere else, a one-line refusal.

    Raises
    ------
    ProgramError
        As :func:`laplace`; a Gumbel value compared outside ``argmax`` / ``argmin``.

    References
    ----------
    E. J. Gumbel, *Statistical theory of extreme values*, 1954; F. McSherry and K. Talwar,
    "Mechanism design via differential privacy", FOCS 2007 (the exponential mechanism).

    Examples
    --------
    >>> from exactdp.programs import program, argmax, gumbel
    >>> @program(output="selection")
    ... def rnm_gumbel(q, epsilon):
    ...     return argmax([a + gumbel(2 / epsilon) for a in q])
    >>> rnm_gumbel(epsilon=1).distribution([0, 1]).probabilities
    (1/(1 + exp(1/2)), exp(1/2)/(1 + exp(1/2)))
    """
    return active("gumbel").draw("gumbel", scale)


def bernoulli(p: object) -> bool:
    """A coin: True with probability ``p``; the run forks into both branches, weighted
    ``p`` and ``1 - p``.

    Parameters
    ----------
    p : exact number or sympy expression
        In ``[0, 1]``, provably so for a symbolic epsilon; no float.

    Returns
    -------
    bool
        The branch of the run being traced (under ``sample``, a random coin).

    Raises
    ------
    ProgramError
        Called outside a program, or ``p`` a float or not provably in ``[0, 1]``: one line
        naming the program's line.

    References
    ----------
    S. L. Warner, "Randomized response", JASA 1965 (the coin of randomized response).

    Examples
    --------
    >>> import sympy
    >>> from exactdp.programs import program, bernoulli
    >>> @program(adjacency="one", domain=(0, 1))
    ... def randomized_response(q, epsilon):
    ...     truth = bernoulli(sympy.exp(epsilon) / (1 + sympy.exp(epsilon)))
    ...     return q[0] == 1 if truth else q[0] != 1
    >>> d = randomized_response(epsilon=1).distribution([1])
    >>> d.outputs, [sympy.simplify(p) for p in d.probabilities]
    ((True, False), [E/(1 + E), 1/(1 + E)])
    """
    return active("bernoulli").bernoulli(p)
