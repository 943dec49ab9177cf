"""`create_tom_agent`, as `tom_swe.tom_agent` offers it; the agents made are kept in CREATED."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CREATED: list[FakeTomAgent] = []


@dataclass
class Suggestion:
    suggestions: str
    confidence: float
    reasoning: str


@dataclass
class FakeTomAgent:
    settings: dict[str, Any]
    queries: list[dict[str, Any]] = field(default_factory=list)
    indexed: list[list[dict[str, Any]]] = field(default_factory=list)

    def give_suggestions(
        self, *, user_id: str, query: str, formatted_messages: list[Any]
    ) -> Suggestion:
        self.queries.append({"user_id": user_id, "query": query, "messages": formatted_messages})
        self.settings["file_store"].write("usermodeling/notes.md", "prefers small diffs")
        return Suggestion("Ask which file they mean.", 0.8, "The request names no file.")

    def sleeptime_compute(self, *, sessions_data: list[dict[str, Any]], user_id: str) -> None:
        self.indexed.append(sessions_data)


def create_tom_agent(**settings: Any) -> FakeTomAgent:
    agent = FakeTomAgent(settings)
    CREATED.append(agent)
    return agent
