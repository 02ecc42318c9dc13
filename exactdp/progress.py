"""Progress bars on standard error: one policy for every long loop of the package.

A bar shows only where a person waits: standard error is a terminal, the caller did not
pass ``progress=False``, and the loop is long (a cost-model estimate above
:data:`SHOW_SECONDS`, or, without an estimate, still running after :data:`SHOW_SECONDS`:
tqdm's ``delay``). ``progress=True`` shows it at once (on a terminal). tqdm is imported
only when a bar is shown, so a short call and a call in a pipe pay nothing. Off a
terminal, a loop estimated above :data:`LINE_SECONDS` prints one start line with its
estimate instead (:func:`start_line`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from time import process_time
from types import TracebackType
from typing import Any, TypeVar

T = TypeVar("T")

#: The bar's width and screen height on a terminal that reports no size (0 x 0: a
#: pseudo-terminal opened by ``script``, ``docker exec -t`` or an editor's console), where
#: tqdm would draw nothing.
FALLBACK_SIZE = (80, 24)

#: A loop estimated (or found) to take longer than this many seconds shows a bar.
SHOW_SECONDS = 2.0
#: Off a terminal (a pipe, a log) a loop estimated longer than this many seconds prints
#: one line on standard error as it starts, with the estimate (:func:`start_line`).
LINE_SECONDS = 5.0
#: Inside :func:`quiet`: no bar and no start line.
_QUIET: ContextVar[bool] = ContextVar("progress_quiet", default=False)


@contextmanager
def quiet() -> Iterator[None]:
    """No bar and no start line from the loops run inside: a caller told ``progress=False``
    whose inner calls take no ``progress`` (``verification_suite``: its rows' losses).

    Yields
    ------
    None
        Inside the ``with`` block, :func:`shows` is False and :func:`start_line` prints
        nothing; the previous state comes back on leaving it.

    Examples
    --------
    >>> with quiet():
    ...     shows(True, 30.0)
    False
    """
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


class NoBar:
    """The bar that is not shown: ``update`` and the context manager do nothing, but for
    ``pending``, a start line (:func:`start_line`) printed at the first step: a loop whose
    cost checks may still refuse before it starts says nothing if refused."""

    def __init__(self, pending: tuple[str, bool | None, float | None] | None = None) -> None:
        self.pending = pending

    def update(self, n: int = 1) -> None:
        """Print the pending start line, once; nothing to advance."""
        if self.pending is not None:
            pending, self.pending = self.pending, None
            start_line(*pending)

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> NoBar:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        return None


class Steps:
    """Advance a bar by one step per call, at most ``count`` times; :meth:`finish` adds the
    steps left. For a stage whose steps may be skipped or repeated (an engine building the
    probabilities of ``count`` vectors: a form in x per vector, then the exact route again
    when one has none), so the bar moves vector by vector and never overshoots the stage.
    """

    def __init__(self, bar: Any, count: int) -> None:
        self.bar = bar
        self.left = int(count)

    def __call__(self) -> None:
        if self.left > 0:
            self.left -= 1
            self.bar.update(1)

    def finish(self) -> None:
        """The stage is done: the bar takes the steps left at once."""
        if self.left > 0:
            self.bar.update(self.left)
            self.left = 0


def shows(progress: bool | None, seconds: float | None = None) -> bool:
    """Whether a bar is wanted: not ``progress=False`` nor inside :func:`quiet`, standard
    error a terminal, and not an estimate at or below :data:`SHOW_SECONDS` (unless
    ``progress=True``)."""
    if progress is False or _QUIET.get() or not sys.stderr.isatty():
        return False
    return progress is True or seconds is None or seconds > SHOW_SECONDS


def progress_bar(total: int | None, desc: str, *, progress: bool | None = None,
                 seconds: float | None = None, unit: str = "it", deferred: bool = False,
                 line: bool = True) -> Any:
    """A tqdm bar of ``total`` steps on standard error, or a :class:`NoBar`.

    Parameters
    ----------
    total : int or None
        Steps of the loop; None: not known in advance (the bar counts them).
    desc : str
        The bar's label (the function's name).
    progress : bool, optional
        False: never; True: at once (on a terminal); None (default): when long.
    seconds : float, optional
        The cost model's estimate of the loop; None shows the bar only once the loop has
        run :data:`SHOW_SECONDS` (tqdm's ``delay``).
    unit : str
        What one step is.
    deferred : bool
        Off a terminal, print the start line at the first step, not at once (the loop's
        first steps come after checks that may refuse it: ``check_dp``'s engine).
    line : bool
        False: no start line off a terminal (the loop prints its own as it learns its
        cost: the release loss's :class:`~exactdp.programs.release_loss_price.Meter`).
    """
    if not shows(progress, seconds):
        if not line:
            return NoBar()
        if deferred:
            return NoBar((desc, progress, seconds))
        start_line(desc, progress, seconds)
        return NoBar()
    from tqdm import tqdm

    delay = 0.0 if progress is True or seconds is not None else SHOW_SECONDS
    ncols, nrows = (None, None) if all(terminal_size()) else FALLBACK_SIZE
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, delay=delay,
                ncols=ncols, nrows=nrows)


def terminal_size() -> tuple[int, int]:
    """The columns and lines standard error's terminal reports, ``(0, 0)`` when it reports
    none (tqdm would then draw nothing, so :func:`progress_bar` takes
    :data:`FALLBACK_SIZE`).

    Returns
    -------
    tuple of (int, int)
        ``(columns, lines)`` of standard error's terminal; ``(0, 0)`` without a file
        descriptor (a ``StringIO``) or a terminal.
    """
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):  # no file descriptor (a StringIO)
        return (0, 0)
    return (size.columns, size.lines)


def start_line(desc: str, progress: bool | None, seconds: float | None) -> None:
    """One line on standard error when it is not a terminal (no bar there) and the loop is
    estimated above :data:`LINE_SECONDS`, unless ``progress=False``: ``privacy_loss:
    started, about 38 s CPU estimated``, so that a call in a pipe is not silent for a
    minute (as ``exactdp suite`` logs a line per program there).

    Parameters
    ----------
    desc : str
        The loop's label (the function called), first on the line.
    progress : bool or None
        False: never print (as :func:`progress_bar`).
    seconds : float or None
        The cost model's estimate in CPU seconds; None or at most :data:`LINE_SECONDS`:
        nothing printed.
    """
    if (progress is False or seconds is None or seconds <= LINE_SECONDS or _QUIET.get()
            or sys.stderr.isatty()):
        return
    shown = f"{seconds:.0f}" if seconds < 1e5 else f"{seconds:.3g}"  # never 37 digits
    print(f"{desc}: started, about {shown} s CPU estimated", file=sys.stderr, flush=True)


#: Runs timed before a long sampling loop estimates the rest (:func:`repeat`).
PROBE_RUNS = 200


def repeat(step: Callable[[], T], size: int, desc: str, unit: str = "draw") -> list[T]:
    """``[step() for _ in range(size)]``, with a bar or a start line when it is long.

    A loop linear in ``size`` whose step's cost depends on the user's code (a program run
    by its sampler) has no estimate in advance: the first :data:`PROBE_RUNS` steps are
    timed (CPU) and the rest is estimated from them, so ``sample(10**6)`` is not silent
    for a minute.

    Parameters
    ----------
    step : callable
        One step; its results are returned in order.
    size : int
        Number of steps (>= 0).
    desc : str
        The function called, the bar's label (``program.sample``).
    unit : str
        What one step is.

    Returns
    -------
    list
        ``size`` results of ``step``.

    Examples
    --------
    >>> import itertools
    >>> count = itertools.count()
    >>> repeat(lambda: next(count), 4, "demo")
    [0, 1, 2, 3]
    """
    first = min(size, PROBE_RUNS)
    start = process_time()
    out = [step() for _ in range(first)]
    left = size - first
    if not left:
        return out
    seconds = (process_time() - start) / max(first, 1) * left
    chunk = 1000
    with progress_bar(left, desc, seconds=seconds, unit=unit) as bar:
        while left:
            k = min(chunk, left)
            out.extend(step() for _ in range(k))
            left -= k
            bar.update(k)
    return out
