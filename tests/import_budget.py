"""The import budget: which modules `import openhands.sdk` and the agent server's start load.

Start-up time is mostly modules: each one imported at start is paid by every process, and a
heavy one slips in through a single eager import line. A timing cannot guard that on a shared
machine, so this compares names instead: the modules a fresh interpreter has loaded after
`import openhands.sdk`, and those a real server process (`python -m openhands.agent_server`)
has loaded once `/health` answers, against the budget committed in `import_budget.json`.

What is compared, so that the answer is the same on every machine:
- only what the program loads: the modules loaded before it began (site, `.pth` files of
  editable installs, this suite's own probe) are left out;
- `openhands.*` modules by full name; other installed packages by their top-level name (the
  lock pins their versions); the standard library by top-level public name, and only under
  the Python minor version the budget was recorded with (it differs between versions);
- the server runs with fresh folders, no developer's keys or models and no litellm preload
  (a background import that would race with the snapshot); a start whose sandbox self-check
  ran (bubblewrap here, `OH_SANDBOX` not `off`) may also load the modules of the budget's
  `server_sandbox` list, which a start without it never loads.

Update it on purpose, when an import at start is intended (or one was made lazy):
`uv run python tests/import_budget.py --update`, then commit `tests/import_budget.json`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ports import free_port

TESTS = Path(__file__).resolve().parent
PROBE_DIR = TESTS / "process_probe"
BUDGET_FILE = TESTS / "import_budget.json"
DUMP_VARIABLE = "OH_TEST_MODULES_DUMP"
UPDATE_COMMAND = "uv run python tests/import_budget.py --update"
WAIT_SECONDS = float(os.environ.get("OH_TEST_WAIT_SECONDS", "180"))
"""How long a server may take to start or to answer the probe (tests/waits.py's setting)."""

GROUPS = ("openhands", "packages", "stdlib")
"""What a module list is split into: our modules by name, other packages and the standard
library by top-level name."""

_NOT_COUNTED = ("__", "_sysconfigdata")
"""Names that vary by platform or by how the program was started (`__main__`, `__mp_main__`,
`_sysconfigdata_<abi>_<platform>`), not by what it imports."""

SDK_CODE = (
    "import json, sys\n"
    "before = set(sys.modules)\n"
    "import openhands.sdk\n"
    "print(json.dumps(sorted(set(sys.modules) - before)))\n"
)


@dataclass(frozen=True)
class ModuleSet:
    """Loaded modules, grouped as the budget compares them."""

    openhands: frozenset[str]
    packages: frozenset[str]
    stdlib: frozenset[str]

    @classmethod
    def of(cls, modules: set[str] | list[str]) -> ModuleSet:
        """Group module names: `openhands.*` whole, the rest by top-level name."""
        ours: set[str] = set()
        packages: set[str] = set()
        stdlib: set[str] = set()
        for name in modules:
            top = name.partition(".")[0]
            if top == "openhands":
                ours.add(name)
            elif top.startswith(_NOT_COUNTED):
                continue
            elif top in sys.stdlib_module_names:
                if not top.startswith("_"):  # C helpers behind public modules vary by build
                    stdlib.add(top)
            else:
                packages.add(top)
        return cls(frozenset(ours), frozenset(packages), frozenset(stdlib))

    def minus(self, other: ModuleSet) -> ModuleSet:
        """What this set holds and `other` does not."""
        return ModuleSet(
            self.openhands - other.openhands,
            self.packages - other.packages,
            self.stdlib - other.stdlib,
        )

    def union(self, other: ModuleSet) -> ModuleSet:
        """Both sets together."""
        return ModuleSet(
            self.openhands | other.openhands,
            self.packages | other.packages,
            self.stdlib | other.stdlib,
        )

    def to_json(self) -> dict[str, list[str]]:
        """The set as the budget file stores it (sorted lists)."""
        return {group: sorted(getattr(self, group)) for group in GROUPS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ModuleSet:
        """A set read from the budget file."""
        return cls(*(frozenset(data.get(group, [])) for group in GROUPS))


# -- measuring --------------------------------------------------------------------------------


def _environment(extra: dict[str, str]) -> dict[str, str]:
    """This environment without the developer's server settings and keys, with the probe on
    PYTHONPATH and written bytecode allowed (as an installed package has it)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("OH_", "LLM_")) or name in ("OH_SANDBOX", "OH_TEST_IMPORT_REPORT")
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    paths = [str(PROBE_DIR), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env["OH_TEST_IMPORT_PREFIX"] = sys.prefix
    return {**env, **extra}


def sdk_modules() -> set[str]:
    """The modules `import openhands.sdk` loads in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", SDK_CODE],
        env=_environment({}),
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"import openhands.sdk failed:\n{done.stderr[-3000:]}")
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@dataclass(frozen=True)
class ServerStart:
    """What a started server had loaded once /health answered, and whether its sandbox
    self-check ran."""

    modules: set[str]
    self_check_ran: bool


def _get(port: int, path: str) -> tuple[int, bytes] | None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    except OSError:
        return None
    finally:
        connection.close()


def _wait(what: str, check: Any, process: subprocess.Popen[bytes], log: Path) -> Any:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = check()
        if found:
            return found
        if process.poll() is not None:
            raise RuntimeError(f"the server exited while waiting for {what}:\n{_tail(log)}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {what} within {WAIT_SECONDS:.0f} s:\n{_tail(log)}")
        time.sleep(0.02)


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-3000:] if log.exists() else ""


