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
