"""The structured result every proof module's ``verify()`` returns."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProofResult:
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
    """

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
        return rf"$\text{{{self.name}}}:\ {mark}\ ({self.cases}\ \text{{cases}})$"
