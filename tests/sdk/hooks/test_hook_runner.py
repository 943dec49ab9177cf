"""HookConfig parsing and the command-hook runner on its own."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from child_processes import Sleeper
from openhands.sdk.hooks import HookConfig, HookEventType, HookRunner
from pydantic import ValidationError


def test_config_accepts_the_documented_json_shape() -> None:
    config = HookConfig.model_validate(
        {
            "stop": [{"matcher": "*", "hooks": [{"type": "command", "command": "true"}]}],
            "pre_tool_use": [{"matcher": "terminal", "hooks": [{"command": "exit 2"}]}],
        }
    )

    assert [h.command for h in config.hooks_for(HookEventType.STOP)] == ["true"]
    assert config.hooks_for(HookEventType.PRE_TOOL_USE, "terminal")[0].timeout == 60
    assert config.hooks_for(HookEventType.PRE_TOOL_USE, "file_editor") == []


def test_config_accepts_pascal_case_keys() -> None:
    config = HookConfig.model_validate(
        {
            "PreToolUse": [{"hooks": [{"command": "a"}]}],
            "UserPromptSubmit": [{"hooks": [{"command": "b"}]}],
        }
    )

    assert config.hooks_for(HookEventType.PRE_TOOL_USE, "x")[0].command == "a"
    assert config.hooks_for(HookEventType.USER_PROMPT_SUBMIT)[0].command == "b"
    assert not config.is_empty()
    assert HookConfig().is_empty()


def test_config_rejects_unknown_events() -> None:
    with pytest.raises(ValidationError, match="Unknown event type 'OnCoffeeBreak'"):
        HookConfig.model_validate({"OnCoffeeBreak": []})


def test_config_rejects_an_event_given_in_both_spellings() -> None:
    with pytest.raises(ValidationError, match="Duplicate hook event"):
        HookConfig.model_validate({"PreToolUse": [], "pre_tool_use": []})


def test_config_rejects_a_blank_command() -> None:
    with pytest.raises(ValidationError, match="command"):
        HookConfig.model_validate({"stop": [{"hooks": [{"command": ""}]}]})


def test_matcher_is_a_regex_or_a_plain_name() -> None:
    config = HookConfig.model_validate(
        {
            "pre_tool_use": [
                {"matcher": "file_.*", "hooks": [{"command": "regex"}]},
                {"matcher": "a[b", "hooks": [{"command": "plain"}]},
            ]
        }
    )

    assert [h.command for h in config.hooks_for(HookEventType.PRE_TOOL_USE, "file_editor")] == [
        "regex"
    ]
    assert [h.command for h in config.hooks_for(HookEventType.PRE_TOOL_USE, "a[b")] == ["plain"]


def _runner(tmp_path: Path, event: str, *commands: str, timeout: float = 10) -> HookRunner:
    config = HookConfig.model_validate(
        {event: [{"hooks": [{"command": c, "timeout": timeout} for c in commands]}]}
    )
    return HookRunner(config, str(tmp_path), session_id="abc123")


def test_hooks_run_in_order_and_stop_at_the_first_block(tmp_path: Path) -> None:
    runner = _runner(
        tmp_path, "stop", "echo 1 >> order", "echo 2 >> order; exit 2", "echo 3 >> order"
    )

    result = runner.run(HookEventType.STOP, {})

    assert result.blocked
    assert (tmp_path / "order").read_text().split() == ["1", "2"]


def test_block_feedback_prefers_stderr_then_stdout(tmp_path: Path) -> None:
    on_stdout = _runner(tmp_path, "stop", "echo from-stdout; exit 2").run(HookEventType.STOP, {})
    on_stderr = _runner(tmp_path, "stop", "echo out; echo err >&2; exit 2").run(
        HookEventType.STOP, {}
    )
    silent = _runner(tmp_path, "stop", "exit 2").run(HookEventType.STOP, {})

    assert on_stdout.feedback == "from-stdout"
    assert on_stderr.feedback == "err"
    assert silent.feedback == "blocked by hook"


def test_non_utf8_hook_output_becomes_feedback_with_replacement_characters(
    tmp_path: Path,
) -> None:
    runner = _runner(tmp_path, "stop", r"printf 'caf\xe9 failed\n' >&2; exit 2")

    result = runner.run(HookEventType.STOP, {})

    assert result.blocked
    assert result.feedback == "caf\ufffd failed"


def test_payload_names_the_event_session_and_folder_in_both_sdks_words(tmp_path: Path) -> None:
    _runner(tmp_path, "stop", "cat > payload.json").run(HookEventType.STOP, {"extra": [1, 2]})

    payload = json.loads((tmp_path / "payload.json").read_text())
    assert payload == {
        "hook_event_name": "Stop",
        "event_type": "Stop",
        "session_id": "abc123",
        "cwd": str(tmp_path),
        "working_dir": str(tmp_path),
        "extra": [1, 2],
    }


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a killed child may linger as a zombie until init reaps it


def test_a_hook_that_hangs_is_killed_with_its_children_and_does_not_block(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, sleeper: Sleeper
) -> None:
    runner = _runner(tmp_path, "stop", f"{sleeper.command} & wait", timeout=0.5)

    with caplog.at_level(logging.ERROR):
        result = runner.run(HookEventType.STOP, {})

    assert not result.blocked
    assert "timed out" in caplog.text
    # SIGKILL is sent before run() returns; the kernel may still be tearing the child down.
    assert sleeper.gone()


def test_no_hooks_means_allowed(tmp_path: Path) -> None:
    result = HookRunner(None, str(tmp_path)).run(HookEventType.STOP, {})

    assert not result.blocked
    assert os.listdir(tmp_path) == []


def test_config_rejects_a_nul_byte_in_a_command_naming_the_field() -> None:
    with pytest.raises(ValidationError) as caught:
        HookConfig.model_validate({"stop": [{"hooks": [{"command": "echo a\x00b"}]}]})

    [error] = caught.value.errors()
    assert error["loc"] == ("stop", 0, "hooks", 0, "command")
    assert "NUL byte" in error["msg"]


@pytest.mark.slow
@pytest.mark.timeout(30)
def test_a_hook_whose_escaped_grandchild_holds_the_pipe_still_times_out(tmp_path: Path) -> None:
    # The `setsid` child outlives its subshell: it is in no group the kill reaches, and it
    # keeps the hook's stdout open, which used to make the runner wait for it forever.
    command = "(setsid bash -c 'echo $$ > escaped.pid; exec sleep 60' &); sleep 60"
    runner = _runner(tmp_path, "stop", command, timeout=0.5)
    try:
        result = runner.run(HookEventType.STOP, {})
        assert not result.blocked
    finally:
        pid_file = tmp_path / "escaped.pid"
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), 9)
