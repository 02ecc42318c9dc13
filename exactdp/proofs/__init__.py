"""Machine-checked statements of the notes: one module per statement, each with ``verify()``.

Every module opens with the statement, its human proof, the method of the check and its
exact scope, and exposes ``verify(**scope) -> ProofResult``. They live inside the package
(not only in the repository's ``proofs/`` test folder) so that ``exactdp prove`` works from
any install and so that process pools and Dask workers can import the per-vector checks by
name; ``proofs/prove_<name>.py`` holds the pytest tests of each, with a negative control.
"""

from __future__ import annotations

import importlib

from .._validate import argument_error, choices_text
from .result import ProofResult

__all__ = ["PROOFS", "ProofResult", "load", "verify_all"]

#: module names, in the order of the notes (``exactdp prove NAME``).
PROOFS = (
    "example_1_3_sensitivity",
    "section_2_regularity",
    "section_4_entropy",
    "section_5_1_reduction",
    "section_5_2_greedy_solution",
    "thm_5_1_pf_lp_optimal",
    "thm_5_2_dominance",
    "error_ratio_at_most_two",
    "dp_of_pf_and_em",
    "rnm_laplace_scale",
    "thm_6_1_pf_equals_rnm_exp",
    "section_6_worst_case",
)


def load(name: str):
    """The proof module ``exactdp.proofs.<name>`` (``prove_`` prefix accepted).

    Raises
    ------
    ValueError
        If ``name`` is not in :data:`PROOFS`.
    """
    key = name.removeprefix("prove_")
    if key not in PROOFS:
        raise argument_error("load", "name", f"a known proof, {choices_text(PROOFS)}", name)
    return importlib.import_module(f"{__name__}.{key}")


def verify_all(names=None, executor=None) -> list[ProofResult]:
    """Run ``verify(executor=executor)`` of each named module (default: all)."""
    return [load(n).verify(executor=executor) for n in (names or PROOFS)]
