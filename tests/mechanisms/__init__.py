"""Tests of exactdp.mechanisms; ``BY_EPSILON`` is shared by the modules here."""

from exactdp import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax

#: Each closed-form mechanism as a function of (epsilon, monotonic flag).
BY_EPSILON = {
    "EM": lambda e, m=False: ExponentialMechanism(e, monotonic=m),
    "PF": lambda e, m=False: PermuteAndFlip(e, monotonic=m),
    "RNM-Exp": lambda e, m=False: ReportNoisyMax(e, monotonic=m, noise="exponential"),
    "RNM-Gumbel": lambda e, m=False: ReportNoisyMax(e, monotonic=m, noise="gumbel"),
}
