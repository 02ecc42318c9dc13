"""The DP tools' published results on the library's programs, in one place, with sources.

Keyed by the name of a program of :data:`exactdp.programs.library.PROGRAMS` (names of
programs a later version adds to the library may be listed already: their rows pick the
data up when the program exists). For each program:

- **DP-Sniper** and **StatDP**: the lower confidence bound on epsilon each published, the
  pair it reported and its time (:class:`~exactdp.audit.suite_specs.Published`: DP-Sniper's
  ``dd_search_reg_data.log`` and its StatDP runs ``statdp_1_data.log``, in
  ``eth-sri/dp-sniper`` ``eval_sp2021/reference-results/``).
- **DiPC** (Barthe, Chadha, Jagannath, Sistla, Viswanathan, LICS 2020;
  ``vishalrjagan/DifferentialPrivacy``): its verdict on its domain {-1, 0, 1}^3 (threshold 0,
  c = 1) for every epsilon, and its run time, from ``final.txt`` (table T1: ``o/p`` 0 is
  "epsilon-DP for every epsilon", 1 "not"; ``RunTime`` in seconds). Its input files are
  numbered its own way; the mapping to the library follows the cross-checked verdicts and
  witnesses of ``tests/analysis/test_certify_laplace.py`` (``input_3_svt4``: witness 3/5,
  ``input_3_svt6``: 67/92).
- **CheckDP** (Wang, Ding, Kifer, Zhang, CCS 2020; ``cmla-psu/checkdp``, ``examples/``):
  "proof" or "counterexample", from the repository's programs (incorrect ones carry the
  ``bad`` prefix) and the paper's statement that it proves every correct program of its
  benchmark and refutes every incorrect one.
- **ShadowDP** (Wang, Ding, Wang, Kifer, Zhang, PLDI 2019; ``cmla-psu/shadowdp``,
  ``examples/original/``): "verified" for the programs of its benchmark (a verifier: it
  reports no counterexamples, and its benchmark has no incorrect program).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .suite_specs import SPECS, Published

#: Where DiPC's verdicts and times come from.
DIPC_SOURCE = "vishalrjagan/DifferentialPrivacy final.txt (table T1, 3 queries)"
CHECKDP_SOURCE = "cmla-psu/checkdp examples/; Wang et al., CCS 2020"
SHADOWDP_SOURCE = "cmla-psu/shadowdp examples/original/; Wang et al., PLDI 2019"


@dataclass(frozen=True)
class ToolVerdict:
    """A verifier's published verdict on one program.

    Attributes
    ----------
    tool : str
        ``"DiPC"``, ``"CheckDP"`` or ``"ShadowDP"``.
    holds : bool
        True: the tool proves epsilon-DP (DiPC: for every epsilon on its domain); False: it
        refutes it (a counterexample).
    program : str
        The tool's input or program file.
    seconds : float or None
        The tool's published time (DiPC only).
    source : str
    """

    tool: str
    holds: bool
    program: str
    seconds: float | None
    source: str

    def __str__(self) -> str:
        word = {"DiPC": ("True", "False"), "CheckDP": ("proof", "counterexample"),
                "ShadowDP": ("verified", "not verified")}[self.tool][not self.holds]
        time = "" if self.seconds is None else f", {self.seconds:g} s"
        return f"{word}{time}"


@dataclass(frozen=True)
class ToolResults:
    """Every tool's published result on one program (None: the tool did not run it)."""

    dpsniper: Published | None = None
    statdp: Published | None = None
    dipc: ToolVerdict | None = None
    checkdp: ToolVerdict | None = None
    shadowdp: ToolVerdict | None = None

    def lower_bounds(self) -> tuple[Published, ...]:
        """The sampled tools' results, DP-Sniper first."""
        return tuple(p for p in (self.dpsniper, self.statdp) if p is not None)


def _dipc(holds: bool, program: str, seconds: float) -> ToolVerdict:
    return ToolVerdict("DiPC", holds, program, seconds, DIPC_SOURCE)


def _checkdp(holds: bool, program: str) -> ToolVerdict:
    return ToolVerdict("CheckDP", holds, program, None, CHECKDP_SOURCE)


def _shadowdp(program: str) -> ToolVerdict:
    return ToolVerdict("ShadowDP", True, program, None, SHADOWDP_SOURCE)


_SPEC = {s.name: s for s in SPECS}


def _sampled(name: str) -> dict:
    spec = _SPEC[name]
    return {"dpsniper": spec.dpsniper, "statdp": spec.statdp}


#: The published results, by library program name.
PUBLISHED: Mapping[str, ToolResults] = MappingProxyType({
    "noisy_max_laplace": ToolResults(
        **_sampled("RNM1"), dipc=_dipc(True, "input_3_nmax5.txt", 211),
        checkdp=_checkdp(True, "noisymax.c"), shadowdp=_shadowdp("noisymax.c")),
    "noisy_max_exponential": ToolResults(**_sampled("RNM2")),
    "noisy_max_value_laplace": ToolResults(
        **_sampled("RNM3"), checkdp=_checkdp(False, "badnoisymax.c")),
    "noisy_max_value_exponential": ToolResults(**_sampled("RNM4")),
    "svt1": ToolResults(
        **_sampled("SVT1"), dipc=_dipc(True, "input_3_svt1.txt", 703),
        checkdp=_checkdp(True, "sparsevector.c"), shadowdp=_shadowdp("sparsevectorN.c")),
    "svt2": ToolResults(**_sampled("SVT2"), dipc=_dipc(True, "input_3_svt2.txt", 783)),
    "svt3": ToolResults(**_sampled("SVT3")),
    "svt4": ToolResults(
        **_sampled("SVT4"), dipc=_dipc(False, "input_3_svt4.txt", 294),
        checkdp=_checkdp(False, "badsparsevector3.c")),
    "svt5": ToolResults(
        **_sampled("SVT5"), dipc=_dipc(False, "input_3_svt5.txt", 3),
        checkdp=_checkdp(False, "badsparsevector1.c")),
    "svt6": ToolResults(
        **_sampled("SVT6"), dipc=_dipc(False, "input_3_svt6.txt", 680),
        checkdp=_checkdp(False, "badsparsevector2.c")),
    "svt_monotone": ToolResults(checkdp=_checkdp(True, "svt_increasing.c")),
    "numerical_svt": ToolResults(
        **_sampled("NumericalSVT"), checkdp=_checkdp(True, "numsparsevector.c"),
        shadowdp=_shadowdp("numsparsevector.c")),
    "gap_svt": ToolResults(shadowdp=_shadowdp("gapsparsevector.c")),
    "randomized_response_incorrect": ToolResults(dipc=_dipc(False, "input_3_rr.txt", 1)),
})


def published(name: str) -> ToolResults:
    """The tools' results on the library program ``name`` (empty when none ran it).

    Examples
    --------
    >>> str(published("svt6").dipc)
    'False, 680 s'
    """
    return PUBLISHED.get(name, ToolResults())
