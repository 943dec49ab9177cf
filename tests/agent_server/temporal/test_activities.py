"""The goal workflow's activities against a real agent server (no Temporal server needed:
temporalio's ActivityEnvironment gives them their activity context)."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.agent_server.services.sealing import KEY_FILE_NAME
from openhands.agent_server.temporal.activities import run_verify
from openhands.agent_server.temporal.models import ServerRef, VerifyRequest
from openhands.sdk.workspace import sandbox_status
from temporalio.testing import ActivityEnvironment

from ..harness import ServerProcess

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def test_a_worker_s_verify_reads_the_whole_answer_and_runs_in_the_server_s_sandbox(
    tmp_path: Path,
) -> None:
    sandboxed = sandbox_status("bwrap").active
    env = {"OH_SANDBOX": "bwrap" if sandboxed else "off"}
    server = ServerProcess(tmp_path / "conversations", env=env).start()
    try:
        work = tmp_path / "work"
        work.mkdir()
        key_file = tmp_path / KEY_FILE_NAME
        key = key_file.read_text().strip()
        command = f"echo to-stdout; echo to-stderr >&2; cat {key_file}; touch made-here; exit 3"
        request = VerifyRequest(
            server=ServerRef(url=server.url, conversation_id="unused-by-verify"),
            command=command,
            working_dir=str(work),
            timeout=60,
        )

        result = ActivityEnvironment().run(run_verify, request)

        assert result["exit_code"] == 3, result
        assert "to-stdout" in result["output_tail"] and "to-stderr" in result["output_tail"]
        assert (work / "made-here").exists()  # the workspace is writable
        if sandboxed:
            assert key not in result["output_tail"], result
    finally:
        server.stop()
