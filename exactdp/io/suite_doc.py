"""The generated part of docs/suite.md: the verification suite's method, scope, table and one
paragraph per incorrect program (:func:`library_section`, :func:`update_suite_doc`).

Regenerate with ``PYTHONPATH=. python -m exactdp.io.suite_doc docs/suite.md`` (about a
20 s of CPU); ``tests/io/test_suite_doc.py`` checks the committed rows against the
generator. Every number comes from the exact rows (no time: the page is deterministic).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..audit.library_table import LOSS_NOTE, library_table, loss_cell
from ..audit.program_suite import HEURISTIC, MIRRORED, REBASED
from ..audit.verification import SuiteRow, VerificationSuite, verification_suite
from ..printing import format_number
from ..result_text import cut_text

BEGIN = "<!-- library-suite -->"
END = "<!-- /library-suite -->"

METHOD = """\
## The suite: `exactdp.verification_suite()` and `exactdp suite`

```python
import exactdp
suite = exactdp.verification_suite()          # every program of the library, a table
suite["svt4"].summary()                       # one row: pair, output, search, tools
suite = exactdp.verification_suite(["svt1", "svt3"], every=False)
```

and on the command line `exactdp suite [--programs svt1,svt3] [--format text|markdown|latex]
[--no-every-epsilon] [--scheduler ADDRESS]`. One row per program of the library:
`exactdp.programs.library.PROGRAMS` (discrete outputs) then
`exactdp.programs.library_release.PROGRAMS` (programs that release real values), read
generically, so a program added to the library becomes a row. Settings are the tools':
claimed epsilon 0.1, 5 scores for noisy max, 10 queries for the sparse vector programs with
c = 1 and threshold 0.5 (SVT1) or 1 (DP-Sniper's `exp_default.py`), the numerical SVT at
c = 2; a row whose program needs fewer queries to fit the 1 s CPU budget of a row says so in
its note (`exactdp.audit.program_suite.SETTINGS`).

**Method.** The exact privacy loss (`privacy_loss`) of every pair searched: StatDP's eight
input patterns (adjacency "all"; the monotone program: the patterns moving one way); for the
sparse vector programs each pattern also with its positions reversed ("mirrored": the worst
pairs put the odd query last, $1^{10}$ vs $2^9 0$), and for SVT6 each pattern's move also
from the X shape's first input $1^5 0^5$; plus `check_dp`'s own heuristic
neighbour search from $(1, \\dots, 1)$ (every query alone up and down, one against the rest,
all up and down, every split, one-sided shifts and 64 random vertices: 152 neighbours at 10
queries) where it fits the row's budget; the row names the search and the pair that gave
the worst loss ("found by"). For a program releasing real values the loss is the exact
supremum of the log density ratio over outputs ("sup" before a supremum no output
attains), or a certified bracket where no closed form exists, or the engine's refusal (a
supremum over several released values whose densities do not factorise), said in the row;
a refused pair does not stop the suite, and a row stops searching after 10 s of CPU, naming
the pairs it left. Where the program's docstring states it equals a
shipped class (`SparseVector`, `ReportNoisyMax`, `NumericalSparseVector`) the row is
computed on the class (the same closed forms; `tests/audit/test_program_suite.py`
recomputes the worst pairs on the program). The column "every epsilon on DiPC's domain" runs
`certify_dp` (symbolic epsilon) on the 158 unordered pairs of $\\{-1, 0, 1\\}^3$ moving by at
most 1 (DiPC's 316 ordered pairs; threshold 0, c = 1), cached per program; with a Dask
scheduler (`exactdp suite --scheduler ADDRESS`, or
`verification_suite(executor=client.get_executor())`) the pairs run on the cluster, one
task each.

**Scope.** A loss above the claim on a pair searched proves the program is not
epsilon-DP, with the pair and output as witness. "Private on the pairs searched" proves
nothing for other inputs: a search over pairs is not a proof. The every-epsilon column is a
proof on DiPC's domain only (every pair of it, every epsilon > 0); it is "not applicable" for
adjacency "one" and monotone programs (DiPC's adjacency is the box) and for programs that
release real values (densities: `certify_dp` decides probabilities). Published columns:
DP-Sniper's and StatDP's lower confidence bounds (`eth-sri/dp-sniper` reference logs), DiPC's
verdict and time (`final.txt`), CheckDP's and ShadowDP's verdicts (their `examples/`);
sources in `exactdp/audit/suite_tools.py`.
"""


def _tools_line(row: SuiteRow) -> str:
    """How far the sampled tools' lower bounds fall below the exact worst loss."""
    parts = []
    for pub in row.tools.lower_bounds():
        if row.loss is not None and row.loss.is_finite:
            low = 100 * (1 - pub.lower_bound / float(row.loss))
            parts.append(f"{pub.tool}'s lower bound {pub.lower_bound:.4f} is {low:.0f}% below")
        else:
            parts.append(f"{pub.tool} reported a lower bound of {pub.lower_bound:.4f} for an "
                         "infinite loss")
    for v in (row.tools.dipc, row.tools.checkdp):
        if v is not None:
            parts.append(f"{v.tool}: {v}")
    return "; ".join(parts) if parts else "no sampled tool ran it"


def incorrect_paragraph(row: SuiteRow) -> str:
    """One paragraph on an incorrect program: its exact worst loss and the tools' numbers."""
    w = row.worst
    assert w is not None
    if w.pattern == HEURISTIC:
        found = "check_dp's heuristic search"
    elif w.pattern.endswith(REBASED):
        found = (f"StatDP's '{w.pattern.removesuffix(REBASED)}' move applied to the X shape's "
                 "first input")
    elif w.pattern.endswith(MIRRORED):
        found = f"StatDP's pattern '{w.pattern.removesuffix(MIRRORED)}' with its positions reversed"
    else:
        found = f"StatDP's pattern '{w.pattern}'"
    loss = loss_cell(row)
    return (f"**{row.program}** (claimed {format_number(row.epsilon, 6)}): exact worst loss "
            f"{loss} on {w.scores} vs {w.neighbour} at {cut_text(w.output, 160)}, found by "
            f"{found}; "
            f"{_tools_line(row)}. Every epsilon on DiPC's domain: {row.every_epsilon}.")


#: What the table's decimals are: the exact values, printed correct to the digits shown.
TABLE_NOTE = LOSS_NOTE + " The exact values: `exactdp.verification_suite().rows[i].loss`."


def library_section(suite: VerificationSuite) -> str:
    """The generated section: method, scope, table, and the incorrect programs."""
    table = library_table(suite.rows, "markdown", seconds=False)  # deterministic: no times
    lines = [BEGIN, METHOD, "### The table (generated)", "", TABLE_NOTE, "", table, ""]
    bad = [r for r in suite.rows if r.holds is False]
    if bad:
        lines += ["### The incorrect programs: how far the sampled tools under-reported", ""]
        lines += [incorrect_paragraph(r) + "\n" for r in bad]
    lines.append(END)
    return "\n".join(lines)


def update_suite_doc(path: str | Path, suite: VerificationSuite | None = None) -> str:
    """Replace the generated section of ``path`` (between :data:`BEGIN` and :data:`END`; at
    the end when absent) by :func:`library_section` of ``suite`` (default: the whole
    library, computed here). Returns the new text."""
    suite = verification_suite(progress=False) if suite is None else suite
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    section = library_section(suite)
    if BEGIN in text and END in text:
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        new = head + section + tail
    else:
        new = text.rstrip("\n") + "\n\n" + section + "\n"
    p.write_text(new, encoding="utf-8")
    return new


if __name__ == "__main__":  # pragma: no cover - the regeneration command
    update_suite_doc(sys.argv[1] if len(sys.argv) > 1 else "docs/suite.md")
