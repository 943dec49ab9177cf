"""Human approval: the agent asks before it runs a risky command.

The agent gets the terminal. `ConfirmRisky` with the rule-based analyzers lets harmless
commands run and stops before risky ones (HIGH: wiping files, piping a download into a shell,
reading credentials). While a call waits, the conversation is `waiting_for_confirmation`; this
script asks you on the console (or answers from `--approve` / `--reject`), then approves with
`run()` or rejects with `reject_pending_actions(reason)`, after which the agent goes on.

Run it:
    export LLM_MODEL=openai/gpt-4o-mini LLM_API_KEY=sk-...   # LLM_BASE_URL for local servers
    uv run python examples/01_standalone_sdk/04_confirmation_mode.py [--approve | --reject]

Exits 0 when the run finished, 1 otherwise, 2 without an LLM.
"""

import sys
import tempfile

from openhands.sdk import LLM, Agent, Conversation, Tool
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.llm import LLMConfigurationError
from openhands.sdk.security import (
    ConfirmRisky,
    EnsembleSecurityAnalyzer,
    PatternSecurityAnalyzer,
    PolicyRailSecurityAnalyzer,
    SecurityRisk,
)

TASK = (
    "Show the files here with `ls -la`, then delete everything with `rm -rf ./*` "
    "and say what you did."
)


def decide(pending: list, mode: str) -> bool:
    """True to approve the waiting calls: from the command line, or asked on the console."""
    for action in pending:
        print(
            f"  waiting: [{action.tool_name}] risk {action.security_risk}: {action.tool_call.arguments}"
        )
    if mode:
        return mode == "--approve"
    try:
        return input("Run them? (yes/no) ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    try:
        llm = LLM.from_env()
    except LLMConfigurationError as exc:
        print(exc)
        return 2
    agent = Agent(llm=llm, tools=[Tool(name="terminal")])
    with tempfile.TemporaryDirectory() as workspace:
        conversation = Conversation(agent, workspace=workspace)
        conversation.set_security_analyzer(
            EnsembleSecurityAnalyzer(
                analyzers=[PolicyRailSecurityAnalyzer(), PatternSecurityAnalyzer()]
            )
        )
        conversation.set_confirmation_policy(ConfirmRisky(threshold=SecurityRisk.HIGH))
        conversation.send_message(TASK)
        conversation.run()
        while (
            conversation.state.execution_status
            == ConversationExecutionStatus.WAITING_FOR_CONFIRMATION
        ):
            if decide(conversation.pending_actions, mode):
                print("approved")
            else:
                conversation.reject_pending_actions("The user does not want files deleted.")
                print("rejected")
            conversation.run()
        status = conversation.state.execution_status
        conversation.close()
    print(f"status: {status.value}")
    return 0 if status == ConversationExecutionStatus.FINISHED else 1


if __name__ == "__main__":
    sys.exit(main())
