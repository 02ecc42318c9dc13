"""Mutation testing of one module or package against its own tests (issue 20).

Usage::

    python benchmarks/mutation.py exactdp/exact --sample 100 --seed 0
    python benchmarks/mutation.py exactdp/analysis/loss.py exactdp/analysis/check.py \\
        exactdp/analysis/certify.py --sample 100 --seed 0
    python benchmarks/mutation.py exactdp/numeric/pf --tests tests/numeric/pf \\
        tests/numeric/test_pf.py --sample 100 --seed 0

Each PATH is a module (``exactdp/<pkg>/<mod>.py``) or a package directory. The tests run
are ``--tests`` or, by default, the mirror of each path (``tests/<pkg>/test_<mod>.py``,
``tests/<pkg>/`` for a package). The script copies the repository's package, tests,
``conftest.py`` and ``pyproject.toml`` into a scratch directory, lets mutmut (configured in
``[tool.mutmut]`` of ``pyproject.toml``) generate every mutant of PATH, draws a seeded random
sample of ``--sample`` of them, and runs mutmut on that sample only: each mutant runs only
the selected tests that reach the mutated function, with ``-x`` and a CPU-time limit. It
prints killed / survived / timeout per mutant, the score, and the diff of every survivor.

Score = (killed + timeout) / (sampled - equivalent). A surviving mutant listed in
``EQUIVALENT`` below (matched by function and by the changed lines, so the list survives
renumbering) is reported as equivalent and left out of the denominator.

A developer tool: too slow for ``.ci/run`` on 2 cores, and not collected by pytest.
Results are recorded in ``docs/testing.md``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib
ROOT = Path(__file__).resolve().parents[1]

#: Surviving mutants that cannot change any result: (function name, removed line, added line,
#: reason). Lines are compared stripped. See docs/testing.md.
EQUIVALENT: list[tuple[str, str, str, str]] = [
    (
        "_dyadic",
        "with flint_prec(max(abs(man).bit_length(), 2) + 8):",
        "with flint_prec(max(abs(man).bit_length(), 2) + 9):",
        "man * 2**exp is exact at either precision (one more guard bit)",
    ),
    (
        "ball",
        "bits = max(64, _exact_bits(m.mid()), flint.ctx.prec)",
        "bits = max(_exact_bits(m.mid()), flint.ctx.prec)",
        "a floor only: the midpoint keeps its own bits, the radius is rounded up",
    ),
    (
        "enclose",
        "prec = min(2 * prec, max_prec)",
        "prec = min(3 * prec, max_prec)",
        "precision schedule only: rigorous and meeting the target either way",
    ),
    (
        "_numeric_sign",
        "start = min(max(2 * _FIRST_PREC, _FIRST_PREC + _size_bits(e)), MAX_PREC)",
        "start = min(max(3 * _FIRST_PREC, _FIRST_PREC + _size_bits(e)), MAX_PREC)",
        "starting precision of the escalation only: the same sign is decided",
    ),
    (
        "_enclose",
        "return out if out.is_finite() else None",
        "return out if (out.is_finite()) or True else None",
        "a non-finite ball compares False with everything, as None is treated",
    ),
    (
        "_exact_root",
        'raise ArithmeticError(f"no root of {poly} found in ({a}, {b})")  # pragma: no cover',
        "raise ArithmeticError(None)  # pragma: no cover",
        "message of an unreachable raise (pragma: no cover)",
    ),
    (
        "verify_sign_analysis",
        'if analysis.algorithm == "isolation" or sqf.degree() <= 24:',
        'if analysis.algorithm == "ISOLATION" or sqf.degree() <= 24:',
        "both branches count the roots in (0, 1) exactly (Sturm or isolation)",
    ),
    (
        "verify_sign_analysis",
        "lo = bounds[i - 1][1] if i else sympy.Integer(0)",
        "lo = bounds[i - 1][1] if i else sympy.Integer(1)",
        "cost only: the first interval is bisected on every pass, keeping its root",
    ),
    (
        "negative_intervals",
        "if not any(s < 0 for s in self.signs):",
        "if not any(s <= 0 for s in self.signs):",
        "a sign 0 occurs only for the zero polynomial: () either way",
    ),
    (
        "pf_arb",
        "work = prec + 2 * max(n, 1).bit_length() + 30",
        "work = prec + 3 * max(n, 1).bit_length() + 30",
        "working precision schedule only: the accuracy loop decides",
    ),
    (
        "_pf_groups_arb",
        "S = sum((m * pg for pg, (_, m) in zip(p, groups, strict=True)), zero)",
        "S = sum((m * pg for pg, (_, m) in zip(p, groups, strict=None)), zero)",
        "zip of lists built from the same groups: equal lengths by construction",
    ),
    (
        "_pf_groups_arb",
        "S = sum((m * pg for pg, (_, m) in zip(p, groups, strict=True)), zero)",
        "S = sum((m * pg for pg, (_, m) in zip(p, groups, strict=False)), zero)",
        "zip of lists built from the same groups: equal lengths by construction",
    ),
    (
        "em_mp",
        "S = sum((m * wg for wg, (_, m) in zip(w, groups, strict=True)), flint.arb(0))",
        "S = sum((m * wg for wg, (_, m) in zip(w, groups, strict=None)), flint.arb(0))",
        "zip of lists built from the same groups: equal lengths by construction",
    ),
    (
        "_pf_groups_arb",
        "tmax = flint.arb(1) if S <= C else flint.arb(C) / S",
        "tmax = flint.arb(1) if S < C else flint.arb(C) / S",
        "at S == C both branches give tmax = 1",
    ),
    (
        "_pf_groups_arb",
        "if err <= tol:",
        "if err < tol:",
        "at err == tol (a float equality) only one more refinement",
    ),
    (
        "_pf_groups_arb",
        "ub = {k: min(max(uf[k] * 1.000001, 1e-300), THETA) for k in small}",
        "ub = {k: min(max(uf[k] * 1.000001, 1.0), THETA) for k in small}",
        "over-estimated bounds only add series terms; the truncation bound holds",
    ),
    (
        "pf_float",
        "for _ in range(J0 + 1, J1 + 1):",
        "for _ in range(J0 + 2, J1 + 1):",
        "drops the last power sum, below the float64 truncation bound",
    ),
    (
        "_to_arb",
        'return ("inf",), None',
        'return ("XXinfXX",), None',
        "the infinite-gap tag is only a grouping key (probability 0 in any group)",
    ),
    (
        "_to_arb",
        'return ("inf",), None',
        'return ("INF",), None',
        "the infinite-gap tag is only a grouping key (probability 0 in any group)",
    ),
    (
        "_to_arb",
        'return ("inf",), None',
        'return ("XXinfXX",), None',
        "the infinite-gap tag is only a grouping key (probability 0 in any group)",
    ),
    # the analyzer core (analysis/loss.py, check.py, certify.py)
    (
        "check_dp",
        "continue",
        "break",
        "max_candidates returns one candidate at a numeric epsilon (every comparison is "
        "decided): continue and break both end the inner loop",
    ),
    (
        "check_dp",
        "value = sympy.Integer(0)",
        "value = None",
        "unreachable: a search has >= 1 neighbour and a pair >= 1 candidate (sums to 1)",
    ),
    (
        "check_dp",
        "holds = True",
        "holds = False",
        "unreachable: a search has >= 1 neighbour and a pair >= 1 candidate (sums to 1)",
    ),
    (
        "pair_candidates",
        'out.append(("ratio", r, R, 1))',
        'out.append(("XXratioXX", r, R, 1))',
        "the tag is only compared with 'inf': any other string acts as 'ratio'",
    ),
    (
        "pair_candidates",
        'out.append(("ratio", r, engine.inv(R), -1))',
        'out.append(("XXratioXX", r, engine.inv(R), -1))',
        "the tag is only compared with 'inf': any other string acts as 'ratio'",
    ),
    (
        "max_candidates",
        "continue",
        "break",
        "after an 'inf' candidate best holds the first 'inf' and no later candidate "
        "replaces it",
    ),
    (
        "_loss_from_engine",
        "return PrivacyLoss(sympy.Integer(0), None, ratios, q.values, q2.values, 0, (),",
        "return PrivacyLoss(sympy.Integer(0), None, ratios, q.values, q2.values, 0, None,",
        "unreachable: normalised probabilities give every pair >= 1 candidate",
    ),
    (
        "_loss_from_engine",
        "return PrivacyLoss(sympy.Integer(0), None, ratios, q.values, q2.values, 0, (),",
        "return PrivacyLoss(sympy.Integer(0), None, ratios, q.values, q2.values, (),",
        "unreachable: normalised probabilities give every pair >= 1 candidate",
    ),
    (
        "_ball_privacy_loss",
        "return PrivacyLoss(sympy.Integer(0), None, ratios, q.values, q2.values, 0, (),",
        "return PrivacyLoss(sympy.Integer(None), None, ratios, q.values, q2.values, 0, (),",
        "unreachable: balls summing to 1 leave some output with a log ratio",
    ),
    (
        "verify",
        "if not (to_arb(p, 200) - fv).contains(0):",
        "if not (to_arb(p, 201) - fv).contains(0):",
        "precision of the cross-check only: a rigorous ball at 200 or 201 bits",
    ),
    (
        "certify_dp",
        'mech = _symbolic_mechanism(mechanism, "certify_dp")',
        'mech = _symbolic_mechanism(mechanism, "XXcertify_dpXX")',
        "the door check at the top of certify_dp has refused a non-mechanism already: the "
        "name is never read here",
    ),
    (
        "certify_dp",
        'f"certify_dp: {mechanism_name(mechanism)} has no exact probabilities here "',
        'f"certify_dp: {mechanism_name(None)} has no exact probabilities here "',
        "unreachable: certify_dp runs at a symbolic epsilon, where no distribution offers "
        "balls (they need a numeric one), so the exact route refuses first",
    ),
    # exact/
    (
        "ball",
        "bits = max(64, _exact_bits(m.mid()), flint.ctx.prec)",
        "bits = max(64, flint.ctx.prec)",
        "the bits only round the radius sum, upward, and arb(mid, rad) keeps the midpoint "
        "exactly: rigorous either way",
    ),
    (
        "enclose",
        "if (b.is_exact() and b.is_zero()) or b.rel_accuracy_bits() >= target:",
        "if (b.is_exact() or b.is_zero()) or b.rel_accuracy_bits() >= target:",
        "an exact ball has unbounded relative accuracy (returned anyway) and is_zero "
        "implies is_exact",
    ),
    (
        "abs_bound",
        "prec: int = 96,",
        "prec: int = 97,",
        "default working precision one bit higher: every box proof is rigorous at either",
    ),
    (
        "sign_at",
        "if 0 < lo < 1:  # |log2 x| from the ball's lower end (a safe over-estimate)",
        "if 0 < lo <= 1:  # |log2 x| from the ball's lower end (a safe over-estimate)",
        "at lo = 1, |log2 lo| = 0: bits stays 0 either way",
    ),
    (
        "sign_at",
        "tested = True",
        "tested = None",
        "the exact zero test is repeated at every precision: same answer, more work",
    ),
    (
        "_strip_unit_endpoints",
        'poly = sympy.Poly(sympy.cancel(poly.as_expr() / x), x, domain="QQ")',
        'poly = sympy.Poly(sympy.cancel(poly.as_expr() / x), None, domain="QQ")',
        "the quotient is never constant (a monomial has Descartes bound 0 and does not get "
        "here) and its one symbol is x: sympy infers the same generator",
    ),
    (
        "verify_sign_analysis",
        'if analysis.algorithm == "isolation" or sqf.degree() <= 24:',
        'if analysis.algorithm != "isolation" or sqf.degree() <= 24:',
        "both branches count the roots in (0, 1) exactly (Sturm or isolation)",
    ),
    (
        "verify_sign_analysis",
        "if not lo < hi:",
        "if not lo <= hi:",
        "refinement leaves lo == hi only at an exact root, where sgn(p) = 0 fails the "
        "sign check as well",
    ),
    (
        "_exp_polynomial_is_zero",
        "expo += f.args[0].args[0] * f.args[1]",
        "expo -= f.args[0].args[0] * f.args[1]",
        "unreachable for numbers: sympy (and expand/powsimp before) rewrites exp(a)**k "
        "with real a as exp(k*a)",
    ),
    # exact/, seed 7 (2026-12-03)
    (
        "_pow",
        "bottom = flint.arb(0) if lo <= 0 else (x * lo.log()).exp()",
        "bottom = flint.arb(0) if (lo <= 0) or True else (x * lo.log()).exp()",
        "reached only with b >= 0 and not b > 0, i.e. b's lower end exactly 0: lo <= 0 holds",
    ),
    (
        "_pow",
        "bottom = flint.arb(0) if lo <= 0 else (x * lo.log()).exp()",
        "bottom = flint.arb(0) if lo <= 1 else (x * lo.log()).exp()",
        "reached only with b >= 0 and not b > 0, i.e. b's lower end exactly 0: lo <= 1 holds",
    ),
    (
        "sign_at",
        "value = fmpq_poly_to_sympy(poly, Y).as_expr().subs(Y, exact_point)",
        "value = fmpq_poly_to_sympy(poly, ).as_expr().subs(Y, exact_point)",
        "Y is fmpq_poly_to_sympy's default generator: the same polynomial",
    ),
    (
        "verify_sign_analysis",
        'if analysis.algorithm == "isolation" or sqf.degree() <= 24:',
        'if analysis.algorithm == "isolation" or sqf.degree() < 24:',
        "at degree 24 both branches count the roots in (0, 1) exactly (Sturm or isolation)",
    ),
    (
        "_turn",
        "if (is_max and s > 0) or (not is_max and s < 0):",
        "if (is_max and s > 0) or (not is_max and s < 1):",
        "s = sign of g at T.lo, and _turn only gets events that _settle_ends left with g "
        "non-zero at both ends: s is -1 or 1, where s < 0 iff s < 1",
    ),
    (
        "sign_at_point",
        "nz = [(w, v) for (w, _), v in zip(terms, values, strict=True) if v != 0]",
        "nz = [(w, v) for (w, _), v in zip(terms, values, strict=None) if v != 0]",
        "values is built from terms, one per term: equal lengths by construction",
    ),
    # programs/integrate*.py, seed 7 (2026-12-03)
    (
        "plan",
        "zero = False",
        "zero = None",
        "zero is only read by 'zero or ...' and 'if zero:', where None acts as False",
    ),
    (
        "continuous_star",
        "def continuous_star(star: Star, laws: list[str], u: Units, fast: bool = True) -> Value:",
        "def continuous_star(star: Star, laws: list[str], u: Units, fast: bool = False) -> Value:",
        "the default is never used: the one caller (star_frac) passes fast",
    ),
    # the analyzer core, seed 7 (2026-12-03)
    (
        "_parse_forms",
        'sv = score_vector(vector, "scores", "certify_dp")',
        'sv = score_vector(vector, None, "certify_dp")',
        "vector is the exact values of a score vector certify_dp validated at its door: the "
        "name would only appear in a refusal that cannot happen here",
    ),
    (
        "certify_dp",
        'mech = _symbolic_mechanism(mechanism, "certify_dp")',
        'mech = _symbolic_mechanism(mechanism, "CERTIFY_DP")',
        "the door check at the top of certify_dp has refused a non-mechanism already: the "
        "name is never read here",
    ),
    (
        "verify",
        "for vec, forms in zip(vectors, self.forms, strict=True):",
        "for vec, forms in zip(vectors, self.forms, ):",
        "zip of the certificate's vectors and its forms, built one per vector: equal lengths",
    ),
    # the sparse vector modules, seed 7 (2026-12-03)
    (
        "x_form",
        "den = flint.fmpq_poly([0] * top + [1])",
        "den = None",
        "top = max(0, largest power of x) is 0: a closed form of probabilities (bounded in "
        "lam) has no term exp(lam W) with W > 0, so den is x**0 = 1, which None means",
    ),
    (
        "sequence_probabilities",
        "zero = (0,) * (2 * len(seg.groups))",
        "zero = (0,) * (3 * len(seg.groups))",
        "only trailing zeros: the counts are incremented below 2 * len(groups) and "
        "_Segments.value reads only those entries",
    ),
    (
        "sequence_probabilities",
        "if i + 1 == m or trues + 1 == scheme.cutoff:",
        "if i - 1 == m or trues + 1 == scheme.cutoff:",
        "the recursion one level deeper appends leaf((*done, nxt), zero) instead of "
        "leaf(done, nxt): the same segments, and a zero count vector is a factor 1",
    ),
    # numeric/pf/
    (
        "pf_arb",
        "work = prec + 2 * max(n, 1).bit_length() + 30",
        "work = prec + 2 * max(n, 1).bit_length() + 31",
        "working precision schedule only: the accuracy loop decides",
    ),
    (
        "pf_arb",
        "inputs_exact = all(not isinstance(v, (flint.arb, str)) or _exactish(v) for v in raw)",
        "inputs_exact = all(not isinstance(v, (flint.arb, str)) and _exactish(v) for v in raw)",
        "the flag only allows an early exit after 4 prec + 200 bits, and the first pass "
        "already meets the target on exact gaps (positive sums): rigorous balls either way",
    ),
    (
        "_exactish",
        "return is_plain_decimal(v) if isinstance(v, str) else True",
        "return is_plain_decimal(v) if (isinstance(v, str)) or True else True",
        "called on arb or str gaps only, and an arb returns before this line",
    ),
    (
        "em_float",
        "w = np.negative(arr, out=arr if overwrite_d else None)",
        "w = np.negative(arr, out=arr if (overwrite_d) and False else None)",
        "overwrite_d only allows d's memory to be reused: the same result in a new array",
    ),
    (
        "_small_coin_moments",
        "if umax > _LEVEL:",
        "if umax >= _LEVEL:",
        "a coin at u = 2^-12 exactly: the first level's series is long enough there, a "
        "second level only adds terms below the float64 bound",
    ),
    (
        "_small_coin_moments",
        "i1 = np.flatnonzero(ub > _LEVEL)",
        "i1 = np.flatnonzero(ub >= _LEVEL)",
        "a coin at u = 2^-12 exactly: the first level's series is long enough there, a "
        "second level only adds terms below the float64 bound",
    ),
    (
        "em_mp",
        "bits = int(dps * 3.33) + 40 + 2 * n.bit_length()",
        "bits = int(dps * 3.33) + 41 + 2 * n.bit_length()",
        "working precision one bit higher: the same digits to dps",
    ),
    (
        "_to_arb",
        'return ("arb", v.str(radius=True, more=True)), v',
        'return ("arb", v.str(more=True)), v',
        "radius=True is arb.str's default: the same grouping key",
    ),
    (
        "_to_arb",
        "return (\"q\", q), flint.arb((int(man) * (-1 if sign else 1), int(exp)))",
        "return (\"q\", q), flint.arb((int(man) * (-2 if sign else 1), int(exp)))",
        "only a negative mpf changes, to twice its value: still negative, refused by "
        "exact_groups with the same message",
    ),
    (
        "_to_arb",
        "if math.isinf(f) and f > 0:",
        "if math.isinf(f) and f >= 0:",
        "f is +-inf there: f >= 0 iff f > 0",
    ),
    (
        "exp_neg",
        "if extra <= 8:",
        "if extra < 8:",
        "at extra == 8 the guarded branch adds 18 working bits: the same ball or a tighter one",
    ),
    (
        "_crootof",
        "return m + flint.arb(0, flint.arb(flint.fmpq(1, 2 ** (prec + 8))).upper())",
        "return m + flint.arb(None, flint.arb(flint.fmpq(1, 2 ** (prec + 8))).upper())",
        "flint.arb(None, r) is the ball of midpoint 0 and radius r, as flint.arb(0, r)",
    ),
    (
        "_pow",
        "bottom = flint.arb(0) if lo <= 0 else (x * lo.log()).exp()",
        "bottom = flint.arb(0) if lo <= 0 else (x / lo.log()).exp()",
        "reached only with b >= 0 and not b > 0 (b's lower end exactly 0): the else never runs",
    ),
    (
        "_pow",
        "if k < 0 and b.contains(0):",
        "if k <= 0 and b.contains(0):",
        "k = 0 never gets here: sympy evaluates b**0 to 1, so no Pow has the exponent 0",
    ),
    (
        "_ball_privacy_loss",
        "\"ball\", total.sympy(), dps)",
        "\"ball\", None, dps)",
        "unreachable: balls summing to 1 leave some output with a log ratio (per is never empty)",
    ),
    (
        "_loss_from_engine",
        "return PrivacyLoss(sympy.Integer(0), None, ratios, q.values, q2.values, 0, (), "
        "engine.kind)",
        "return PrivacyLoss(sympy.Integer(0), None, ratios, q.values, q2.values, 0, engine.kind)",
        "unreachable: normalised probabilities give every pair >= 1 candidate",
    ),
    (
        "verify",
        "if not (to_arb(p, 200) - f.ball(e, 200)).contains(0):",
        "if not (to_arb(p, 200) - f.ball(e, )).contains(0):",
        "precision of the cross-check only: a rigorous ball at 200 or 128 bits (the default)",
    ),
    (
        "_x_form",
        "L = lcm(*(Fraction(w).denominator for w in ws)) if ws else 1",
        "L = lcm(*(Fraction(w).denominator for w in ws)) if (ws) or True else 1",
        "math.lcm() of no argument is 1, as the else branch",
    ),
    (
        "_x_form",
        "return RationalForm(X, None, sympy.exp(-lam / L), L, polys=tuple(polys), "
        "denominator=den)",
        "return RationalForm(X, None, sympy.exp(-lam / L), L, polys=tuple(polys), "
        "denominator=None)",
        "top = max(0, largest power of x) is 0: a probability (bounded in lam) has no term "
        "exp(lam W) with W > 0, so den is x**0 = 1, which None means",
    ),
    (
        "probe_runs",
        "run.weight, key, tuple(run.released or ()))",
        "run.weight, None, tuple(run.released or ()))",
        "the probes' runs are only costed (run_cost and the enumeration's cost read draws "
        "and constraints, never the output)",
    ),
    (
        "check_dp",
        "value = sympy.Integer(0)",
        "value = sympy.Integer(1)",
        "unreachable: a search has >= 1 neighbour and a pair >= 1 candidate (sums to 1)",
    ),
    (
        "_witness",
        "if index is not None and mech.output_kind == \"sequence\":",
        "if index is not None or mech.output_kind == \"sequence\":",
        "a selection's outputs are its indices (outputs[i] == i), and index is None only "
        "for a pair without any loss (unreachable: probabilities summing to 1)",
    ),
    (
        "user_line",
        "frame = sys._getframe(1)",
        "frame = sys._getframe(2)",
        "every caller of user_line is in _INTERNAL (values.py, trace.py, sampler.py): the "
        "loop skips frame 1 anyway",
    ),
]

DETECTED = {"killed", "timeout"}

#: Appended to the scratch copy's ``conftest.py``: mutmut calls every mutated function
#: through a trampoline in its own ``trampoline.py``, which the program engine would
#: otherwise name as the user's line (``file:line`` in its messages and run signatures).
TRAMPOLINE_IS_MACHINERY = """

