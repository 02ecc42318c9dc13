"""Programs that several test files share (one definition each)."""

from __future__ import annotations

from exactdp.programs import laplace, program


@program(adjacency="one", output="sequence")
def tries(q, epsilon, k):
    """Up to ``k`` tries of AboveThreshold with one threshold draw: the index of the first
    noisy answer above the noisy threshold, None when none passes (an output None)."""
    rho = laplace(2 / epsilon)
    i = 0
    while i < k:
        if q[0] + laplace(4 / epsilon) >= rho:
            return i
        i += 1
    return None
