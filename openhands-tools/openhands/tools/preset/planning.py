"""The planning agent: reads the workspace and writes an implementation plan, nothing else.

Its tools are `glob`, `grep` and `planning_file_editor` (views any file, edits only the
plan, `<workspace>/.agents_tmp/PLAN.md` by default, created with the section headers of
`PLAN_STRUCTURE`). Another agent (e.g. `get_default_agent`) then implements the plan.
"""

from __future__ import annotations

from typing import Final

from openhands.sdk.agent import DEFAULT_SYSTEM_PROMPT, Agent
from openhands.sdk.llm import LLM
from openhands.sdk.tool import Tool

PLAN_STRUCTURE: Final[tuple[tuple[str, str], ...]] = (
    ("OBJECTIVE", "The goal in one or two sentences, stated as an outcome someone can check."),
    (
        "CONTEXT SUMMARY",
        "The files, modules and data involved, and the constraints that bind the work.",
    ),
    ("APPROACH OVERVIEW", "The chosen approach and, briefly, why it beats the alternatives."),
    (
        "IMPLEMENTATION STEPS",
        "Numbered steps; each names its goal, how to do it, and the files it touches.",
    ),
    ("TESTING AND VALIDATION", "How to show the result works: the tests, commands and outputs."),
)
"""The plan's sections, in order: (title, what the section holds)."""


def plan_headers() -> str:
    """The empty plan: one Markdown header per section."""
    return "\n".join(f"# {n}. {title}\n" for n, (title, _) in enumerate(PLAN_STRUCTURE, 1))


def format_plan_structure() -> str:
    """The plan's sections and what each holds, as the planning prompt states them."""
    lines = [f"{n}. {title}: {what}" for n, (title, what) in enumerate(PLAN_STRUCTURE, 1)]
    return "The plan must have exactly these sections, in this order:\n" + "\n".join(lines)


PLANNING_SYSTEM_PROMPT: Final[str] = (
    DEFAULT_SYSTEM_PROMPT
    + """

You are a planning agent. Study the task and the workspace, then write an implementation
plan that another agent will follow without asking you anything. You change nothing but the
plan: find files with `glob`, search their content with `grep`, read them with
`planning_file_editor` (view), and write the plan with `planning_file_editor` (it may only
edit the plan file, whose headers are already in place). Do not ask the user questions:
where something is unclear, choose the most reasonable reading and say so in the plan.
Finish with a short summary of the plan.

"""
    + format_plan_structure()
)


def get_planning_tools(plan_path: str | None = None) -> list[Tool]:
    """The planning agent's tool specs; `plan_path` (absolute) moves the plan file."""
    editor_params = {"plan_path": plan_path} if plan_path else {}
    return [
        Tool(name="glob"),
        Tool(name="grep"),
        Tool(name="planning_file_editor", params=editor_params),
    ]


def get_planning_agent(llm: LLM) -> Agent:
    """An agent that explores read-only and writes `.agents_tmp/PLAN.md` in its workspace."""
    return Agent(llm=llm, tools=get_planning_tools(), system_prompt=PLANNING_SYSTEM_PROMPT)