# added by benchmarks/mutation.py: mutmut's trampolines are machinery, not a user's line
import mutmut.mutation.trampoline as _mutmut_trampoline  # noqa: E402
import exactdp.programs.values as _program_values  # noqa: E402

_program_values._INTERNAL = _program_values._INTERNAL | {_mutmut_trampoline.__file__}
"""


def mirror_tests(path: Path) -> list[Path]:
    """The mirror tests of a path: tests/<pkg>/test_<mod>.py; tests/<pkg>/ and its test file
    tests/<parent>/test_<pkg>.py for a package."""
    rel = path.relative_to("exactdp")
    if path.suffix == ".py":
        return [Path("tests") / rel.parent / f"test_{rel.stem}.py"]
    return [Path("tests") / rel, Path("tests") / rel.parent / f"test_{rel.name}.py"]


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "[" + ", ".join(toml_value(v) for v in value) + "]"


def write_config(work: Path, only_mutate: list[str], tests: list[str], extra: list[str]) -> None:
    """pyproject.toml of the scratch copy: the repository's [tool.mutmut] plus the target."""
    text = (ROOT / "pyproject.toml").read_text()
    base = dict(tomllib.loads(text).get("tool", {}).get("mutmut", {}))
    base["only_mutate"] = only_mutate
    base["pytest_add_cli_args_test_selection"] = tests + extra
    head, sep, tail = text.partition("[tool.mutmut]")
    if sep:  # drop the repository's section (up to the next table) and write ours
        rest = tail.split("\n[", 1)
        text = head + ("[" + rest[1] if len(rest) == 2 else "")
    text += "\n[tool.mutmut]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in base.items())
    (work / "pyproject.toml").write_text(text)


