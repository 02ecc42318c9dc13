"""Tests of exactdp.mechanisms; ``BY_EPSILON`` is shared by the modules here."""

from exactdp.mechanisms import REGISTRY

#: Each closed-form mechanism whose probabilities are rational in x as a function of
#: (epsilon, monotonic flag), read from the registry: the selection entries that epsilon
#: calibrates, with exact probabilities and a rational form (not RNM-Laplace: its forms hold
#: at one epsilon only).

def _by_epsilon(spec):
    return lambda e, m=False: spec.at_epsilon(e, monotonic=m)


BY_EPSILON = {
    spec.label: _by_epsilon(spec)
    for spec in REGISTRY.values()
    if spec.kind == "selection" and spec.calibrated
    and {"exact", "rational_form"} <= spec.instance().capabilities
}
