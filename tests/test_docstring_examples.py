"""The ``Examples`` section of the docstring of every name in ``exactdp.__all__`` (and of the
program language's functions, ``exactdp.programs``) runs, and
prints what it says it prints (doctest, in a fresh namespace per name: each example makes
its own imports, as in numpy's and scipy's docstrings)."""

import doctest
import inspect
import warnings

import pytest

import exactdp
import exactdp.programs

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


#: The program language's functions (its classes are documented by their attributes).
PROGRAM_FUNCTIONS = [n for n in exactdp.programs.__all__
                     if inspect.isfunction(getattr(exactdp.programs, n))]


def examples(name: str) -> doctest.DocTest:
    module, _, name = name.rpartition(":")
    obj = getattr(exactdp.programs if module else exactdp, name)
    doc = inspect.getdoc(obj) or ""
    assert "\nExamples\n--------\n" in doc, f"{name}: the docstring has no Examples section"
    return doctest.DocTestParser().get_doctest(doc, {}, f"exactdp.{name}",
                                               inspect.getsourcefile(obj), 0)


@pytest.mark.parametrize("name", exactdp.__all__ + [f"programs:{n}" for n in PROGRAM_FUNCTIONS])
def test_examples_run_and_print_what_they_say(name, monkeypatch, tmp_path):
    test = examples(name)
    assert test.examples, f"{name}: the Examples section has no >>> line"
    assert any(ex.want for ex in test.examples), f"{name}: no example shows its output"
    monkeypatch.chdir(tmp_path)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.run(test)
    failures = runner.summarize(verbose=False).failed
    assert failures == 0, f"{name}: {failures} example(s) printed something else (above)"


def test_a_wrong_output_fails():
    """The runner really compares: an example that promises the wrong value fails."""
    test = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "wrong", None, 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=lambda s: None)
    assert runner.summarize(verbose=False).failed == 1


def _modules() -> list[str]:
    import pkgutil

    return sorted(m.name for m in pkgutil.walk_packages(exactdp.__path__, "exactdp.")
                  if not m.name.endswith("__main__"))


def _module_tests(mod) -> list[doctest.DocTest]:
    """The doctests of ``mod``, with those of the programs it defines: a ``@program`` is an
    instance of :class:`~exactdp.programs.Program`, which doctest's finder skips."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = finder.find(mod)
    for name, value in vars(mod).items():
        if isinstance(value, exactdp.programs.Program) and value.func.__module__ == mod.__name__:
            tests += finder.find(value.func, f"{mod.__name__}.{name}", module=mod)
    return tests


def test_programs_examples_are_found():
    """The library's programs' examples are among their module's doctests."""
    from exactdp.programs import library, library_release, library_sums

    for mod in (library, library_release, library_sums):
        names = {t.name for t in _module_tests(mod) if t.examples}
        assert names, mod.__name__
        for name, prog in library.PROGRAMS.items() | library_release.PROGRAMS.items():
            if prog.func.__module__ == mod.__name__:
                assert f"{mod.__name__}.{name}" in names, name


@pytest.mark.parametrize("module", _modules())
def test_every_modules_examples_run(module, monkeypatch, tmp_path):
    """The examples of internal functions too (in their module's namespace, as doctest runs
    them): a docstring that shows an output must show the one the code prints."""
    import importlib

    mod = importlib.import_module(module)
    monkeypatch.chdir(tmp_path)
    failed = []
    for test in _module_tests(mod):
        if not test.examples:
            continue
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runner.run(test)
        if runner.summarize(verbose=False).failed:
            failed.append(test.name)
    assert not failed, f"examples printing something else (above): {failed}"
