"""Run the reference SDK's own unit tests against this project's packages (a measurement).

Not a test of the normal suite: a tool that prints one JSON line. It copies the reference
repository's `tests/` (`git archive`) into a temporary folder, keeps the `tests/sdk` and
`tests/tools` files whose imports (anywhere in the file) all resolve against the packages installed
here (a file importing a name that does not exist here is outside the measurement, as are
the files it reaches through `tests.*` helpers and conftests), runs them with this venv's
pytest, and reports passed / failed / errors per file and in total.

    uv run python tests/interop/reference_unit_tests.py            # the whole measurement
    uv run python tests/interop/reference_unit_tests.py --per-file # one line per file too
    uv run python tests/interop/reference_unit_tests.py --only tests/sdk/llm  # a subset
    uv run python tests/interop/reference_unit_tests.py --list-excluded  # what is outside, why

The reference repository defaults to the mirror at `OH_REFERENCE_REPO` or
`/work/.mirror/OpenHands+software-agent-sdk/repo` (a git dir; `--repo` to change).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

DEFAULT_REPO = "/work/.mirror/OpenHands+software-agent-sdk/repo"
AREAS = ("tests/sdk", "tests/tools")
SYNTAX = "<syntax of a newer Python>"
PYTEST_INI = """\
[pytest]
testpaths = tests
python_files = test_*.py
python_classes = Test*
python_functions = test_*
addopts = -p no:cacheprovider -m "not stress"
asyncio_mode = auto
markers =
    stress: stress tests
"""

# Collects every report (xdist forwards the workers' reports to the controller's hook).
RECORDER = """\
import json, os

_OUT = os.environ["REF_UNIT_RESULTS"]
_WORKER = os.environ.get("PYTEST_XDIST_WORKER") is not None  # the controller records


def pytest_runtest_logreport(report):
    if _WORKER:
        return
    if report.when == "call" or report.outcome != "passed":
        crash = getattr(report.longrepr, "reprcrash", None)
        why = crash.message if crash is not None else str(report.longrepr or "")
        with open(_OUT, "a") as f:
            f.write(json.dumps({"nodeid": report.nodeid, "when": report.when,
                                "outcome": report.outcome, "why": why[:500]}) + "\\n")


def pytest_collectreport(report):
    if _WORKER:
        return
    if report.outcome == "failed":
        with open(_OUT, "a") as f:
            f.write(json.dumps({"nodeid": report.nodeid, "when": "collect",
                                "outcome": "error", "longrepr": str(report.longrepr)[-2000:]})
                    + "\\n")
"""

# Runs in this venv: which (module, name) pairs resolve.
RESOLVER = """\
import importlib, json, sys, warnings
warnings.simplefilter("ignore")
pairs = json.load(sys.stdin)
out = {}
for module, name in pairs:
    key = module + ":" + (name or "")
    try:
        mod = importlib.import_module(module)
        if name and name != "*" and not hasattr(mod, name):
            importlib.import_module(module + "." + name)
        out[key] = None
    except BaseException as exc:
        out[key] = f"{type(exc).__name__}: {exc}"[:300]
