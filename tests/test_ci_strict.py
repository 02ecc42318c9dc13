"""The CI strictness hook of conftest.py: under CI=true a skip for a missing optional extra
or tool is a failure; other skips stay skips; outside CI nothing changes."""

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT_CONFTEST = Path(__file__).resolve().parent.parent / "conftest.py"

TESTS = '''
import pytest

def test_missing_extra():
    pytest.importorskip("exactdp_no_such_module_xyz")

def test_peers_reason():
    pytest.skip("peers extra: No module named 'opendp'")

def test_ordinary_skip():
    pytest.skip("more maximizers than outputs")

def test_passes():
    assert True
'''


@pytest.fixture
def project(pytester):
    pytester.makeconftest(ROOT_CONFTEST.read_text())
    pytester.makepyfile(test_sample=TESTS)
    return pytester


def test_ci_turns_missing_extra_skips_into_failures(project, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2, skipped=1)
    result.stdout.fnmatch_lines(["*CI=true: skipped because an optional extra*"])


def test_outside_ci_they_stay_skips(project, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=3)


#: The optional extras' modules (pyproject.toml: peers, accounting, dask, docs), hidden
#: from a child pytest as on the README's install (``.[test]`` only).
EXTRAS = ("dp_accounting", "opendp", "diffprivlib", "sklearn", "dask", "distributed",
          "mkdocs", "mkdocstrings", "griffe")
#: Tests that use an extra beside what they test without it (issue 35 item 4: they failed
#: after the README's install instead of skipping).
USE_EXTRAS = (
    "tests/test_index_docs.py::test_home_page_states_the_version_and_install_line",
    "tests/mechanisms/test_base2_exponential.py::test_in_the_registry_cli_report_and_api_page",
    "tests/io/test_composition.py::test_figure_has_the_four_curves_data",
    "tests/io/test_composition.py::test_certified_curves_enclose_the_enumerated_delta",
)


@pytest.mark.parametrize("ci, outcome", [("", "skipped"), ("true", "failed")])
def test_tests_of_missing_extras_skip_outside_ci_and_fail_in_it(ci, outcome):
    """Without the extras the tests that need them skip (as the README promises); under
    CI=true those skips fail (CI must install every extra)."""
    import os
    import subprocess
    import sys

    root = ROOT_CONFTEST.parent
    hide = "; ".join(f"sys.modules[{m!r}] = None" for m in EXTRAS)
    code = f"import sys; {hide}; import pytest; sys.exit(pytest.main(sys.argv[1:]))"
    env = {k: v for k, v in os.environ.items() if k != "CI"} | {"CI": ci}
    proc = subprocess.run([sys.executable, "-c", code, "-q", "-rs", "-p", "no:cacheprovider",
                           "-p", "no:xdist", *USE_EXTRAS], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    last = proc.stdout.strip().splitlines()[-1]
    assert "error" not in last, proc.stdout[-3000:]
    if outcome == "skipped":
        assert proc.returncode == 0 and "failed" not in last, proc.stdout[-3000:]
        assert "skipped" in last and "could not import" in proc.stdout
    else:
        assert proc.returncode == 1 and "failed" in last, proc.stdout[-3000:]


def test_no_test_asserts_wall_clock_time():
    """Issue 35: wall-clock assertions failed on a loaded machine. A test that must bound
    time bounds CPU time (``time.process_time``) with a margin; speed lives in benchmarks/."""
    import re

    root = ROOT_CONFTEST.parent
    # the wall-clock readers' names, spelled in parts so that this guard reads no clock
    clocks = ["perf" + "_counter", "mono" + "tonic"]
    wall = re.compile(rf"\b({'|'.join(clocks)})\(|\btime\.ti" + r"me\(")
    found = [f"{path.relative_to(root)}:{i}"
             for folder in ("tests", "proofs") for path in sorted((root / folder).rglob("*.py"))
             for i, line in enumerate(path.read_text().splitlines(), 1)
             if wall.search(line) and path.name != "test_ci_strict.py"]
    assert not found, found
