"""`SecretRegistry` and `update_secrets`: values for the commands that name them, masked after."""

from __future__ import annotations

import logging

import pytest
from openhands.sdk.conversation import SecretRegistry
from openhands.sdk.conversation.secret_registry import MASK
from openhands.sdk.secret import SecretSource, StaticSecret


class CountingSource(SecretSource):
    """A secret computed on demand; counts how often it was asked for."""

    calls: int = 0

    def get_value(self) -> str:
        self.calls += 1
        return "computed-value"


class FailingSource(SecretSource):
    def get_value(self) -> str:
        raise RuntimeError("vault unreachable: token=do-not-log")


def test_a_command_gets_exactly_the_secrets_it_names() -> None:
    registry = SecretRegistry()
    registry.update_secrets({"API_TOKEN": "abc123", "DB_PASSWORD": "hunter2"})

    assert registry.env_for('curl -H "Authorization: $API_TOKEN" x') == {"API_TOKEN": "abc123"}
    assert registry.env_for("echo ${DB_PASSWORD}") == {"DB_PASSWORD": "hunter2"}
    assert registry.env_for("echo $API_TOKEN_2 $MY_API_TOKEN") == {}


def test_the_reference_name_gives_the_same_secrets_and_masks_them_after() -> None:
    registry = SecretRegistry()
    registry.update_secrets({"API_TOKEN": "abc123", "COMPUTED": CountingSource()})

    assert registry.get_secrets_as_env_vars("echo $COMPUTED && echo $API_TOKEN") == {
        "COMPUTED": "computed-value",
        "API_TOKEN": "abc123",
    }
    assert registry.get_secrets_as_env_vars("ls") == {}
    assert registry.mask("computed-value") == MASK


def test_a_source_is_only_asked_when_a_command_names_it() -> None:
    source = CountingSource()
    registry = SecretRegistry()
    registry.update_secrets({"COMPUTED": source})

    registry.env_for("ls")
    assert source.calls == 0
    assert registry.env_for("echo $COMPUTED") == {"COMPUTED": "computed-value"}
    assert source.calls == 1


def test_values_handed_out_are_masked_in_output() -> None:
    registry = SecretRegistry()
    registry.update_secrets({"STATIC": "static-value", "COMPUTED": CountingSource()})

    before = registry.mask("static-value and computed-value")
    registry.env_for("echo $COMPUTED")
    after = registry.mask("static-value and computed-value")

    assert before == f"{MASK} and computed-value"  # a source's value is known once asked
    assert after == f"{MASK} and {MASK}"


def test_the_export_script_quotes_values_for_bash() -> None:
    registry = SecretRegistry()
    registry.update_secrets({"TRICKY": "a'b $(rm -rf /)"})

    assert registry.export_script("echo $TRICKY") == "export TRICKY='a'\"'\"'b $(rm -rf /)'\n"
    assert registry.export_script("ls") == ""


def test_a_failing_source_is_skipped_and_its_error_not_logged_in_clear(caplog) -> None:
    registry = SecretRegistry()
    registry.update_secrets({"BROKEN": FailingSource()})

    with caplog.at_level(logging.WARNING):
        assert registry.env_for("echo $BROKEN") == {}

    assert "BROKEN" in caplog.text
    assert "do-not-log" not in caplog.text


@pytest.mark.parametrize("name", ["1ABC", "WITH SPACE", "", "a-b"])
def test_names_must_be_environment_variable_names(name: str) -> None:
    registry = SecretRegistry()

    with pytest.raises(ValueError, match="environment variable name"):
        registry.update_secrets({name: "x", "GOOD": "y"})
    assert registry.names == []


def test_a_value_must_be_a_string_or_a_source() -> None:
    with pytest.raises(ValueError, match="string or a SecretSource"):
        SecretRegistry().update_secrets({"NUMBER": 42})  # type: ignore[dict-item]


def test_a_static_secret_never_shows_its_value_in_a_dump() -> None:
    secret = StaticSecret(value="plain-text-value", description="demo")  # type: ignore[arg-type]

    assert "plain-text-value" not in secret.model_dump_json()
    assert secret.get_value() == "plain-text-value"


def test_update_secrets_reaches_the_conversation_registry(make_conversation) -> None:
    conversation, _ = make_conversation(secrets={"FIRST": "one"})

    conversation.update_secrets({"SECOND": CountingSource()})

    registry = conversation.state.secret_registry
    assert registry.names == ["FIRST", "SECOND"]
    assert registry.env_for("echo $FIRST $SECOND") == {"FIRST": "one", "SECOND": "computed-value"}


def test_bad_secrets_are_refused_before_the_conversation_is_created(
    workspace_dir, persistence_dir
) -> None:
    from openhands.sdk import Agent, LocalConversation
    from openhands.sdk.testing import TestLLM

    with pytest.raises(ValueError, match="environment variable name"):
        LocalConversation(
            Agent(llm=TestLLM.from_messages([])),
            workspace_dir,
            persistence_dir=persistence_dir,
            secrets={"bad name": "x"},
        )

    assert not persistence_dir.exists() or not any(persistence_dir.iterdir())
