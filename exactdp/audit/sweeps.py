"""Exhaustive sweeps of a check over the integer score vectors, on any executor.

:func:`sweep` runs a user check on every canonical integer score vector
``(0, -g_2, ..., -g_n)`` with ``0 <= g_2 <= ... <= g_n <= gap_max`` and ``2 <= n <= n_max``
(each vector once up to shift and permutation), through any
:class:`concurrent.futures.Executor`: a local process pool by default, or a Dask cluster
through ``dask.distributed.Client.get_executor()`` (the ``dask`` extra). A tqdm progress
bar is shown when standard error is a terminal.

The proofs in :mod:`exactdp.proofs` use it for their exhaustive families.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import math
import os
import pickle
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .._validate import argument_error, check_callable, check_int
from ..printing import latex_math
from ..progress import progress_bar
from ..result import Result, brief


@dataclass(frozen=True)
class SweepResult(Result):
    """Outcome of :func:`sweep`.

    Attributes
    ----------
    cases : int
        Number of score vectors checked.
    failures : tuple of (tuple of int, str)
        ``(scores, detail)`` for every vector whose check returned a false value
        (``detail = "returned False"``) or raised (``detail`` names the exception), in the
        order of :func:`score_vectors`.
    per_second : float
        Vectors checked per second of wall-clock time (``cases / seconds``).
    seconds : float
        Wall-clock time of the sweep, including dispatch to the executor.
    n_max, gap_max : int
        The family swept.
    holds : bool
        True iff the check returned True on every vector (no failures).

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): a verdict, no headline number.
    """

    headline = None

    cases: int
    failures: tuple
    per_second: float
    seconds: float
    n_max: int
    gap_max: int
    #: True iff the check returned True on every vector (no failures).
    holds: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "holds", not self.failures)

    def __bool__(self) -> bool:
        return self.holds

    def repr_parts(self) -> list[str]:
        parts = [f"cases={self.cases}", f"failures={len(self.failures)}",
                 f"n_max={self.n_max}", f"gap_max={self.gap_max}",
                 f"per_second={self.per_second:.3g}"]
        if self.failures:
            parts.append(f"first failure={brief(self.failures[0][0])}")
        return parts

    def _repr_latex_(self) -> str:
        verdict = r"\text{holds}" if self.holds else rf"{len(self.failures)}\ \text{{failures}}"
        return latex_math(
            rf"\text{{sweep}}\ n \le {self.n_max},\ \text{{gaps}} \le {self.gap_max}:\ "
            rf"{self.cases}\ \text{{vectors}},\ {verdict}"
        )


#: Largest family :func:`sweep` enumerates (vectors); beyond it the call is refused up front.
MAX_SWEEP_CASES = 10**7


def count_score_vectors(
    n_max: int, gap_max: int, n_min: int = 2, *, stop: int | None = None,
    func: str = "count_score_vectors",
) -> int:
    """Number of vectors :func:`score_vectors` yields: ``sum_n C(gap_max + n - 1, n - 1)``.

    Multisets of ``n - 1`` gaps from ``gap_max + 1`` values (stars and bars); 70 at
    ``n = 5``, ``gap_max = 4``.
    With ``stop``, counting ends as soon as the total exceeds it (the return value is then
    some number ``> stop``), so huge families are refused without computing their size.
    ``func`` is the function named in error messages (a caller passes its own name).

    Raises
    ------
    ValueError
        If an argument is not an int in range (``n_min >= 1``, ``n_max >= n_min``,
        ``gap_max >= 0``).
    """
    n_min = check_int(func, "n_min", n_min, 1)
    n_max = check_int(func, "n_max", n_max, n_min)
    gap_max = check_int(func, "gap_max", gap_max, 0)
    total = 0
    for n in range(n_min, n_max + 1):
        total += math.comb(gap_max + n - 1, n - 1)
        if stop is not None and total > stop:
            break
    return total


def score_vectors(n_max: int, gap_max: int, n_min: int = 2) -> Iterator[tuple[int, ...]]:
    """Every canonical integer score vector of the family, each once.

    Parameters
    ----------
    n_max : int
        Largest number of outputs (``>= n_min``).
    gap_max : int
        Largest gap ``q* - q_r`` (``>= 0``).
    n_min : int
        Smallest number of outputs (default 2; ``>= 1``).

    Yields
    ------
    tuple of int, shape (n,)
        ``(0, -g_2, ..., -g_n)`` with ``0 <= g_2 <= ... <= g_n <= gap_max``, for
        ``n = n_min, ..., n_max`` in turn. Every integer vector with ``n`` outputs and gaps
        ``<= gap_max`` equals exactly one of them up to a shift and a permutation.

    Raises
    ------
    ValueError
        If an argument is not an int in range.
    """
    n_min = check_int("score_vectors", "n_min", n_min, 1)
    n_max = check_int("score_vectors", "n_max", n_max, n_min)
    gap_max = check_int("score_vectors", "gap_max", gap_max, 0)
    for n in range(n_min, n_max + 1):
        for gaps in itertools.combinations_with_replacement(range(gap_max + 1), n - 1):
            yield (0, *(-g for g in gaps))


def _run_batch(check: Callable, batch: list) -> list:
    """Run ``check`` on each vector; ``None`` on success, else the failure detail."""
    out: list[str | None] = []
    for q in batch:
        try:
            ok = check(q)
        except Exception as exc:  # noqa: BLE001 - a raising check is reported, not fatal
            out.append(f"raised {type(exc).__name__}: {exc}")
            continue
        if ok is True or ok is False or type(ok).__name__ == "bool_":
            out.append(None if ok else "returned False")
        else:
            out.append(f"returned {type(ok).__name__} {ok!r}, not a bool")
    return out


def _batches(vectors: list, size: int) -> list[list]:
    return [vectors[i:i + size] for i in range(0, len(vectors), size)]


def sweep(
    check: Callable[[tuple[int, ...]], bool],
    n_max: int,
    gap_max: int,
    *,
    executor: concurrent.futures.Executor | None = None,
    n_min: int = 2,
    batch_size: int | None = None,
    progress: bool | None = None,
) -> SweepResult:
    """Run ``check`` on every canonical integer score vector, in parallel.

    Parameters
    ----------
    check : callable
        ``check(scores) -> bool`` with ``scores`` a tuple of ints (see
        :func:`score_vectors`). Must be picklable for a process pool or a Dask cluster: a
        module-level function or a :func:`functools.partial` of one. A check that raises
        counts as a failure, with the exception as its detail.
    n_max : int
        Largest number of outputs, ``>= n_min``.
    gap_max : int
        Largest gap ``q* - q_r``, ``>= 0``.
    executor : concurrent.futures.Executor, optional
        Where the checks run. ``None``: a :class:`concurrent.futures.ProcessPoolExecutor`
        with ``os.cpu_count()`` workers, created and shut down here. For a Dask cluster pass
        ``dask.distributed.Client(address).get_executor()``. A given executor is not shut
        down.
    n_min : int
        Smallest number of outputs (default 2).
    batch_size : int, optional
        Vectors per submitted task (default: about 200 tasks in all, at least 1 vector each);
        larger batches cut dispatch overhead for cheap checks.
    progress : bool, optional
        A tqdm bar on standard error (:func:`exactdp.progress.progress_bar`): None (default)
        once the sweep has run 2 s, on a terminal; False never; True at once.

    Returns
    -------
    SweepResult
        ``cases``, ``failures``, ``holds``, ``per_second``.

    Raises
    ------
    ValueError
        If ``check`` is not callable or a size argument is not an int in range.

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> from exactdp import sweep
    >>> with ThreadPoolExecutor(2) as pool:
    ...     res = sweep(max, 3, 2, executor=pool, progress=False)
    >>> res.cases, res.holds     # max(q) = 0 is falsy: every vector fails
    (9, False)
    """
    check_callable("sweep", "check", check)
    count = count_score_vectors(n_max, gap_max, n_min, stop=MAX_SWEEP_CASES, func="sweep")
    if count > MAX_SWEEP_CASES:
        raise ValueError(
            f"sweep: the family n <= {n_max}, gaps <= {gap_max} has more than "
            f"{MAX_SWEEP_CASES:.0e} vectors; choose a smaller n_max or gap_max"
        )
    if executor is None:
        try:
            pickle.dumps(check)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise argument_error(
                "sweep", "check", "picklable for the default process pool (a module-level "
                "function or a functools.partial of one), or pass executor=ThreadPoolExecutor() "
                f"(pickling failed: {exc})", check) from None
    vectors = list(score_vectors(n_max, gap_max, n_min))
    if batch_size is None:
        batch_size = max(1, len(vectors) // 200)
    batch_size = check_int("sweep", "batch_size", batch_size, 1)
    batches = _batches(vectors, batch_size)
    own = executor is None
    pool = executor
    if pool is None:
        pool = concurrent.futures.ProcessPoolExecutor(os.cpu_count() or 1)
    start = time.perf_counter()
    results: dict[int, list] = {}
    try:
        futures = {pool.submit(_run_batch, check, b): i for i, b in enumerate(batches)}
        with progress_bar(len(vectors), f"sweep n<={n_max} gaps<={gap_max}",
                          progress=progress, unit="vec") as bar:
            for fut in concurrent.futures.as_completed(futures):
                i = futures[fut]
                results[i] = fut.result()
                bar.update(len(batches[i]))
    finally:
        if own:
            pool.shutdown()
    seconds = time.perf_counter() - start
    failures = tuple(
        (q, detail)
        for i, batch in enumerate(batches)
        for q, detail in zip(batch, results[i], strict=True)
        if detail is not None
    )
    return SweepResult(
        cases=len(vectors),
        failures=failures,
        per_second=len(vectors) / seconds if seconds > 0 else math.inf,
        seconds=seconds,
        n_max=n_max,
        gap_max=gap_max,
    )
