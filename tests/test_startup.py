"""Start-up: ``import exactdp`` loads no optional or heavy dependency; the lazy exports
(PEP 562 ``__getattr__`` of ``exactdp``, ``exactdp.analysis`` and ``exactdp.io``) give the
same objects as their modules (issue 21; timings in docs/benchmarks.md, not here)."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import exactdp

ROOT = Path(__file__).resolve().parents[1]

#: Packages that ``import exactdp`` must not import (each loads on first use).
HEAVY = ("scipy", "matplotlib", "dask", "tqdm", "diffprivlib", "opendp", "dp_accounting")

LAZY_PACKAGES = ("exactdp", "exactdp.analysis", "exactdp.io")


def loaded_after(code: str) -> set[str]:
    """The modules in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT, timeout=120).stdout
    return set(out.split())


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_import_exactdp_loads_no_heavy_dependency_and_no_subpackage():
    mods = loaded_after("import exactdp; assert exactdp.__version__")
    assert heavy(mods) == []
    assert "scipy.signal" not in mods and "matplotlib" not in mods and "dask" not in mods
    # only the loader of the lazy exports (standard library only), no module of the package
    assert sorted(m for m in mods if m.startswith("exactdp.")) == ["exactdp._lazy"]


def test_first_use_of_the_main_names_loads_no_scipy_matplotlib_or_dask():
    mods = loaded_after("from exactdp import PermuteAndFlip, check_dp, certify_dp, "
                        "OptimalRegularMechanism, privacy_loss_distribution")
    assert heavy(mods) == []
    assert "exactdp.analysis.check" in mods  # the probe itself works: what was asked loaded


def test_the_command_line_parser_loads_no_heavy_dependency():
    mods = loaded_after("from exactdp.io.cli import _parser; _parser()")
    assert heavy(mods) == []
    assert "exactdp.analysis.composition" not in mods


def test_optional_dependency_loads_on_first_use():
    mods = loaded_after("import numpy as np\nfrom exactdp.analysis.composition import "
                        "_float_curve\n_float_curve(np.array([.5, .5]), np.array([.25, .75]), "
                        "2, [0.1])")
    assert "scipy.signal" in mods


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_lazy_exports_are_the_modules_objects(name):
    package = importlib.import_module(name)
    assert set(package._EXPORTS) == set(package.__all__)
    for export, module in package._EXPORTS.items():
        owner = importlib.import_module(module, name)
        assert getattr(package, export) is getattr(owner, export)
    assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        package.no_such_name  # noqa: B018


def test_subpackages_are_attributes_after_import_exactdp():
    assert exactdp.analysis.check_dp is exactdp.check_dp
    assert exactdp.io.table is importlib.import_module("exactdp.io.latex").table
    from exactdp import optimality  # a submodule through the import system too

    assert optimality.lattice_lp is exactdp.lattice_lp


def test_version_answers_without_loading_sympy_or_the_command_line():
    # issue 36: `exactdp --version` was 0.76-1.13 s CPU (the registry, the suite and sympy
    # imported first); the entry point answers it with the standard library only
    mods = loaded_after("import contextlib, io\nfrom exactdp.io.entry import main\n"
                        "with contextlib.redirect_stdout(io.StringIO()): main(['--version'])")
    assert "sympy" not in mods and "mpmath" not in mods and "exactdp.io.cli" not in mods
    out = subprocess.run([sys.executable, "-m", "exactdp", "--version"], capture_output=True,
                         text=True, check=True, cwd=ROOT, timeout=120).stdout
    assert out == f"exactdp {exactdp.__version__}\n"


def test_version_is_the_same_through_the_full_command_line(capsys):
    from exactdp.io.cli import main

    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == f"exactdp {exactdp.__version__}\n"
