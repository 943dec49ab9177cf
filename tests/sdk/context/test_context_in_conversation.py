"""An agent's context in a real conversation: the system prompt, user turns, project skills
and memory, with a scripted LLM that records what it was sent."""

from __future__ import annotations

import json
from pathlib import Path

from openhands.sdk import (
    Agent,
    AgentContext,
    LocalConversation,
    Message,
    MessageEvent,
    SystemPromptEvent,
    TextContent,
)
from openhands.sdk.context import KeywordTrigger, Skill
from openhands.sdk.context.memory import MEMORY_INDEX_RELPATH
from openhands.sdk.testing import TestLLM

MAGIC = Skill(
    name="flarglebargle",
    content="Tell them how smart they are.",
    trigger=KeywordTrigger(keywords=["flarglebargle"]),
)


def _conversation(
    workspace: Path, context: AgentContext | None, replies: int = 3, **kwargs
) -> tuple[LocalConversation, TestLLM]:
    llm = TestLLM.from_messages(
        [Message(role="assistant", content=[TextContent(text=f"ok {i}")]) for i in range(replies)]
    )
    return LocalConversation(Agent(llm=llm, agent_context=context), workspace, **kwargs), llm


def _texts(message: Message) -> list[str]:
    """The text of each content part of `message`."""
    return [part.text for part in message.content if isinstance(part, TextContent)]


def _system(conversation: LocalConversation) -> SystemPromptEvent:
    return next(e for e in conversation.state.events if isinstance(e, SystemPromptEvent))


def _user_events(conversation: LocalConversation) -> list[MessageEvent]:
    return [
        e for e in conversation.state.events if isinstance(e, MessageEvent) and e.source == "user"
    ]


def test_the_dynamic_context_is_a_second_block_of_the_system_message(workspace_dir) -> None:
    context = AgentContext(
        skills=[Skill(name="repo.md", content="Reply like a grumpy cat.")],
        system_message_suffix="End with 'yay!'",
    )
    conversation, llm = _conversation(workspace_dir, context)
    conversation.send_message("Hey")

    conversation.run()

    system = llm.calls[0][0]
    assert system.role == "system"
    static, dynamic = _texts(system)
    assert static == _system(conversation).system_prompt.text
    assert "Reply like a grumpy cat." in dynamic and "End with 'yay!'" in dynamic
    recorded = _system(conversation).dynamic_context
    assert recorded is not None and recorded.text == dynamic
    conversation.close()


def test_an_agent_without_context_has_no_dynamic_context(workspace_dir, persistence_dir) -> None:
    conversation, llm = _conversation(workspace_dir, None, persistence_dir=persistence_dir)
    conversation.send_message("Hey")
    conversation.run()
    conversation.close()

    assert len(llm.calls[0][0].content) == 1
    first_line = (
        (persistence_dir / conversation.id.hex / "events.jsonl").read_text().splitlines()[0]
    )
    assert "dynamic_context" not in json.loads(first_line)


def test_a_keyword_skill_joins_the_turn_that_triggers_it_once(workspace_dir) -> None:
    conversation, llm = _conversation(workspace_dir, AgentContext(skills=[MAGIC]))

    for text in ("hello", "flarglebargle!", "flarglebargle again"):
        conversation.send_message(text)
        conversation.run()

    hello, magic, again = _user_events(conversation)
    assert (hello.activated_skills, magic.activated_skills, again.activated_skills) == (
        [],
        ["flarglebargle"],
        [],
    )
    sent = llm.calls[1][-1]
    assert sent.role == "user"
    said, added = _texts(sent)
    assert said == "flarglebargle!"
    assert "Tell them how smart they are." in added
    assert len(llm.calls[2][-1].content) == 1
    conversation.close()


def test_the_user_suffix_extends_every_user_message(workspace_dir) -> None:
    conversation, llm = _conversation(
        workspace_dir, AgentContext(user_message_suffix="Start with 'I'.")
    )
    conversation.send_message("one")
    conversation.run()
    conversation.send_message("two")
    conversation.run()

    assert [_texts(m)[-1] for m in llm.calls[1] if m.role == "user"] == [
        "Start with 'I'.",
        "Start with 'I'.",
    ]
    assert _user_events(conversation)[0].llm_message.text == "one"  # the user's own text kept
    conversation.close()


def test_the_extension_survives_a_reopen(workspace_dir, persistence_dir) -> None:
    context = AgentContext(skills=[MAGIC])
    conversation, _ = _conversation(workspace_dir, context, persistence_dir=persistence_dir)
    conversation.send_message("flarglebargle")
    conversation.close()

    reopened = LocalConversation(
        None, persistence_dir=persistence_dir, conversation_id=conversation.id
    )
    [event] = _user_events(reopened)
    assert event.activated_skills == ["flarglebargle"]
    assert "Tell them how smart" in _texts(event.to_llm_message())[1]
    reopened.close()


