"""Shared pytest configuration.

- the ``slow`` marker runs only with ``--runslow``;
- under ``CI=true`` a test skipped because an optional extra or tool is missing is a
  failure (CI installs every extra the tests use: a failed install must not turn the peer
  audit into silent skips);
- every test starts with mpmath's and python-flint's default precision and leaves them so.
"""

from __future__ import annotations

import os
import re

import flint
import mpmath
import pytest

#: Skip reasons that mean "an optional dependency or tool is missing" (importorskip's
#: "could not import", the peers' "peers extra: ...", a missing executable).
MISSING_EXTRA = re.compile(
    r"could not import|No module named|peers extra|not installed|extra .* missing|"
    r"not available|not found on PATH|needs the optional",
    re.IGNORECASE,
)


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run slow sweeps")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow sweep: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def in_ci() -> bool:
    """True when the environment says CI (``CI=true``, as GitHub Actions and .ci/run set)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def skip_reason(report) -> str:
    """The reason text of a skipped test report (``longrepr`` is ``(file, line, reason)``)."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci() and not hasattr(report, "wasxfail"):
        reason = skip_reason(report)
        if MISSING_EXTRA.search(reason):
            report.outcome = "failed"
            report.longrepr = (
                f"CI=true: skipped because an optional extra or tool is missing ({reason}); "
                "CI must install it (.ci/run)"
            )


@pytest.fixture(autouse=True)
def _restore_precision():
    """Each test sees mpmath's and python-flint's precision as it found them, whatever it sets."""
    mp_prec, flint_prec = mpmath.mp.prec, flint.ctx.prec
    yield
    mpmath.mp.prec = mp_prec
    flint.ctx.prec = flint_prec
