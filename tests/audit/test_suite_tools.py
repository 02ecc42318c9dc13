"""The tools' published results (exactdp/audit/suite_tools.py), against their sources."""

from __future__ import annotations

from exactdp.audit.suite_specs import SPECS
from exactdp.audit.suite_tools import PUBLISHED, ToolResults, published


def test_published_results():
    # DiPC final.txt, table T1: input_3_svt6.txt o/p 1 (not DP), 680 s; svt1 o/p 0, 703 s
    assert str(published("svt6").dipc) == "False, 680 s"
    assert published("svt1").dipc.holds and published("svt1").dipc.seconds == 703
    assert str(published("svt1").shadowdp) == "verified"
    assert str(published("svt4").checkdp) == "counterexample"
    assert published("no_such_program") == ToolResults()
    # the sampled tools' numbers are the suite specs' (one source of each number)
    spec = {s.name: s for s in SPECS}
    assert published("svt6").dpsniper is spec["SVT6"].dpsniper
    assert published("svt6").lower_bounds() == (spec["SVT6"].dpsniper, spec["SVT6"].statdp)
    assert set(PUBLISHED) >= {"svt1", "svt6", "noisy_max_laplace", "numerical_svt"}