json.dump(out, sys.stdout)
"""


def extract(repo: str, dest: Path) -> None:
    """`git archive HEAD tests` of the reference repository into `dest`."""
    archive = subprocess.run(
        ["git", "-C", repo, "archive", "HEAD", "tests"], check=True, capture_output=True
    ).stdout
    tar_path = dest / "tests.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(dest, filter="data")
    tar_path.unlink()


def module_imports(path: Path) -> list[tuple[str, str | None]]:
    """The (module, name) pairs a file imports, anywhere in it (a function's imports too)."""
    try:
        tree = ast.parse(path.read_text(), str(path))
    except SyntaxError as exc:  # newer syntax than this venv's Python reads
        return [(SYNTAX, f"line {exc.lineno}: {exc.msg}")]
    pairs: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            pairs.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            pairs.extend((node.module, alias.name) for alias in node.names)
    return pairs


def local_module(root: Path, module: str) -> Path | None:
    """The file of a `tests.*` helper module inside the copied tree, if it is one."""
    if module != "tests" and not module.startswith("tests."):
        return None
    base = root / Path(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return base if base.is_dir() else None


def external_pairs(root: Path, start: Path, seen: set[Path]) -> set[tuple[str, str | None]]:
    """Every non-`tests.*` import reached from `start` through `tests.*` helpers."""
    if start in seen or not start.is_file():
        return set()
    seen.add(start)
    pairs: set[tuple[str, str | None]] = set()
    for module, name in module_imports(start):
        local = local_module(root, module)
        if local is None:
            pairs.add((module, name))
            continue
        if local.is_dir() and name:  # `from tests.x import helper_module`
            local = local_module(root, f"{module}.{name}") or local
        pairs |= external_pairs(root, local, seen)
    return pairs


def resolve(pairs: set[tuple[str, str | None]]) -> dict[str, str | None]:
    """Ask this venv which imports exist (one subprocess for all)."""
    out = subprocess.run(
        [sys.executable, "-c", RESOLVER],
        input=json.dumps(sorted(pairs, key=lambda p: (p[0], p[1] or ""))),
        capture_output=True,
        text=True,
        check=True,
        env=os.environ | {"LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )
    return json.loads(out.stdout)


def select(root: Path, only: list[str]) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """The test files whose own imports (and their `tests.*` helpers') resolve here, and the
    conftests that do not (they are emptied: a test needing one of their fixtures errors)."""
    files = sorted(
        p
        for area in AREAS
        for p in (root.parent / area).rglob("test_*.py")
        if not only or any(str(p.relative_to(root.parent)).startswith(o) for o in only)
    )
    all_conftests = sorted(root.rglob("conftest.py"))
    needs = {path: external_pairs(root, path, set()) for path in files + all_conftests}
    answers = resolve(set().union(*needs.values()) if needs else set())
    selected, excluded, dropped = [], {}, []
    for path, pairs in needs.items():
        rel = str(path.relative_to(root.parent))
        keys = (f"{m}:{n or ''}" for m, n in pairs)
        missing = sorted(f"{key} ({answers[key]})" for key in keys if answers[key] is not None)
        if path.name == "conftest.py":
            if missing:
                dropped.append(rel)
        elif missing:
            excluded[rel] = missing
        else:
            selected.append(rel)
    return selected, excluded, dropped


def run(workdir: Path, files: list[str], workers: int, timeout: int) -> list[dict]:
    """Run the selected files with this venv's pytest; every report as a dict."""
    results = workdir / "results.jsonl"
    results.unlink(missing_ok=True)
    (workdir / "pytest.ini").write_text(PYTEST_INI)
    (workdir / "ref_unit_recorder.py").write_text(RECORDER)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "ref_unit_recorder", "--tb=no"]
    cmd += ["-o", f"timeout={timeout}", "-W", "ignore::DeprecationWarning"]
    if workers > 1:
        cmd += ["-n", str(workers)]
    env = os.environ | {
        "REF_UNIT_RESULTS": str(results),
        "PYTHONPATH": str(workdir),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    env.pop("PYTEST_ADDOPTS", None)
    subprocess.run(cmd + files, cwd=workdir, env=env, stdout=subprocess.DEVNULL)
    if not results.exists():
        return []
    return [json.loads(line) for line in results.read_text().splitlines()]


# A failure that is the test reaching into the reference's implementation rather than its
# public names: a missing attribute whose name starts with "_" (`agent._extract_summary`,
# `patch.object(Executor, "_ensure_chromium_available")`), or a module attribute a test
# patches that does not exist here (`patch("openhands.sdk.llm.llm.litellm_completion")`,
# `monkeypatch.setattr(module, "list_registered_tools", ...)`): imports are already checked
# file by file, so a module global reached only through a patch is an implementation detail.
_PRIVATE_ATTRIBUTE = re.compile(
    r"(?:has no attribute|does not have the attribute|cannot import name) '_[A-Za-z]\w*'"
)
_MODULE_PATCH = re.compile(
    r"(?:<module '[\w.]+'.*?> (?:does not have the attribute|has no attribute)"
    r"|module '[\w.]+' has no attribute) '\w+'"
)


def reaches_internals(why: str) -> bool:
    """Whether a failure message shows the test reaching for a name that is not public."""
    return bool(_PRIVATE_ATTRIBUTE.search(why) or _MODULE_PATCH.search(why))


def tally(files: list[str], reports: list[dict]) -> dict[str, Counter]:
    """passed / failed / errors / skipped per file (a test with a failed set-up is an
    error), and `internal`: how many of the failed and errors reach for internals."""
    per_file: dict[str, Counter] = defaultdict(Counter)
    outcome: dict[str, str] = {}
    why: dict[str, str] = {}
    for report in reports:
        nodeid = report["nodeid"]
        if report["when"] == "collect":
            per_file[nodeid.split("::")[0]]["errors"] += 1
            continue
        if report["outcome"] != "passed":
            why.setdefault(nodeid, report.get("why") or "")
        if report["when"] == "call":
            outcome[nodeid] = {"passed": "passed", "failed": "failed"}.get(
                report["outcome"], "skipped"
            )
        elif report["outcome"] == "skipped":
            outcome.setdefault(nodeid, "skipped")
        elif outcome.get(nodeid) != "failed":  # a failed set-up, or teardown after a pass
            outcome[nodeid] = "errors"
    for nodeid, result in outcome.items():
        counts = per_file[nodeid.split("::")[0]]
        counts[result] += 1
        if result in ("failed", "errors") and reaches_internals(why.get(nodeid, "")):
            counts["internal"] += 1
    return {f: per_file.get(f, Counter()) for f in files}


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Run the reference's unit tests against this project."
    )
    parser.add_argument("--repo", default=os.environ.get("OH_REFERENCE_REPO", DEFAULT_REPO))
    parser.add_argument("--only", nargs="*", default=[], help="path prefixes to keep")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=60, help="seconds per test")
    parser.add_argument("--keep", help="copy the reference's tests here and keep them")
    parser.add_argument("--per-file", action="store_true")
    parser.add_argument("--failures", action="store_true", help="print each failing test id")
    parser.add_argument("--list-excluded", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ref-unit-") as tmp:
        workdir = Path(args.keep) if args.keep else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        if not (workdir / "tests").is_dir():
            extract(args.repo, workdir)
        selected, excluded, dropped = select(workdir / "tests", args.only)
        for rel in dropped:
            (workdir / rel).write_text('"""Emptied: its imports do not resolve here."""\n')
        if args.list_excluded:
            for rel, missing in sorted(excluded.items()):
                print(json.dumps({"file": rel, "missing": missing}))
        reports = run(workdir, selected, args.workers, args.timeout) if selected else []
    counts = tally(selected, reports)
    if args.failures:
        for report in reports:
            if report["outcome"] in ("failed", "error"):
                internal = reaches_internals(report.get("why") or "")
                print(json.dumps(report | {"internal": internal}))
    if args.per_file:
        for rel, c in sorted(counts.items()):
            keys = ("passed", "failed", "errors", "internal")
            print(json.dumps({"file": rel} | {k: c[k] for k in keys}))
    total = sum(counts.values(), Counter())
    ran = total["passed"] + total["failed"] + total["errors"]
    summary = {
        "files": len(selected),
        "files_excluded": len(excluded),
        "conftests_emptied": len(dropped),
        "tests": ran,
        "passed": total["passed"],
        "failed": total["failed"],
        "errors": total["errors"],
        "skipped": total["skipped"],
        "pass_rate": round(total["passed"] / ran, 4) if ran else None,
        # The measure is the tests "that use only its public names": the same run
        # without the failures that reach for the reference's internals (see reaches_internals).
        "internal": total["internal"],
        "public_tests": ran - total["internal"],
        "public_pass_rate": round(total["passed"] / (ran - total["internal"]), 4)
        if ran > total["internal"]
        else None,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
