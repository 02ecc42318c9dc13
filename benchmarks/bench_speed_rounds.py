"""Before/after rounds of ``bench_speed.py`` by CPU time: is anything slower by more than 10%?

Usage::

    python benchmarks/bench_speed_rounds.py --before REV [--after REV] [--rounds 5]
        [--quick] [--skip A ...] [--threshold 0.10] [--out DIR] [--json PATH] [--keep-trees]
    python benchmarks/bench_speed_rounds.py --summarize --out DIR   # the table of saved runs

Each side is a tree: ``--before REV`` (and ``--after REV`` when given) is checked out with
``git worktree add --detach`` under ``--out`` (default ``/tmp/benchspeed``); without
``--after`` the after side is the working tree holding this script. Every run is this
``bench_speed.py`` (one script for both sides, so both time the same calls) in a fresh
``python -P`` process whose ``PYTHONPATH`` is the side's tree, so each side imports its own
``exactdp`` (checked in the run's JSON). The rounds interleave the sides, alternating which
goes first (before-after, after-before, ...), so a drift of the machine's load falls on both.

Every row is the median over the rounds of its CPU seconds (``time.process_time`` inside
``bench_speed.py``, the child's own CPU for its start-up rows); the table gives before, after,
after / before, and flags an exactdp row slower by more than ``--threshold``. Baseline rows
(numpy, the peers, the interpreter) do not depend on the side: their ratios show the noise.
A row below ``--floor`` seconds on both sides is not flagged (its ratio is timer noise).
Each run's JSON stays in ``--out`` as ``roundN-SIDE.json``; ``--summarize`` prints the table of
the rounds both sides finished there (after an interrupted call, say).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from _timing import child_cpu

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def git(*args: str, cwd: Path = ROOT) -> str:
    """Output of ``git args`` in ``cwd`` (raises on a failure)."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def checkout(rev: str, out: Path) -> tuple[Path, bool]:
    """A detached worktree of ``rev`` under ``out`` (reused when there), and whether made."""
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    tree = out / f"tree-{sha[:12]}"
    if (tree / "exactdp" / "__init__.py").exists():
        return tree, False
    out.mkdir(parents=True, exist_ok=True)
    git("worktree", "add", "--detach", str(tree), sha)
    return tree, True


def run_side(tree: Path, tag: str, args: argparse.Namespace) -> dict:
    """One run of bench_speed.py on ``tree``; its JSON, with the child's whole CPU added."""
    path = Path(args.out) / f"{tag}.json"
    cmd = [sys.executable, "-P", str(HERE / "bench_speed.py"), "--json", str(path)]
    cmd += ["--quick"] if args.quick else []
    cmd += ["--skip", *args.skip] if args.skip else []
    if args.nice:
        cmd = ["nice", "-n", str(args.nice), *cmd]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(HERE)])}
    cpu, done = child_cpu(cmd, env=env, cwd=str(tree))
    (Path(args.out) / f"{tag}.txt").write_text(done.stdout + done.stderr)
    if done.returncode:
        sys.exit(f"bench_speed.py failed on {tree} ({tag}):\n{done.stderr[-2000:]}")
    result = json.loads(path.read_text())
    found = Path(result["meta"]["exactdp_file"]).resolve()
    if not found.is_relative_to(tree.resolve()):
        sys.exit(f"{tag}: imported exactdp from {found}, not from {tree}")
    result["rows"]["whole run (child CPU)"] = {"s": cpu, "baseline": False}
    return result


def medians(runs: list[dict]) -> dict[str, tuple[float, bool]]:
    """Per row: the median of its seconds over the runs that have it, and its baseline flag."""
    keys = dict.fromkeys(k for r in runs for k in r["rows"])
    return {k: (statistics.median(r["rows"][k]["s"] for r in runs if k in r["rows"]),
                any(r["rows"][k]["baseline"] for r in runs if k in r["rows"]))
            for k in keys}