def changed_lines(diff: str) -> tuple[str, str]:
    """The removed and the added lines of a unified diff, stripped and joined."""
    lines = diff.splitlines()
    removed = [ln[1:].strip() for ln in lines if ln[:1] == "-" and ln[:3] != "---"]
    added = [ln[1:].strip() for ln in lines if ln[:1] == "+" and ln[:3] != "+++"]
    return " ".join(removed), " ".join(added)


def function_name(name: str) -> str:
    """The bare name of the function a mutant changes: mutmut mangles ``mod.f`` as
    ``mod.x_f__mutmut_7`` and the method ``C.f`` as ``mod.xǁCǁf__mutmut_7``."""
    mangled = name.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[-1]
    return mangled.rsplit("ǁ", 1)[-1] if "ǁ" in mangled else mangled.removeprefix("x_")


def equivalent_reason(name: str, diff: str) -> str | None:
    function = function_name(name)
    removed, added = changed_lines(diff)
    for func, old, new, reason in EQUIVALENT:
        if function == func and old == removed and new == added:
            return reason
    return None


def generate(work: Path) -> dict[str, Path]:
    """Generate every mutant in the scratch copy; return {mutant name: source path}."""
    os.chdir(work)
    from mutmut import __main__ as mm
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.utils.file_utils import walk_mutatable_files

    os.makedirs("mutants", exist_ok=True)
    mm.copy_src_dir()
    mm.copy_also_copy_files()
    mm.create_mutants(1)
    names = {}
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        names.update({key: path for key in data.exit_code_by_key})
    return names


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path, help="modules or packages under exactdp/")
    ap.add_argument("--tests", nargs="+", type=Path, help="test files (default: the mirrors)")
    ap.add_argument("--sample", type=int, default=100, help="number of mutants (0: all)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample")
    ap.add_argument(
        "--pytest-arg",
        action="append",
        default=[],
        help="extra pytest argument for every run, e.g. --pytest-arg=--deselect=...",
    )
    ap.add_argument("--workdir", type=Path, help="scratch directory (default: a new temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args(argv)

    paths = [p.resolve().relative_to(ROOT) if p.is_absolute() else p for p in args.paths]
    for p in paths:
        if not (ROOT / p).exists() or p.parts[0] != "exactdp":
            ap.error(f"paths must be modules or packages under exactdp/, got {str(p)!r}")
    tests = args.tests or [t for p in paths for t in mirror_tests(p)]
    tests = [t for t in dict.fromkeys(tests) if (ROOT / t).exists()]
    if not tests:
        ap.error("no test files: pass --tests")
    only = [f"{p.as_posix()}/*" if (ROOT / p).is_dir() else p.as_posix() for p in paths]

    work = args.workdir or Path(tempfile.mkdtemp(prefix="exactdp-mutation-"))
    work.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in ("exactdp", "tests"):
        shutil.rmtree(work / name, ignore_errors=True)
        shutil.copytree(ROOT / name, work / name, ignore=ignore)
    shutil.rmtree(work / "mutants", ignore_errors=True)
    shutil.copy2(ROOT / "conftest.py", work / "conftest.py")
    with open(work / "conftest.py", "a") as conftest:
        conftest.write(TRAMPOLINE_IS_MACHINERY)
    write_config(work, only, [t.as_posix() for t in tests], args.pytest_arg)

    names = generate(work)
    population = sorted(names)
    k = len(population) if args.sample <= 0 else min(args.sample, len(population))
    sample = sorted(random.Random(args.seed).sample(population, k))
    print(f"targets: {' '.join(only)}; tests: {' '.join(map(str, tests))}")
    print(f"{len(population)} mutants, sample of {k} with seed {args.seed}", flush=True)

    mutmut = shutil.which("mutmut", path=str(Path(sys.executable).parent)) or "mutmut"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    run = subprocess.run(
        [mutmut, "run", "--max-children", "1", *sample],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code

    codes = {}
    for path in set(names[n] for n in sample):
        data = SourceFileMutationData(path=path)
        data.load()
        codes.update(data.exit_code_by_key)
    if all(codes.get(n) is None for n in sample):
        print(run.stdout[-4000:])
        print("mutmut ran no mutant (see its output above)")
        return 1

    counts: dict[str, int] = {}
    survivors = []
    for n in sample:
        status = status_by_exit_code[codes.get(n)]
        diff = ""
        if status not in DETECTED:
            diff = get_diff_for_mutant(n, path=names[n])
            reason = equivalent_reason(n, diff)
            if reason is not None:
                status = "equivalent"
            survivors.append((n, status, diff, reason))
        counts[status] = counts.get(status, 0) + 1
        print(f"{status:>11}  {n}")
    detected = sum(counts.get(s, 0) for s in DETECTED)
    denominator = k - counts.get("equivalent", 0)
    print("\n" + ", ".join(f"{v} {s}" for s, v in sorted(counts.items())))
    score = detected / denominator if denominator else 1.0
    print(f"score: {detected}/{denominator} = {score:.1%} (sample {k}, seed {args.seed})")
    for n, status, diff, reason in survivors:
        print(f"\n# {n}: {status}" + (f" ({reason})" if reason else ""))
        print(diff)
    if not args.keep and args.workdir is None:
        os.chdir(ROOT)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
