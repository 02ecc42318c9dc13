"""Choosing the engine for a mechanism and a set of score vectors (x-form, sparse, generic, ball).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import sympy

from ...cost import TooCostly, check_analysis, check_seconds
from ...distribution import Distribution
from ...mechanisms.base import Mechanism
from ...numbers import safe_sympify
from ...pf_cost import PF_NUMERIC_EPSILON, pf_signs_seconds, pf_tree_product_seconds
from ...progress import Steps, progress_bar
from ...scores import ScoreVector
from ...xform import DENSE_DEGREE_LIMIT, exact_pf_size
from ..common import (
    as_mechanism,
    distribution_of,
    exact_probabilities_of,
    mechanism_epsilon,
    mechanism_name,
)
from ..neighbourhood import top_gap
from ..outputs import OutputUnion, PaddedBalls, output_union
from .ball import BallEngine
from .generic import GenericEngine
from .pf_neighbours import pf_lazy_engine
from .sparse import SparseXEngine, check_sparse_epsilon, expands_powers, sparse_poly
from .xform import (
    FlintForms,
    XEngine,
    dense_poly,
    form_terms,
    max_exponent,
    poly_pair,
    xform_of,
)

#: The engines :func:`make_engine` chooses from (``SparseXEngine`` is an ``XEngine``).
Engine = XEngine | GenericEngine | BallEngine

#: The passes of :func:`make_engine` over the vectors, each calling ``step()`` once per
#: vector: the distribution (a program's trace), its capabilities, its exact
#: probabilities (a form in x), their check. A caller's bar takes ``ENGINE_PASSES`` steps
#: per vector for the engine (a :class:`~exactdp.progress.Steps`, whose ``finish`` tops up
#: a pass the route skips).
ENGINE_PASSES = 4


def _needs_balls(dists: Sequence, step: Callable[[], None] = lambda: None) -> bool:
    """True iff some distribution has no exact probabilities but every one offers balls
    (read from their capabilities; ``step()`` after each distribution's)."""
    caps = []
    for d in dists:
        caps.append(d.capabilities)
        step()
    return any("exact" not in c for c in caps) and all("balls" in c for c in caps)


def xform_probabilities(xforms: list, func: str, dense_only: bool):
    """``(N, probs, degree, sparse)`` of the x-form engine for these x-forms.

    The degree in ``x = exp(-epsilon/N)`` decides the representation: up to
    :data:`exactdp.xform.DENSE_DEGREE_LIMIT` dense flint ``fmpq_poly`` pairs, beyond it
    sparse sympy ring elements (a gap of 10**300 is one term, not 10**300 coefficients).
    """
    N = 1
    for _, _, kappa in xforms:
        N = math.lcm(N, int(kappa.q))
    powers = [int(N * kappa) for _, _, kappa in xforms]
    flint_only = all(isinstance(forms, FlintForms) for _, forms, _ in xforms)
    if flint_only:  # no sympy at all (PF, EM, RNM-exponential, the optimal mechanism)
        degree = max(forms.degree(pw) for (_, forms, _), pw in zip(xforms, powers, strict=True))
        if degree <= DENSE_DEGREE_LIMIT:
            probs = [forms.dense(pw) for (_, forms, _), pw in zip(xforms, powers, strict=True)]
            return N, probs, degree, False
    terms = [
        forms.terms(pw) if isinstance(forms, FlintForms) else [form_terms(f, x, pw) for f in forms]
        for (x, forms, _), pw in zip(xforms, powers, strict=True)
    ]
    degree = 0
    for (x, forms, _), pw, ts in zip(xforms, powers, terms, strict=True):
        for f, t in zip(forms, ts, strict=True):
            if t is None:
                degree = max(degree, max_exponent(safe_sympify(f), x) * pw)
            else:
                degree = max([degree, *t[0], *t[1]])
    if degree <= DENSE_DEGREE_LIMIT:
        probs = [
            forms.dense(pw) if isinstance(forms, FlintForms) else [
                (dense_poly(t[0]), dense_poly(t[1]))
                if t is not None and t[2]
                else poly_pair(f, x, pw)
                for f, t in zip(forms, ts, strict=True)
            ]
            for (x, forms, _), pw, ts in zip(xforms, powers, terms, strict=True)
        ]
        return N, probs, degree, False
    if dense_only:
        raise TooCostly(
            f"{func}: the score gaps make the probabilities polynomials of degree {degree} in "
            f"x = exp(-epsilon/{N}), above exactdp.xform.DENSE_DEGREE_LIMIT = "
            f"{DENSE_DEGREE_LIMIT}; exact root isolation on (0, 1) needs dense polynomials, "
            "so no certificate for every epsilon is given for such gaps. Use privacy_loss or "
            "check_dp at a numeric epsilon (exact, sparse arithmetic)"
        )
    if any(t is None for ts in terms for t in ts):
        raise ValueError(
            f"{func}: a probability is not a sparse rational function of "
            f"x = exp(-epsilon/{N}) that exactdp can handle at degree {degree} "
            f"(above DENSE_DEGREE_LIMIT = {DENSE_DEGREE_LIMIT})"
        )
    probs = [[(sparse_poly(t[0]), sparse_poly(t[1])) for t in ts] for ts in terms]
    return N, probs, degree, True


def output_count(dist: Distribution, sv: ScoreVector) -> int:
    """Number of outputs of a distribution: ``len(dist.outputs)`` (one per score for a
    selection, the ordered k-tuples for top-k)."""
    return len(dist.outputs)


def _refuse_expanded_powers(xf, eps: sympy.Expr, func: str) -> None:
    """Refuse (ValueError, :func:`~exactdp.analysis.engines.sparse.check_sparse_epsilon`)
    at the first vector's x-form when it is already sparse at an epsilon whose powers of
    ``x`` sympy expands: the engine of every vector, of degree at least this one's, would
    be refused after all of them (RNM at log(3) on 6 scores, one of -1e20: 7-14 s CPU)."""
    N, _, _, sparse = xform_probabilities([xf], func, False)
    if sparse:
        try:
            check_sparse_epsilon(eps, N, sympy.exp(-eps / N))
        except ValueError as exc:
            raise ValueError(f"{func}: {exc}") from exc


def _exact_engine(mech: Mechanism, eps, dists: list, vectors: Sequence[ScoreVector], func: str,
                  dense_only: bool, step: Callable[[], None] = lambda: None
                  ) -> XEngine | GenericEngine:
    """The x-form engine when every distribution has a form in x, else the generic one
    (``step()`` after each vector's probabilities: a progress bar's)."""
    xforms: list | None = None
    engine: XEngine | GenericEngine
    # PF: balls, exact polynomials on demand
    lazy = pf_lazy_engine(mech, eps, vectors, DENSE_DEGREE_LIMIT)
    if lazy is not None:
        return lazy
    if eps is not None and not eps.has(sympy.oo):
        xforms = []
        for d in dists:
            xf = xform_of(d, eps)
            if xf is None:
                xforms = None
                break
            xforms.append(xf)
            step()
            if len(xforms) == 1 and expands_powers(eps, 1):
                _refuse_expanded_powers(xf, eps, func)  # at once, not after every vector
    if xforms is not None:
        N, probs, degree, sparse = xform_probabilities(xforms, func, dense_only)
        if all(len(p) == output_count(d, v)
               for p, d, v in zip(probs, dists, vectors, strict=True)):
            if sparse:
                try:
                    engine = SparseXEngine(eps, N, probs)
                except ValueError as exc:
                    raise ValueError(f"{func}: {exc}") from exc
                engine.func = func
            else:
                engine = XEngine(eps, N, probs)
                # thousands of answer sequences: their ratios term by term, not by cancel
                engine.canonical_sympy = mech.output_kind != "sequence"
        else:
            xforms = None
    if xforms is None:
        probs = []
        for d in dists:
            probs.append(list(exact_probabilities_of(d, func, mech)))
            step()
        engine = GenericEngine(eps, probs)
    return engine


def pf_tree_gaps(mech: object, vectors: Sequence[ScoreVector]) -> list[tuple[int, ...]]:
    """The distinct sorted integer-gap tuples ``G`` whose permute-and-flip product tree
    ``mech`` builds on ``vectors`` (empty unless ``mech`` declares ``product_tree`` (PF)
    and the scores are rational; gaps beyond :data:`exactdp.xform.DENSE_DEGREE_LIMIT` take
    the sparse ring route)."""
    if not as_mechanism(mech).product_tree or not all(v.is_rational for v in vectors):
        return []
    seen: set[tuple[int, ...]] = set()
    for v in vectors:
        G = tuple(sorted(v.integer_gaps()[1]))
        if len(G) > 1 and G[-1] <= DENSE_DEGREE_LIMIT:
            seen.add(G)
    return sorted(seen)


def pf_trees_seconds(trees: Sequence[tuple[int, ...]]) -> float:
    """Estimated CPU seconds of permute-and-flip's exact product trees, one per gap tuple.

    Parameters
    ----------
    trees : sequence of tuple of int
        The gap tuples (:func:`pf_tree_gaps`), each of length ``n``.

    Returns
    -------
    float
        The sum of :func:`exactdp.pf_cost.pf_tree_product_seconds` over the trees.

    Examples
    --------
    >>> pf_trees_seconds([(1,) + (0,) * 59]) < 1
    True
    """
    return sum(pf_tree_product_seconds(len(G), exact_pf_size(G)) for G in trees)


def pf_signs_estimate(mech: object, vectors: Sequence[ScoreVector]) -> float:
    """Estimated seconds of the exact signs on ``(0, 1)`` a symbolic epsilon asks of
    permute-and-flip's polynomials on ``vectors`` (:func:`exactdp.pf_cost.pf_signs_seconds`
    per vector); 0.0 at a numeric epsilon (balls decide there) or without product trees.

    Examples
    --------
    >>> import sympy, exactdp
    >>> from exactdp.scores import as_scores
    >>> pf = exactdp.PermuteAndFlip(sympy.Symbol("epsilon", positive=True))
    >>> round(pf_signs_estimate(pf, [as_scores([*range(11), 1000])]), 1)
    18.0
    >>> pf_signs_estimate(exactdp.PermuteAndFlip(1), [as_scores([*range(11), 1000])])
    0.0
    """
    eps = mechanism_epsilon(mech)
    if eps is None or not eps.free_symbols:
        return 0.0
    return sum(pf_signs_seconds(len(G), sum(G)) for v in vectors for G in pf_tree_gaps(mech, [v]))


def check_pf_trees(func: str, mech: object, vectors: Sequence[ScoreVector]) -> None:
    """Refuse when the exact PF polynomials of ``vectors`` would take over the limit: one
    product tree per distinct gap tuple (:func:`pf_tree_gaps`), each estimated by
    :func:`exactdp.pf_cost.pf_tree_product_seconds`. That is the worst case of the
    neighbour route (:func:`~exactdp.analysis.engines.pf_neighbours.pf_lazy_engine`), which
    forms a vector's polynomials only where the balls leave a comparison open: ``check_dp``
    of PF(1) on ``0..59`` is estimated at 31 s and took 0.15 s (docs/benchmarks.md).

    At a symbolic epsilon the exact signs of those polynomials on ``(0, 1)`` are priced
    too (:func:`pf_signs_estimate`), the cheaper route a numeric epsilon.

    Raises
    ------
    exactdp.cost.TooCostly
        Naming ``func``, the estimate and the cheaper routes.
    """
    trees = pf_tree_gaps(mech, vectors)
    if trees:
        check_seconds(
            func, f"the exact permute-and-flip polynomials of {len(vectors)} score vectors "
            f"of n = {vectors[0].n} outputs (degree about n times the gaps)",
            pf_trees_seconds(trees),
            "pass the one neighbour to check (neighbour=...), analyse fewer scores, or "
            "compare the float64 views (mechanism.distribution(q).to_numpy())")
    check_seconds(func, f"the exact signs on (0, 1) of the permute-and-flip polynomials of "
                  f"{len(vectors)} score vectors at a symbolic epsilon (degree about twice "
                  "the total gap)", pf_signs_estimate(mech, vectors), PF_NUMERIC_EPSILON)


def _shared_signature(probs: list) -> tuple | None:
    """``((id(num), id(den)), count)`` of a vector's ``(num, den)`` pairs, sorted, or None
    (not plain pairs). Two vectors with one signature hold the very same polynomial objects
    the same number of times, so the exact sum-to-1 and sign tests pass or fail alike (a
    mechanism whose forms are shared between neighbours with one gap multiset: EM)."""
    counts: dict[tuple[int, int], int] = {}
    for pair in probs:
        if type(pair) is not tuple:
            return None
        key = (id(pair[0]), id(pair[1]))
        counts[key] = counts.get(key, 0) + 1
    return tuple(sorted(counts.items()))


def make_engine(
    mech: object,
    vectors: Sequence[ScoreVector],
    func: str,
    check: bool = True,
    dense_only: bool = False,
    step: Callable[[], None] | None = None,
) -> Engine:
    """One engine holding the probabilities of ``mech`` on every vector.

    The x-form engine when every probability is rational in ``exp(-eps/N)`` (dense flint
    polynomials up to degree :data:`exactdp.xform.DENSE_DEGREE_LIMIT`, sparse ones beyond;
    ``dense_only=True`` raises ValueError instead of going sparse), else the generic
    (exact sympy) engine; the ball engine only when some distribution has no exact
    probabilities and every one offers balls (the capabilities of the distributions, see
    ``exactdp.mechanisms.CAPABILITIES``). ``step()`` is called after each vector's exact
    probabilities (a progress bar's :class:`~exactdp.progress.Steps`) in each of its
    :data:`ENGINE_PASSES` passes over the vectors (at most that many times per vector);
    without one, a bar of its own (``ENGINE_PASSES`` steps per vector) shows when the
    mechanism's estimate (``mech.analysis_seconds``) passes 2 s.

    A sequence mechanism (output kind ``"sequence"``) may reach different outputs on
    different vectors (a program's output decided without noise, or by a coin of
    probability 0 or 1): the engine's probabilities are then aligned over the union of the
    outputs (:func:`exactdp.analysis.outputs.output_union`), by output value, an output a
    vector does not reach having probability exactly 0 there; ``engine.outputs`` is the
    outputs ``engine.probs[i][r]`` indexes on every vector (top-k: the ordered tuples; None
    for the other kinds).
    """
    mech = as_mechanism(mech, func)
    if mech.output_kind == "release":
        raise ValueError(f"{func}: {mechanism_name(mech)} releases real values (output kind "
                         "'release'): no probability table to run on; privacy_loss and "
                         "check_dp give the exact supremum of the log density ratio")
    check_analysis(func, len(vectors), vectors[0].n, top_gap(vectors[0]))
    check_pf_trees(func, mech, vectors)
    mech.check_cost(func, vectors)  # its own estimate (top-k tuples, answer sequences)
    if step is None:  # a bar of its own over the vectors, when the estimate is long
        steps = ENGINE_PASSES * len(vectors)
        seconds = max(mech.analysis_seconds(vectors), pf_signs_estimate(mech, vectors))
        with progress_bar(steps, func, seconds=seconds, unit="step") as bar:
            own = Steps(bar, steps)
            made = make_engine(mech, vectors, func, check, dense_only, own)
            own.finish()
            return made
    eps = mechanism_epsilon(mech)
    dists = []
    for v in vectors:  # a program's trace: most of its time
        dists.append(distribution_of(mech, v))
        step()
    sequence = mech.output_kind == "sequence"
    union = output_union([d.outputs for d in dists]) if sequence else None
    balls = dists if union is None else [PaddedBalls(d, union, i) for i, d in enumerate(dists)]
    engine: Engine
    if _needs_balls(dists, step):
        engine = BallEngine(balls, func, mechanism_name(mech))
    else:
        try:
            engine = _exact_engine(mech, eps, dists, vectors, func, dense_only, step)
        except TooCostly:  # the exact route refused by size: balls when every one has them
            if dense_only or not all("balls" in d.capabilities for d in dists):
                raise
            engine = BallEngine(balls, func, mechanism_name(mech))
        if union is not None and not isinstance(engine, BallEngine):
            zero = engine.zero()  # one shared object: outputs a vector does not reach
            engine.probs = [union.align(i, p, zero) for i, p in enumerate(engine.probs)]
    if sequence:
        engine.outputs = dists[0].outputs if union is None else union.outputs
    elif mech.output_kind == "top-k":  # ordered tuples, the same on every vector
        engine.outputs = dists[0].outputs
    _check_engine(engine, mech, dists, vectors, func, union, check, step)
    return engine


def _check_engine(engine: Engine, mech: Mechanism, dists: list,
                  vectors: Sequence[ScoreVector], func: str, union: OutputUnion | None,
                  check: bool,
                  step: Callable[[], None]) -> None:
    """Raise ValueError when a vector's probabilities miss outputs, or (``check``) do not
    sum to 1 or have a negative one (once per shared signature, see
    :func:`_shared_signature`); ``step()`` after each vector."""
    name = mechanism_name(mech)
    checked: dict[tuple, list] = {}  # signature -> the probabilities it passed on (kept alive)
    for i, (p, d, v) in enumerate(zip(engine.probs, dists, vectors, strict=True)):
        count = output_count(d, v) if union is None else len(union.outputs)
        if len(p) != count:
            raise ValueError(
                f"{func}: {name} returned {len(p)} probabilities for "
                f"{output_count(d, v)} outputs ({v.n} scores)"
            )
        sig = _shared_signature(p) if check else None
        if check and (sig is None or sig not in checked):
            engine.check_normalised(i, func, name, v.values)
            if sig is not None:
                checked[sig] = p
        step()