def server_modules(root: Path, sandbox: str | None = None) -> ServerStart:
    """Start `python -m openhands.agent_server` with fresh folders under `root`; once /health
    answers, ask it (SIGUSR1, tests/process_probe) which modules it has loaded.

    `sandbox` sets OH_SANDBOX (None: as this environment says)."""
    root.mkdir(parents=True, exist_ok=True)
    dump = root / "modules.json"
    log = root / "server.log"
    extra = {
        DUMP_VARIABLE: str(dump),
        "OH_CONVERSATIONS_PATH": str(root / "conversations"),
        "OH_WORKSPACE_PATH": str(root / "workspaces"),
        "OH_PRELOAD_LITELLM": "false",
    }
    if sandbox is not None:
        extra["OH_SANDBOX"] = sandbox
    port = free_port()
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "openhands.agent_server", "--port", str(port)],
            env=_environment(extra),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait("/health", lambda: (_get(port, "/health") or (0,))[0] == 200, process, log)
        process.send_signal(signal.SIGUSR1)
        _wait("the module list", dump.exists, process, log)
        # /server_info after the snapshot: what it loads to answer is not part of the start.
        answer = _get(port, "/server_info")
        if answer is None or answer[0] != 200:
            raise RuntimeError(f"/server_info answered {answer}:\n{_tail(log)}")
        sandbox_info = json.loads(answer[1]).get("sandbox") or {}
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    seen = json.loads(dump.read_text(encoding="utf-8"))
    return ServerStart(
        modules=set(seen["loaded"]) - set(seen["baseline"]),
        self_check_ran=sandbox_info.get("self_check") in ("passed", "failed"),
    )


# -- comparing --------------------------------------------------------------------------------


def load_budget(path: Path = BUDGET_FILE) -> dict[str, Any]:
    """The committed budget."""
    return json.loads(path.read_text(encoding="utf-8"))


def python_version() -> str:
    """This interpreter's minor version, as the budget records it."""
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def problems(
    what: str, measured: ModuleSet, allowed: ModuleSet, optional: ModuleSet, budget: dict[str, Any]
) -> list[str]:
    """How `measured` breaks the budget: modules loaded beyond `allowed` (and `optional`),
    and modules of `allowed` no longer loaded (the budget is stale). [] when it keeps it."""
    groups = list(GROUPS)
    if budget.get("python") != python_version():
        groups.remove("stdlib")  # another Python imports other standard modules
    found: list[str] = []
    for group in groups:
        new = sorted(getattr(measured, group) - getattr(allowed, group) - getattr(optional, group))
        gone = sorted(getattr(allowed, group) - getattr(measured, group))
        label = {"openhands": "modules", "packages": "packages", "stdlib": "standard modules"}
        if new:
            found.append(
                f"{what} now loads {len(new)} {label[group]} beyond its import budget:\n"
                + "".join(f"  + {name}\n" for name in new)
            )
        if gone:
            found.append(
                f"{what} no longer loads {len(gone)} {label[group]} of its import budget "
                "(good: shrink the budget):\n" + "".join(f"  - {name}\n" for name in gone)
            )
    return found


def advice() -> str:
    """What a failure says to do."""
    return (
        "Every module loaded here is paid by each process at start (bench/import_time.py, "
        "bench/server_start.py). If it was not intended, import it where it is used (inside "
        "the function, or through a lazy table: openhands.sdk.utils.lazy, the server's "
        "api.LAZY_ROUTERS). If it was, update the budget on purpose: "
        f"`{UPDATE_COMMAND}` and commit tests/import_budget.json."
    )


# -- updating ---------------------------------------------------------------------------------


def measure_budget(previous: dict[str, Any] | None) -> tuple[dict[str, Any], list[str]]:
    """A fresh budget from this machine, and notes on what it could not measure here."""
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="oh-import-budget-") as tmp:
        plain = server_modules(Path(tmp) / "off", sandbox="off")
        sandboxed = server_modules(Path(tmp) / "auto", sandbox="auto")
    base = ModuleSet.of(plain.modules)
    if sandboxed.self_check_ran:
        extra = ModuleSet.of(sandboxed.modules).minus(base)
    else:
        extra = ModuleSet.from_json((previous or {}).get("server_sandbox", {}))
        notes.append(
            "no sandbox self-check ran here (no working bubblewrap): the server_sandbox list "
            "was kept as it was"
        )
    budget = {
        "about": "Modules loaded by `import openhands.sdk` and by the agent server's start "
        "(until /health answers); checked by tests/import_budget.py. Update: " + UPDATE_COMMAND,
        "python": python_version(),
        "sdk": ModuleSet.of(sdk_modules()).to_json(),
        "server": base.to_json(),
        "server_sandbox": extra.to_json(),
    }
    return budget, notes


def main() -> None:
    """`--update`: measure here and rewrite the budget; otherwise print what is measured."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {BUDGET_FILE.name}")
    args = parser.parse_args()
    previous = load_budget() if BUDGET_FILE.exists() else None
    budget, notes = measure_budget(previous)
    text = json.dumps(budget, indent=2) + "\n"
    if args.update:
        BUDGET_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {BUDGET_FILE}")
    else:
        print(text)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    for name in ("sdk", "server", "server_sandbox"):
        counts = {group: len(budget[name][group]) for group in GROUPS}
        print(f"{name}: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
