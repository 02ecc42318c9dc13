"""Beyond pure DP: exact Renyi and KL divergences, a zCDP check, and bounded range.

One public path for three modules:

- :mod:`exactdp.analysis.renyi`: Renyi divergence of order alpha (Renyi 1961; Mironov, CSF
  2017, Def. 3) ``D_alpha(P || Q) = ln(sum_r P_r^alpha Q_r^(1 - alpha)) / (alpha - 1)``;
  ``alpha -> 1`` is the KL divergence ``sum_r P_r ln(P_r/Q_r)``, ``alpha = oo`` the max
  divergence (:func:`renyi_divergence`, :func:`kl_divergence`, :func:`max_divergence`).
- :mod:`exactdp.analysis.zcdp`: rho-zCDP (Bun & Steinke, TCC 2016, Def. 1.1),
  ``D_alpha(M(q) || M(q')) <= rho * alpha`` for every ``alpha > 1`` and neighbours
  (:func:`check_zcdp`).
- :mod:`exactdp.analysis.loss_range`: bounded range (Durfee & Rogers, NeurIPS 2019, Def. 3),
  the range of the privacy-loss random variable, ``max_r ln(P_r/P'_r) - min_r ln(P_r/P'_r)``.
  An eta-BR mechanism is ``eta^2/8``-zCDP (Cesar & Rogers, ALT 2021, Lemma 3.2)
  (:func:`bounded_range`).

Mechanisms without exact probabilities (RNM with Gaussian noise) are analysed with the
certified ball engine of :mod:`exactdp.analysis.engines.ball`: the results are then sympy Floats
at the working precision with a certified ``interval``, and every yes/no answer is decided
by the interval (more precision is tried; never a guess).
"""

from .loss_range import BoundedRange, bounded_range
from .renyi import Divergence, kl_divergence, max_divergence, renyi_divergence
from .zcdp import DEFAULT_ALPHAS, ZCDPCheck, check_zcdp

__all__ = [
    "renyi_divergence",
    "kl_divergence",
    "max_divergence",
    "check_zcdp",
    "ZCDPCheck",
    "bounded_range",
    "BoundedRange",
    "Divergence",
    "DEFAULT_ALPHAS",
]