def test_project_skills_are_read_from_the_workspace_when_asked(workspace_dir) -> None:
    (workspace_dir / "AGENTS.md").write_text("Always run make lint.")
    skills = workspace_dir / ".openhands" / "skills"
    skills.mkdir(parents=True)
    (skills / "db.md").write_text("---\ntriggers: [postgres]\n---\nUse psql -X.")
    conversation, llm = _conversation(workspace_dir, AgentContext(load_project_skills=True))

    conversation.send_message("check postgres")
    conversation.run()

    dynamic = _system(conversation).dynamic_context
    assert dynamic is not None and "Always run make lint." in dynamic.text
    assert _user_events(conversation)[0].activated_skills == ["db"]
    assert "Use psql -X." in _texts(llm.calls[0][-1])[1]
    conversation.close()


def test_the_conversation_agent_shows_project_skills_the_stored_agent_does_not(
    workspace_dir,
) -> None:
    (workspace_dir / "AGENTS.md").write_text("Project rule: run make lint.")
    context = AgentContext(
        skills=[Skill(name="agents", content="older rule"), Skill(name="keep", content="kept")],
        load_project_skills=True,
        current_datetime=None,
    )
    conversation, _ = _conversation(workspace_dir, context)

    shown = conversation.agent.agent_context
    assert shown is not None
    by_name = {skill.name: skill.content for skill in shown.skills}
    assert "Project rule: run make lint." in by_name["agents"]  # the project wins the name
    assert by_name["keep"] == "kept"
    stored = conversation.state.agent.agent_context
    assert stored is not None
    assert [skill.content for skill in stored.skills] == ["older rule", "kept"]
    conversation.close()


def test_the_conversation_agent_is_the_stored_one_without_project_skills(workspace_dir) -> None:
    conversation, _ = _conversation(workspace_dir, AgentContext(load_project_skills=True))

    assert conversation.agent is conversation.state.agent  # no project skills: nothing to add
    conversation.close()


def test_project_skills_are_not_read_unless_asked(workspace_dir) -> None:
    (workspace_dir / "AGENTS.md").write_text("Always run make lint.")
    conversation, _ = _conversation(workspace_dir, AgentContext(current_datetime=None))

    assert _system(conversation).dynamic_context is None
    conversation.close()


def test_memory_reaches_the_next_conversation_in_the_same_workspace(workspace_dir) -> None:
    context = AgentContext(load_memory=True)
    first, _ = _conversation(workspace_dir, context)
    first_dynamic = _system(first).dynamic_context
    first.close()
    index = workspace_dir / MEMORY_INDEX_RELPATH
    index.parent.mkdir(parents=True)
    index.write_text("- We use uv, not pip.")

    second, _ = _conversation(workspace_dir, context)

    assert first_dynamic is not None
    assert "<MEMORY>" in first_dynamic.text and "<MEMORY_CONTEXT>" not in first_dynamic.text
    dynamic = _system(second).dynamic_context
    assert dynamic is not None
    assert "<MEMORY_CONTEXT>" in dynamic.text and "We use uv, not pip." in dynamic.text
    assert "memory_context" not in second.state.agent.model_dump_json()
    second.close()


def test_the_context_secrets_and_the_conversation_secrets_reach_commands_and_the_prompt(
    workspace_dir,
) -> None:
    context = AgentContext(
        current_datetime=None,
        secrets={"DEPLOY_KEY": "from-context", "SHARED": "context-value"},
    )
    conversation, _ = _conversation(
        workspace_dir, context, secrets={"SHARED": "conversation-value"}
    )

    registry = conversation.state.secret_registry
    assert registry.env_for("echo $DEPLOY_KEY $SHARED") == {
        "DEPLOY_KEY": "from-context",
        "SHARED": "conversation-value",
    }
    dynamic = _system(conversation).dynamic_context
    assert dynamic is not None
    assert "**$DEPLOY_KEY**" in dynamic.text and "**$SHARED**" in dynamic.text
    assert "from-context" not in dynamic.text and "conversation-value" not in dynamic.text


def test_conversation_secrets_are_named_without_an_agent_context(workspace_dir) -> None:
    conversation, _ = _conversation(workspace_dir, None, secrets={"API_TOKEN": "t0ken"})

    dynamic = _system(conversation).dynamic_context
    assert dynamic is not None and "**$API_TOKEN**" in dynamic.text
