"""Compatibility path: the privacy analyzer is split into :mod:`exactdp.analysis.loss`,
:mod:`~exactdp.analysis.check`, :mod:`~exactdp.analysis.certify`,
:mod:`~exactdp.analysis.supremum`, :mod:`~exactdp.analysis.neighbourhood` and
:mod:`exactdp.analysis.engines`; this module re-exports their public names.
"""

from .certify import (
    ConditionCertificate,
    DPCertificate,
    certify_dp,
    set_intervals,
)
from .check import (
    DPCheck,
    Witness,
    check_dp,
    numeric_mechanism,
)
from .common import (
    EPSILON,
    Y,
    distribution_of,
    exact_sign,
    mechanism_epsilon,
    mechanism_name,
    plain,
    score_vector,
)
from .engines.ball import (
    BALL_DPS,
    ArbKey,
    BallEngine,
    BallUndecided,
    Iv,
    arb_float,
    arb_prec,
    iv_max,
)
from .engines.select import (
    make_engine,
)
from .engines.sparse import (
    SparseXEngine,
    sparse_unit_sign,
)
from .loss import (
    PrivacyLoss,
    privacy_loss,
)
from .neighbourhood import (
    EXHAUSTIVE_MAX_N,
    check_pair,
    neighbours,
)
from .supremum import (
    SupremumResult,
    sup_privacy_loss,
    symbolic_probabilities,
)

__all__ = [
    "EPSILON",
    "Y",
    "exact_sign",
    "symbolic_probabilities",
    "PrivacyLoss",
    "DPCheck",
    "Witness",
    "DPCertificate",
    "ConditionCertificate",
    "SupremumResult",
    "privacy_loss",
    "check_dp",
    "certify_dp",
    "sup_privacy_loss",
    "neighbours",
    "EXHAUSTIVE_MAX_N",
    "BALL_DPS",
    "BallUndecided",
]

# Former private names, kept for code written against the single module.
_arb_float = arb_float
_arb_prec = arb_prec
_ArbKey = ArbKey
_BallEngine = BallEngine
_check_pair = check_pair
_distribution = distribution_of
_epsilon = mechanism_epsilon
_Iv = Iv
_iv_max = iv_max
_make_engine = make_engine
_name = mechanism_name
_numeric_mechanism = numeric_mechanism
_plain = plain
_sv = score_vector
_SparseXEngine = SparseXEngine
_intervals = set_intervals
_sparse_unit_sign = sparse_unit_sign