def table(before: dict, after: dict, threshold: float, floor: float) -> tuple[list[str], list]:
    """Markdown rows (before, after, ratio, verdict) and the flagged keys."""
    lines = ["| row | before ms | after ms | after / before | |", "|---|---:|---:|---:|---|"]
    flagged = []
    for key in list(dict.fromkeys([*before, *after])):
        if key not in before or key not in after:
            side = "after" if key in after else "before"
            only = (after if key in after else before)[key][0]
            lines.append(f"| {key} | | | | only {side}: {only * 1e3:.4g} ms |")
            continue
        (tb, base), (ta, _) = before[key], after[key]
        ratio = ta / tb if tb > 0 else float("inf")
        note = "baseline" if base else ""
        if ratio > 1 + threshold and not base:
            note = f"below {floor * 1e3:g} ms" if max(ta, tb) < floor else "**slower**"
            if max(ta, tb) >= floor:
                flagged.append(key)
        lines.append(f"| {key} | {tb * 1e3:.4g} | {ta * 1e3:.4g} | {ratio:.2f} | {note} |")
    return lines, flagged


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="git revision of the before side")
    ap.add_argument("--after", help="git revision of the after side (default: this tree)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="bench_speed.py --quick")
    ap.add_argument("--skip", nargs="*", default=[], help="bench_speed.py sections to skip")
    ap.add_argument("--threshold", type=float, default=0.10, help="flag ratios above 1 + this")
    ap.add_argument("--floor", type=float, default=1e-3, help="no flag below this many s")
    ap.add_argument("--nice", type=int, default=0, help="run the children under nice -n N")
    ap.add_argument("--out", default="/tmp/benchspeed", help="worktrees and run logs")
    ap.add_argument("--json", metavar="PATH", help="write the medians and every run here")
    ap.add_argument("--keep-trees", action="store_true", help="keep the worktrees made")
    ap.add_argument("--summarize", action="store_true",
                    help="run nothing: the table of the rounds saved in --out")
    args = ap.parse_args(argv)
    if args.summarize:
        return report(saved_runs(Path(args.out)), args)
    if args.before is None:
        ap.error("--before REV is required (or --summarize)")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    made = []
    trees = {"after": ROOT}
    for side, rev in (("before", args.before), ("after", args.after)):
        if rev is not None:
            trees[side], new = checkout(rev, Path(args.out))
            made += [trees[side]] if new else []
    print(f"before: {trees['before']} ({git('rev-parse', '--short', 'HEAD', cwd=trees['before'])})"
          f"\nafter: {trees['after']} ({git('rev-parse', '--short', 'HEAD', cwd=trees['after'])})"
          f"\nload average at the start: {os.getloadavg()[0]:.1f}", flush=True)
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    try:
        for i in range(args.rounds):
            order = ("before", "after") if i % 2 == 0 else ("after", "before")
            for side in order:
                runs[side].append(run_side(trees[side], f"round{i + 1}-{side}", args))
                cpu = runs[side][-1]["rows"]["whole run (child CPU)"]["s"]
                print(f"round {i + 1} {side}: {cpu:.1f} s CPU, load "
                      f"{os.getloadavg()[0]:.1f}", flush=True)
    finally:
        for tree in made if not args.keep_trees else []:
            git("worktree", "remove", "--force", str(tree))
    report(runs, args)


def saved_runs(out: Path) -> dict[str, list[dict]]:
    """The runs an earlier (perhaps interrupted) call left in ``out`` (``round*-SIDE.json``),
    up to the last round both sides finished."""
    def number(path: Path) -> int:  # round12-after.json -> 12
        return int(path.name.split("-")[0].removeprefix("round"))

    runs = {side: [json.loads(p.read_text())
                   for p in sorted(out.glob(f"round*-{side}.json"), key=number)]
            for side in ("before", "after")}
    rounds = min(len(v) for v in runs.values())
    return {side: v[:rounds] for side, v in runs.items()}


def report(runs: dict[str, list[dict]], args: argparse.Namespace) -> None:
    """Print the table of per-row medians (and write ``--json``)."""
    before, after = medians(runs["before"]), medians(runs["after"])
    lines, flagged = table(before, after, args.threshold, args.floor)
    print(f"\nmedians of {len(runs['after'])} interleaved rounds, CPU milliseconds; load "
          f"average at the end {os.getloadavg()[0]:.1f}\n")
    print("\n".join(lines))
    print(f"\nslower by more than {args.threshold:.0%}: "
          + (", ".join(flagged) if flagged else "none"))
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"before": {k: v[0] for k, v in before.items()},
             "after": {k: v[0] for k, v in after.items()},
             "flagged": flagged, "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
