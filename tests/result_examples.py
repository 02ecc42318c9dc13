"""One small instance of every result type (the result protocol's tests and the notebook test).

Each entry is ``name -> source``: a Python expression that builds the result in a namespace
holding ``exactdp``, ``sympy`` and ``EPS`` (a positive symbol). The notebook test executes
the same sources in a Jupyter kernel, one cell each.
"""

from __future__ import annotations

import sympy

import exactdp

SETUP = (
    "import concurrent.futures, sympy, exactdp\n"
    "from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax\n"
    "from exactdp.proofs.result import ProofResult\n"
    "EPS = sympy.Symbol('epsilon', positive=True)\n"
)

SOURCES = {
    "PrivacyLoss": "exactdp.privacy_loss(ReportNoisyMax('1/10', noise='laplace'), [1] * 5, "
                   "[2, 0, 0, 0, 0])",
    "DPCheck": "exactdp.check_dp(PermuteAndFlip(1), [3, 1, 0])",
    "DPCertificate": "exactdp.certify_dp(PermuteAndFlip(EPS), [0, -1, -2], [1, -2, -1])",
    "LaplaceDPCertificate": "exactdp.certify_dp(exactdp.SparseVector(EPS, 0, 1, 6), "
                            "[-1, -1, 0], [0, 0, -1])",
    "ZCDPCheck": "exactdp.check_zcdp(ExponentialMechanism(1), [0, 1], sympy.Rational(1, 2), "
                 "[1, 0])",
    "BoundedRange": "exactdp.bounded_range(ExponentialMechanism(1), [0, 0], [0, 1])",
    "Divergence": "exactdp.kl_divergence(ExponentialMechanism(1).distribution([0, 0]), "
                  "ExponentialMechanism(1).distribution([0, 1]))",
    "SupremumResult": "exactdp.sup_privacy_loss(ExponentialMechanism(1), "
                      "lambda g: ((0, -g), (1, -g - 1)))",
    "HockeyStick": "exactdp.privacy_loss_distribution(PermuteAndFlip(2), [0, 0], [1, -1])"
                   ".delta(1)",
    "EpsilonResult": "exactdp.privacy_loss_distribution(PermuteAndFlip(1), [0, 0], [1, 0])"
                     ".epsilon(sympy.Rational(1, 100))",
    "AccountantCheck": "exactdp.check_accountant(PermuteAndFlip(2), [0, 0], 10, [8], "
                       "claims=('kov', 'bounded_range'))",
    "RegularityCheck": "exactdp.is_symmetric(PermuteAndFlip(1), n=2)",
    "DominanceResult": "exactdp.check_dominance(PermuteAndFlip(1).distribution([0, -1, -2]), "
                       "ExponentialMechanism(1).distribution([0, -1, -2]))",
    "DominanceCertificate": "exactdp.certify_dominance(PermuteAndFlip(EPS), "
                            "ExponentialMechanism(EPS), [0, -1, -2])",
    "SensitivityResult": "exactdp.sensitivity(exactdp.ScoreFunction(lambda db, c: "
                         "-abs(sum(x < c for x in db) - sympy.Rational(1, 3) * len(db)), "
                         "(1, 2, 3, 4, 5)), range(1, 6), 'add_remove', max_size=3)",
    "WorstCaseError": "exactdp.worst_case_error(ExponentialMechanism(1), 3)",
    "LatticeLPResult": "exactdp.lattice_lp(3, 2, sympy.log(2), method='exact')",
    "PFOptimalityRegion": "exactdp.pf_optimality_region(3, 4)",
    "OptimalDistribution": "exactdp.OptimalRegularMechanism(1).distribution([0, -1, -2])",
    "GoodnessOfFit": "exactdp.goodness_of_fit(lambda size, rng: PermuteAndFlip(1)"
                     ".distribution([0, -1, -2]).sample(size, rng), "
                     "PermuteAndFlip(1).distribution([0, -1, -2]), 2000, rng=1)",
    "SweepResult": "exactdp.sweep(bool, 3, 2, progress=False, "
                   "executor=concurrent.futures.ThreadPoolExecutor(1))",
    "SuiteRow": "exactdp.verification_suite(['noisy_max_exponential'], every=False, "
                "progress=False)['noisy_max_exponential']",
    "LossSupremum": "ReportNoisyMax('1/10', noise='laplace', output='value').evaluate("
                    "'density', exactdp.as_scores([1] * 5), exactdp.as_scores([2] * 5))",
    "ErrorRatioStudy": "exactdp.error_ratio_study(PermuteAndFlip(1), ExponentialMechanism(1), "
                       "4, lambda rng, n: rng.integers(0, 5, n), 'uniform', trials=20, rng=0)",
    "CompositionBound": "exactdp.composition_lower_bound(PermuteAndFlip(1), [0, 0], 3, 1)",
    "ProofResult": "ProofResult('three_items', 'PF on three items: closed forms', True, "
                   "'exhaustive over gaps <= 2', 9, (('closed forms', True),), 0.5)",
}


def build(name: str) -> object:
    """The example result ``name`` (a key of :data:`SOURCES`)."""
    ns: dict = {"exactdp": exactdp, "sympy": sympy}
    exec(SETUP, ns)  # noqa: S102 - the module's own sources
    return eval(SOURCES[name], ns)  # noqa: S307
