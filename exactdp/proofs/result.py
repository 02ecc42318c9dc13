"""The structured result every proof module's ``verify()`` returns."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..audit.sweeps import sweep
from ..printing import latex_math, math_text
from ..result import Result


@dataclass(frozen=True)
class ProofResult(Result):
    """Outcome of one proof module's ``verify()``.

    Attributes
    ----------
    name : str
        The module's name (``exactdp.proofs.<name>``; ``exactdp prove <name>``).
    statement : str
        One line: the statement checked.
    holds : bool
        True iff every check passed.
    scope : str
        Exactly what was covered: "symbolic identity for all real scores", "exhaustive
        over n <= 5, gaps <= 4, every epsilon > 0", "at epsilon in {...}", and so on.
    cases : int
        Number of instances checked (vectors, (n, k) pairs, identities).
    certificates : tuple of (str, bool)
        Each named sub-check and whether it passed.
    seconds : float
        Wall-clock time of ``verify()``.
    failures : tuple
        Details of what failed (empty when ``holds``).

    Notes
    -----
    The result protocol (:class:`exactdp.result.Result`): a verdict, no headline number.
    """

    headline = None
    repr_fields = ("name", "cases", "scope")

    name: str
    statement: str
    holds: bool
    scope: str
    cases: int
    certificates: tuple
    seconds: float
    failures: tuple = field(default=())

    def __bool__(self) -> bool:
        return self.holds

    def _repr_latex_(self) -> str:
        mark = r"\checkmark" if self.holds else r"\times"
        return latex_math(rf"{math_text(self.name)}:\ {mark}\ ({self.cases}\ \text{{cases}})")


def run_checks(name: str, statement: str, scope: str, checks) -> ProofResult:
    """Run named checks and collect a :class:`ProofResult`.

    Parameters
    ----------
    checks : iterable of (str, callable)
        Each callable returns ``(holds, cases)`` or ``(holds, cases, failures)``; an
        exception counts as a failed check, with its message.
    """
    import time

    start = time.perf_counter()
    certs, failures, cases = [], [], 0
    for label, fn in checks:
        try:
            out = fn()
        except Exception as exc:  # noqa: BLE001 - a check that raises has failed
            certs.append((label, False))
            failures.append((label, f"raised {type(exc).__name__}: {exc}"))
            continue
        holds, count = bool(out[0]), int(out[1])
        cases += count
        certs.append((label, holds))
        if not holds:
            failures.append((label, out[2] if len(out) > 2 else "failed"))
    return ProofResult(name, statement, bool(certs) and not failures, scope, cases,
                       tuple(certs), time.perf_counter() - start, tuple(failures))


def sweep_check(check, n_max: int, gap_max: int, executor=None):
    """A :func:`run_checks` entry from :func:`exactdp.audit.sweeps.sweep`: (holds, cases, failures).

    Without an executor the sweep runs in this process (a one-thread pool), so a default
    ``pytest`` run does not start processes; pass one to spread the work.
    """
    if executor is None:
        with ThreadPoolExecutor(1) as pool:
            res = sweep(check, n_max, gap_max, executor=pool)
    else:
        res = sweep(check, n_max, gap_max, executor=executor)
    return res.holds, res.cases, res.failures
