r"""Example 1.3 (pricing): the two score functions and their sensitivities.

Statement
---------
Four people state the prices in :math:`R = \{1, \dots, 5\}` they would pay (the
project's concrete database, ``exactdp.examples.pricing``). Score 1 counts the buyers at
price r, :math:`q_1(D) = (3, 4, 3, 2, 2)`, with
sensitivity :math:`\Delta_1 = 1`; score 2 is the revenue :math:`q_2(D, r) = r\,q_1(D, r) =
(3, 8, 9, 8, 10)` with :math:`\Delta_2 = \max_r r = 5`. The neighbour :math:`D'` (person 4
answers {1}) has :math:`q_1(D') = (3, 3, 2, 1, 1)`, :math:`q_2(D') = (3, 6, 6, 4, 5)`.
Neither score is monotonic when one answer is *replaced* (the notes' relation: a person
moving from {1} to {2} lowers one count and raises another); both are monotonic when a
person is *added or removed*.

Human proof (own words)
-----------------------
Replacing one person's set changes each count by at most one (that person leaves or joins
the buyers at r), so :math:`|q_1(D, r) - q_1(D', r)| \le 1`, attained when the set gains r;
the revenue at r changes by r times that, at most 5, attained at r = 5.

Method of the check
-------------------
:func:`exactdp.sensitivity` enumerates every neighbouring pair: locally (D against every
replacement of one person's answer by any of the 32 subsets of R) and globally over every
database of at most two people (replace and add/remove), exact integers throughout.

Scope
-----
The pricing database (local) and every database of at most 2 people (global); exact.
"""

from __future__ import annotations

from exactdp.analysis.score_function import ScoreFunction, sensitivity
from exactdp.examples.pricing import PRICES, PRICING, all_answers
from exactdp.proofs.result import ProofResult, run_checks

NAME = "example_1_3_sensitivity"
STATEMENT = "Ex. 1.3: pricing scores (3,4,3,2,2), (3,8,9,8,10); Delta_1 = 1, Delta_2 = 5"

CLAIMED = {"buyers": 1, "revenue": 5}
SCORES = {"buyers": ((3, 4, 3, 2, 2), (3, 3, 2, 1, 1)),
          "revenue": ((3, 8, 9, 8, 10), (3, 6, 6, 4, 5))}


def score_vectors_match():
    """The score vectors of D and D' (``exactdp.examples.pricing``)."""
    ok = all(
        tuple(PRICING.score(name).func(db, r) for r in PRICES) == want
        for name, pair in SCORES.items()
        for db, want in zip((PRICING.database, PRICING.neighbour), pair, strict=True)
    )
    return ok, 4


def sensitivities(claimed=None, funcs=None):
    """Local (at D) and global (<= 2 people, both relations) sensitivities = the claims."""
    claimed = CLAIMED if claimed is None else claimed
    funcs = funcs or {name: PRICING.score(name) for name in claimed}
    bad, cases = [], 0
    universe = all_answers()
    for name, want in claimed.items():
        f = funcs[name]
        runs = {
            "local": sensitivity(f, universe, database=PRICING.database),
            "global replace": sensitivity(f, universe, max_size=2),
            "global add/remove": sensitivity(f, universe, "add_remove", max_size=2),
        }
        for how, res in runs.items():
            cases += 1
            if res.sensitivity != want:
                bad.append((name, how, int(res.sensitivity), want))
    return not bad, cases, tuple(bad)


def monotonic_flags():
    """Not monotonic under replacement; monotonic under add/remove (both scores)."""
    universe = all_answers()
    ok = True
    for name in CLAIMED:
        f = PRICING.score(name)
        ok &= not sensitivity(f, universe, max_size=2).monotonic
        ok &= sensitivity(f, universe, "add_remove", max_size=2).monotonic
    return ok, 2 * len(CLAIMED)


def squared_price_revenue() -> ScoreFunction:
    """``r^2 q_1(D, r)``: a score whose sensitivity is 25 (negative controls)."""
    return ScoreFunction(lambda db, r: r * PRICING.score("revenue").func(db, r), PRICES,
                         "r^2 buyers")


def verify(*, claimed=None, executor=None) -> ProofResult:
    """Check scores, sensitivities (``claimed``: name -> value) and monotonicity."""
    scope = ("exact: the pricing database (local) and every database of at most 2 people "
             "(global, replace and add/remove)")
    return run_checks(NAME, STATEMENT, scope, [
        ("score vectors of D and D'", score_vectors_match),
        ("sensitivities", lambda: sensitivities(claimed)),
        ("monotonic only under add/remove", monotonic_flags),
    ])
