"""Loaded by every Python process the test suite starts (tests/litellm_guard.py puts this
folder on PYTHONPATH): it records, at the moment it happens, a process importing litellm.

A record is one JSON file in `$OH_TEST_IMPORT_REPORT`: the process id, its command line, the
test that was running (`PYTEST_CURRENT_TEST`) and the stack that imported litellm. Processes
of another Python installation (the reference SDK's venv in tests/interop), processes started
with `OH_TEST_LITELLM_ALLOWED=1` (a test about litellm) and pytest's own processes (they
remove this hook) record nothing. Standard library only, and nothing is imported until
litellm is: every process of the suite pays for this file.
"""

import os
import sys


class _LitellmImportProbe:
    """A meta path finder that never finds anything; it only notices litellm's import."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.recorded = False

    def find_spec(self, name, path=None, target=None):
        if name == "litellm" and not self.recorded and _importing():
            self.recorded = True
            self._record()
        return None

    def _record(self) -> None:
        try:
            import json
            import traceback

            stack = [
                line.strip()
                for line in traceback.format_stack()[:-2]
                if "importlib._bootstrap" not in line
            ]
            record = {
                "pid": os.getpid(),
                "argv": sys.argv,
                "test": os.environ.get("PYTEST_CURRENT_TEST", ""),
                "stack": stack[-12:],
            }
            path = os.path.join(self.folder, f"litellm-{os.getpid()}.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(record, handle)
        except Exception:  # a probe must never break the process it watches
            pass


def _importing() -> bool:
    """Whether this lookup is an import (`importlib.util.find_spec` only locates a package:
    the SDK does that to read litellm's price table without importing it)."""
    frame = sys._getframe(2)
    for _ in range(8):
        if frame is None:
            return False
        if frame.f_code.co_name in ("_find_and_load", "_find_and_load_unlocked"):
            return True
        frame = frame.f_back
    return False


def _install() -> None:
    folder = os.environ.get("OH_TEST_IMPORT_REPORT")
    if not folder or os.environ.get("OH_TEST_LITELLM_ALLOWED"):
        return
    if os.environ.get("OH_TEST_IMPORT_PREFIX", sys.prefix) != sys.prefix:
        return  # another installation (the reference SDK's venv): not our code
    sys.meta_path.insert(0, _LitellmImportProbe(folder))


_install()
