"""What a mechanism declares about the inputs it is analysed on: regularity, adjacency,
score domain, and its cost check. :class:`~exactdp.mechanisms.base.Mechanism` inherits
them; the neighbour search (:mod:`exactdp.analysis.neighbourhood`), the argument checks and
the common tests read them, never the mechanism's class (docs/architecture.md,
"Declarations").

References
----------
R. McKenna and D. Sheldon, "Permute-and-Flip", NeurIPS 2020, Def. 3 (regular mechanisms).
C. Dwork and A. Roth, The Algorithmic Foundations of Differential Privacy (2014), sec. 2.3.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..scores import ScoreVector


class Declarations:
    """The declarations of a mechanism. Each is a class attribute, a property where the
    instances of a class differ (``ReportNoisyMax.regular``), or a field
    (``FunctionMechanism``: the user's declarations).

    - ``regular`` (bool, default False): symmetric, shift-invariant and monotone (McKenna &
      Sheldon 2020, Def. 3; docs/formulas.md section 3), so the reduced neighbour search
      is exact for it. tests/test_common.py checks it on every registered mechanism that
      declares it;
    - ``adjacency`` (:data:`~exactdp.scores.ADJACENCIES`, default ``"all"``): every score
      moves by at most the sensitivity between neighbours, or ``"one"`` score moves;
    - ``score_domain`` (:data:`~exactdp.scores.SCORE_DOMAINS`, default ``"real"``): under
      ``"integer"`` a non-integer score is refused before any computation;
    - ``domain`` (default None): ``(lo, hi)``, exact bounds of every score (a program's
      ``@program(domain=(0, 1))``: randomized response takes bits); the neighbour search
      keeps the neighbours inside it;
    - :attr:`regular_claimed`, :meth:`check_cost`, :meth:`analysis_seconds`,
      :meth:`pld_seconds`, :meth:`loss_outputs`.
    """

    if TYPE_CHECKING:
        @property
        def regular(self) -> bool: ...
        @property
        def adjacency(self) -> str: ...
        @property
        def score_domain(self) -> str: ...
        @property
        def domain(self) -> tuple[Any, Any] | None: ...
    else:
        regular = False
        adjacency = "all"
        score_domain = "real"
        domain = None

    #: Whether ``regular`` is a user's claim (``mechanism_from_function(..., regular=True)``),
    #: checked on the scores where a search relies on it, rather than proved for the class.
    regular_claimed: ClassVar[bool] = False

    def check_cost(self, func: str, vectors: Sequence[ScoreVector]) -> None:
        """Refuse, naming ``func``, an exact analysis of these score vectors that would cost
        too much (:class:`~exactdp.cost.TooCostly`). The neighbour search calls it on the
        scores before building the neighbours, and on the scores and the neighbours after.
        Default: nothing (the analyzer's own cost checks cover the selection mechanisms).
        """

    def analysis_seconds(self, vectors: Sequence[ScoreVector]) -> float:
        """The mechanism's own estimate (seconds) of an exact analysis of ``vectors``, the one
        :meth:`check_cost` refuses by: a progress bar shows above 2 s. Default 0.0 (the
        analyzer's own estimates cover the selection mechanisms)."""
        return 0.0

    def pld_seconds(self, exact: Sequence[ScoreVector], screened: int) -> float | None:
        """The mechanism's own estimate (seconds) of a search over privacy loss
        distributions (``check_accountant``, ``composition_lower_bound``): the float64 views
        of ``screened`` vectors (the screen of every pair) and the exact probabilities of
        the vectors ``exact``, with their rigorous balls (the pairs composed exactly, each
        vector once per pair). None (default): not estimated here; the search then refuses
        by :meth:`check_cost` on every vector, as the other analyses do."""
        return None

    def loss_outputs(self, sv: ScoreVector, neighbour: ScoreVector) -> tuple[int, ...] | None:
        """Outputs among which the privacy loss of the pair ``(sv, neighbour)`` is attained,
        the earliest output attaining it among them (``check_dp`` compares only these);
        None: every output. Default None; a mechanism that overrides it proves it in its
        docstring.
        """
        return None
