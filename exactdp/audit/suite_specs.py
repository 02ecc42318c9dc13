"""The DP-testing tools' suite as data: one :class:`AlgorithmSpec` per algorithm, StatDP's
input patterns, and the tools' published numbers (read by :mod:`exactdp.audit.suite`).

The algorithms and parameters are those of DP-Sniper's default experiment
(``dpsniper/experiments/exp_default.py`` of ``eth-sri/dp-sniper``): claimed epsilon 0.1;
report-noisy-max on 5 scores with noise of scale ``2/epsilon``; the sparse vector variants
on 10 queries with ``c = 1``, threshold 0.5 for SVT1 and 1 for the others; the numerical SVT
at its defaults ``c = 2``, threshold 1. The input pairs are StatDP's patterns
(``generate_databases`` in ``statdp/generators.py`` of ``cmla-psu/statdp``; DP-Sniper's
``PatternGenerator`` uses the same vectors, each pair also swapped).

Published numbers: DP-Sniper's ``eps`` and ``eps_lcb`` (lower confidence bound) and the
pair it found, from ``eval_sp2021/reference-results/dd_search_reg_data.log`` (logistic
regression, the numbers of issue 24); StatDP's (DP-Sniper's StatDP wrapper with
post-processing, first of its two runs) from ``statdp_1_data.log`` in the same folder.
Times are the logs' ``time_dd_search + time_final_estimate_eps`` (DP-Sniper) and
``statdp_time`` (StatDP, its verification run apart).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import sympy

#: The claimed epsilon of every algorithm of the suite (the tools' default).
CLAIM = sympy.Rational(1, 10)
#: The number of scores of the report-noisy-max rows (the tools' inputs).
RNM_ITEMS = 5
#: The number of queries the tools ran the sparse vector rows on.
SVT_QUERIES = 10
#: Where the published numbers come from.
DPSNIPER_LOG = "eth-sri/dp-sniper eval_sp2021/reference-results/dd_search_reg_data.log"
STATDP_LOG = "eth-sri/dp-sniper eval_sp2021/reference-results/statdp_1_data.log"


def pattern_pair(name: str, m: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """StatDP's input pattern ``name`` on ``m`` queries: the pair ``(a, a')``.

    Raises
    ------
    KeyError
        An unknown pattern name.

    Examples
    --------
    >>> pattern_pair("X shape", 4)
    ((1, 1, 0, 0), (0, 0, 1, 1))
    """
    ones = (1,) * m
    h, rest = m // 2, m - m // 2
    return {
        "one below": (ones, (0,) + (1,) * (m - 1)),
        "one above": (ones, (2,) + (1,) * (m - 1)),
        "one above rest below": (ones, (2,) + (0,) * (m - 1)),
        "one below rest above": (ones, (0,) + (2,) * (m - 1)),
        "half half": (ones, (2,) * h + (0,) * rest),
        "all above": (ones, (2,) * m),
        "all below": (ones, (0,) * m),
        "X shape": ((1,) * h + (0,) * rest, (0,) * h + (1,) * rest),
    }[name]


#: StatDP's pattern names, in its order.
PATTERNS = ("one below", "one above", "one above rest below", "one below rest above",
            "half half", "all above", "all below", "X shape")


def patterns(m: int) -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
    """StatDP's input patterns on ``m`` queries: name -> ``(a, a')`` (StatDP's names; pairs
    equal for small ``m`` are kept once, under the first name).

    Examples
    --------
    >>> patterns(4)["half half"]
    ((1, 1, 1, 1), (2, 2, 0, 0))
    """
    out: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for name in PATTERNS:
        pair = pattern_pair(name, m)
        if pair[0] != pair[1] and pair not in out.values():
            out[name] = pair
    return out


@dataclass(frozen=True)
class Published:
    """A tool's published result on one algorithm.

    Attributes
    ----------
    tool : str
        ``"DP-Sniper"`` or ``"StatDP"``.
    pattern : str
        The name of the input pattern the tool reported (:func:`patterns`).
    swapped : bool
        Whether the tool reported the pair in the order ``(a', a)``.
    epsilon : float
        The tool's estimate (``inf`` when it saw an event of probability 0 under one input).
    lower_bound : float
        Its lower confidence bound on the loss (``eps_lcb``).
    seconds : float
        The tool's time on the algorithm, from its log.
    source : str
        The log it comes from.
    """

    tool: str
    pattern: str
    swapped: bool
    epsilon: float
    lower_bound: float
    seconds: float
    source: str


def _sniper(pattern: str, swapped: bool, eps: float, lcb: float, seconds: float) -> Published:
    return Published("DP-Sniper", pattern, swapped, eps, lcb, seconds, DPSNIPER_LOG)


def _statdp(pattern: str, swapped: bool, eps: float, lcb: float, seconds: float) -> Published:
    return Published("StatDP", pattern, swapped, eps, lcb, seconds, STATDP_LOG)


@dataclass(frozen=True)
class AlgorithmSpec:
    """One algorithm of the suite.

    Attributes
    ----------
    name : str
        The suite's name (``"RNM1"``, ``"SVT3"``, ``"NumericalSVT"``).
    description : str
        What it does, in one line.
    mechanism : str
        The exactdp mechanism class, looked up in :data:`exactdp.mechanisms.REGISTRY` when
        the row is computed (so a spec may name a class that a later version adds).
    parameters : mapping
        Its parameters besides ``epsilon``.
    private : bool
        Whether the literature proves it epsilon-DP at the claim.
    claim : str
        The paper's privacy statement, with its source.
    queries : int or None
        A fixed number of scores (report-noisy-max: the tools' 5); None: the suite's
        ``queries``.
    dpsniper, statdp : Published or None
        The tools' published results.
    certify : bool
        Whether :func:`exactdp.certify_dp` applies (probabilities rational in
        ``x = exp(-epsilon/N)``).
    """

    name: str
    description: str
    mechanism: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    private: bool = True
    claim: str = ""
    queries: int | None = None
    dpsniper: Published | None = None
    statdp: Published | None = None
    certify: bool = False

    def published(self) -> tuple[Published, ...]:
        """The tools' results, DP-Sniper first."""
        return tuple(p for p in (self.dpsniper, self.statdp) if p is not None)


def _p(**kw: Any) -> Mapping[str, Any]:
    return MappingProxyType(kw)


_HALF = sympy.Rational(1, 2)
_NOT_DP = "not epsilon'-DP for any finite epsilon' (Lyu-Su-Li 2017, section 4.2)"
_NO_BOUND = ("not epsilon'-DP for any finite epsilon': no bound independent of m "
             "(Lyu-Su-Li 2017, section 4.2)")

#: The suite, in the tools' order.
SPECS: tuple[AlgorithmSpec, ...] = (
    AlgorithmSpec(
        "RNM1", "report-noisy-max, Laplace(2/eps) noise, returns the index",
        "ReportNoisyMax", _p(noise="laplace"), True,
        "epsilon-DP (Ding et al. 2018, Alg. 5; Dwork-Roth 2014, section 3.3)", RNM_ITEMS,
        _sniper("one below rest above", False, 0.0945151211081825, 0.09225381318933756, 61.82),
        _statdp("one above rest below", False, 0.09240372436717359, 0.09195171216431208, 59.82)),
    AlgorithmSpec(
        "RNM2", "report-noisy-max, exponential(2/eps) noise, returns the index",
        "ReportNoisyMax", _p(noise="exponential"), True,
        "epsilon-DP (Ding et al. 2021, Thm 1: it is permute-and-flip)", RNM_ITEMS,
        _sniper("one below rest above", False, 0.09976075482751412, 0.09750314019873763, 58.42),
        _statdp("one below rest above", False, 0.10005534052983944, 0.09957525329005956, 58.63),
        certify=True),
    AlgorithmSpec(
        "RNM3", "report-noisy-max, Laplace(2/eps) noise, returns the noisy maximum value",
        "ReportNoisyMax", _p(noise="laplace", output="value"), False,
        "not epsilon-DP (Ding et al. 2018, Alg. 7)", RNM_ITEMS,
        _sniper("all below", True, 0.24998958863476872, 0.24781576679261352, 62.39),
        _statdp("all above", False, 0.2001292076665533, 0.1991418003968266, 131.85)),
    AlgorithmSpec(
        "RNM4", "report-noisy-max, exponential(2/eps) noise, returns the noisy maximum value",
        "ReportNoisyMax", _p(noise="exponential", output="value"), False,
        "not epsilon'-DP for any finite epsilon' (Ding et al. 2018, Alg. 8)", RNM_ITEMS,
        _sniper("all above", False, 0.34846682354116076, 0.34634322696561437, 62.89),
        _statdp("all above", False, 0.19698913460728296, 0.19601980077941494, 132.01)),
    AlgorithmSpec(
        "SVT1", "Lyu-Su-Li Alg. 1: Lap(2/eps) threshold, Lap(4c/eps) query noise, stop at c",
        "SparseVector", _p(threshold=_HALF, c=1, variant=1), True,
        "epsilon-DP (Lyu-Su-Li 2017, Theorem 2)", None,
        _sniper("X shape", True, 0.08806788653261499, 0.08579843744077742, 125.98),
        _statdp("X shape", False, 0.03274076064781806, 0.029753775766650392, 343.65)),
    AlgorithmSpec(
        "SVT2", "Lyu-Su-Li Alg. 2: threshold Lap(2c/eps) redrawn after each True, stop at c",
        "SparseVector", _p(threshold=1, c=1, variant=2), True,
        "epsilon-DP (Lyu-Su-Li 2017, section 4.1)", None,
        _sniper("X shape", True, 0.08819919036407686, 0.085933777378977, 159.92),
        _statdp("half half", False, 0.0346543398975232, 0.031642012639005124, 402.80)),
    AlgorithmSpec(
        "SVT3", "Lyu-Su-Li Alg. 3: releases the noisy answer a_i + Lap(2c/eps) when above",
        "SparseVector", _p(threshold=1, c=1, variant=3), False,
        _NO_BOUND, None,
        _sniper("half half", False, 0.17378669139879932, 0.17157204754154964, 160.34),
        _statdp("one below", False, 0.043131070969710805, 0.023061332406729917, 5821.14)),
    AlgorithmSpec(
        "SVT4", "Lyu-Su-Li Alg. 4: eps1 = eps/4, Lap(4/eps) threshold, Lap(4/(3eps)) query",
        "SparseVector", _p(threshold=1, c=1, variant=4), False,
        "not epsilon-DP; ((1 + 6c)/4) epsilon-DP (Lyu-Su-Li 2017, section 4.2)", None,
        _sniper("half half", False, 0.17089783655096813, 0.1686833019846503, 130.49),
        _statdp("half half", False, 0.17272674102962338, 0.17085960551924195, 555.61)),
    AlgorithmSpec(
        "SVT5", "Lyu-Su-Li Alg. 5: Lap(2/eps) threshold, no query noise, never stops",
        "SparseVector", _p(threshold=1, c=1, variant=5), False, _NOT_DP, None,
        _sniper("half half", True, 1.7628103392152887, 1.7611853568928795, 58.89),
        _statdp("half half", False, float("inf"), 14.314308557571438, 351.26)),
    AlgorithmSpec(
        "SVT6", "Lyu-Su-Li Alg. 6: Lap(2/eps) threshold, Lap(2/eps) query noise, never stops",
        "SparseVector", _p(threshold=1, c=1, variant=6), False,
        _NO_BOUND, None,
        _sniper("X shape", False, 0.27420665259705856, 0.2720409230566201, 95.52),
        _statdp("X shape", False, 0.32558166317564297, 0.32203660515097443, 755.04)),
    AlgorithmSpec(
        "NumericalSVT", "Wang et al. 2019: Lap(3/eps) threshold, Lap(6c/eps) comparison, "
        "releases a_i + Lap(3c/eps)", "NumericalSparseVector", _p(threshold=1, c=2), True,
        "epsilon-DP (Wang et al., PLDI 2019)", None,
        _sniper("all above", True, 0.03661542222872516, 0.034323746664875365, 151.69),
        None),
)

#: The names of :data:`SPECS`, in order.
ALGORITHMS: tuple[str, ...] = tuple(s.name for s in SPECS)
