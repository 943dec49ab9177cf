"""A user's `except OpenHandsError` catches what the SDK and the tools raise on purpose.

Bare `ValueError` / `TypeError` / `RuntimeError` stay only where Python expects them: in
pydantic validators (pydantic turns them into a `ValidationError` naming the field), in the
protocols of the language (ordering, ...), and where the raise is caught a few lines later.
Everything else raises a subclass of `OpenHandsError`; those that replaced a built-in derive
from it too, so code catching the old type keeps working.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from import_graph import parsed
from openhands.sdk.errors import (
    InvalidArgumentError,
    InvalidArgumentTypeError,
    InvalidSettingError,
    InvalidStateError,
    NotFoundError,
    OpenHandsError,
)

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "sdk": ROOT / "openhands-sdk" / "openhands" / "sdk",
    "tools": ROOT / "openhands-tools" / "openhands" / "tools",
}
BUILTINS = {"ValueError", "TypeError", "RuntimeError", "FileNotFoundError"}
VALIDATORS = {"field_validator", "model_validator", "validator", "root_validator"}

ALLOWED = {
    (
        "sdk",
        "agent/agent.py",
        "Agent._validate",
    ): "caught below: the LLM is told its arguments are bad",
    (
        "sdk",
        "agent/agent.py",
        "Agent._invoke",
    ): "caught below: a broken tool becomes an error the LLM sees",
    ("sdk", "conversation/goal/limits.py", "_unlimited_or_positive"): "called by validators",
    ("sdk", "plugin/types.py", "_relative_folder"): "called by a validator",
    ("sdk", "tool/tool_json.py", "read_tool"): "called by a validator (a ValidationError)",
    ("sdk", "security/risk.py", "SecurityRisk._rank"): "ordering protocol: < on unordered values",
    (
        "sdk",
        "testing/fake_openai_server.py",
        "_make_handler.Handler.do_POST",
    ): "caught below: a 400",
    ("sdk", "mcp/transports.py", "stdio_transport"): "MCPClient turns it into an MCPError",
    ("tools", "workflow/runner.py", "*"): "the script's own process: standard library only, "
    "errors travel over the pipe as text",
}
"""Bare built-in raises outside validators: (package, file, function) -> why it stays."""


def _bare_raises(package: str, root: Path) -> list[tuple[str, str, int]]:
    found: list[tuple[str, str, int]] = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()

        def visit(node: ast.AST, scope: list[ast.AST], relative: str = relative) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    visit(child, [*scope, child])
                    continue
                if isinstance(child, ast.Raise) and _raised_name(child) in BUILTINS:
                    functions = [s for s in scope if not isinstance(s, ast.ClassDef)]
                    if functions and _is_validator(functions[-1]):
                        continue
                    qualname = ".".join(s.name for s in scope)  # type: ignore[attr-defined]
                    if (package, relative, qualname) not in ALLOWED and (
                        package,
                        relative,
                        "*",
                    ) not in ALLOWED:
                        found.append((relative, qualname, child.lineno))
                visit(child, scope)

        visit(parsed(path), [])
    return found


def _raised_name(node: ast.Raise) -> str | None:
    exc = node.exc
    if isinstance(exc, ast.Call):
        exc = exc.func
    return exc.id if isinstance(exc, ast.Name) else None


def _is_validator(function: ast.AST) -> bool:
    decorators = getattr(function, "decorator_list", [])
    for decorator in decorators:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in VALIDATORS:
            return True
    return False


@pytest.mark.parametrize("package", sorted(SOURCES))
def test_no_bare_builtin_raise_outside_validators_and_the_allowed_places(package: str) -> None:
    found = _bare_raises(package, SOURCES[package])

    assert found == [], (
        "raise a subclass of OpenHandsError whose message says what to do (see "
        "openhands/sdk/errors.py), or add the place to ALLOWED with the reason: "
        f"{found}"
    )


def test_the_scan_finds_a_bare_raise_and_skips_validators(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text(
        "from pydantic import field_validator\n"
        "class M:\n"
        "    @field_validator('x')\n"
        "    @classmethod\n"
        "    def _x(cls, v):\n"
        "        raise ValueError('validators keep ValueError')\n"
        "def use(x):\n"
        "    raise TypeError('a user reaches this')\n"
    )

    assert _bare_raises("demo", tmp_path) == [("mod.py", "use", 8)]


# -- the families, raised for real ---------------------------------------------------------


def test_a_bad_conversation_id_is_an_invalid_argument_a_value_error_names() -> None:
    from openhands.sdk.conversation.base import as_conversation_id

    with pytest.raises(InvalidArgumentError, match="omit it") as caught:
        as_conversation_id("not-a-uuid")
    assert isinstance(caught.value, OpenHandsError)
    assert isinstance(caught.value, ValueError)


def test_registering_something_that_is_not_a_tool_is_an_invalid_argument_type() -> None:
    from openhands.sdk.tool import register_tool

    with pytest.raises(InvalidArgumentTypeError) as caught:
        register_tool("not_a_tool_for_this_test", 42)  # type: ignore[arg-type]
    assert isinstance(caught.value, TypeError)
    assert isinstance(caught.value, OpenHandsError)


def test_a_bad_environment_setting_is_an_invalid_setting_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from openhands.sdk.workspace.checkpoints.models import CheckpointSettings

    monkeypatch.setenv("OH_CHECKPOINT_MAX_FILES", "many")

    with pytest.raises(InvalidSettingError, match="OH_CHECKPOINT_MAX_FILES"):
        CheckpointSettings.from_env()


def test_asking_a_stopped_fake_server_for_its_url_is_an_invalid_state() -> None:
    from openhands.sdk.testing import FakeOpenAIServer

    with pytest.raises(InvalidStateError, match="start") as caught:
        _ = FakeOpenAIServer().base_url
    assert isinstance(caught.value, RuntimeError)


def test_a_malformed_mcp_config_is_an_mcp_config_error() -> None:
    from openhands.sdk.mcp import MCPError, coerce_mcp_config

    with pytest.raises(MCPError, match="mcpServers") as caught:
        coerce_mcp_config(["not", "a", "mapping"])
    assert isinstance(caught.value, ValueError)


def test_a_tool_given_params_it_does_not_take_is_an_invalid_tool_spec(tmp_path: Path) -> None:
    from openhands.sdk.tool import InvalidToolSpecError, ToolContext
    from openhands.tools.glob import GlobTool

    with pytest.raises(InvalidToolSpecError, match="takes no params"):
        GlobTool.create(ToolContext(working_dir=str(tmp_path)), unexpected=1)


def test_a_missing_llm_profile_is_a_not_found_error_naming_the_profiles(tmp_path: Path) -> None:
    from openhands.sdk.llm import LLMProfileStore

    with pytest.raises(NotFoundError, match="no-such-profile") as caught:
        LLMProfileStore(base_dir=tmp_path).load("no-such-profile")
    assert isinstance(caught.value, FileNotFoundError)
