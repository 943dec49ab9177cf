"""The import paths users have for LocalConversation and GoalController, kept across the split.

`conversation/local.py` and `conversation/goal/controller.py` were split into modules of one
responsibility each; what a user imported from the old modules must still be the same object.
"""

from __future__ import annotations

import importlib

import pytest

KEPT = [
    ("openhands.sdk.conversation.local", "LocalConversation", "openhands.sdk.conversation.local"),
    ("openhands.sdk.conversation.local", "RUN_LOST", "openhands.sdk.conversation.recording"),
    (
        "openhands.sdk.conversation.local",
        "STOP_HOOK_FEEDBACK_PREFIX",
        "openhands.sdk.conversation.run_loop",
    ),
    (
        "openhands.sdk.conversation.local",
        "CLOSE_WAIT_SECONDS",
        "openhands.sdk.conversation.run_loop",
    ),
    (
        "openhands.sdk.conversation.goal.controller",
        "GoalController",
        "openhands.sdk.conversation.goal.controller",
    ),
    (
        "openhands.sdk.conversation.goal.controller",
        "ROUND_ENDING_ERRORS",
        "openhands.sdk.conversation.goal.machine",
    ),
    (
        "openhands.sdk.conversation.goal.controller",
        "GOAL_START_LABEL",
        "openhands.sdk.conversation.goal.machine",
    ),
    (
        "openhands.sdk.conversation.goal.controller",
        "GOAL_RESUMED_LABEL",
        "openhands.sdk.conversation.goal.machine",
    ),
    (
        "openhands.sdk.conversation.goal.controller",
        "MAX_JUDGE_FAILURES",
        "openhands.sdk.conversation.goal.snapshot",
    ),
]


@pytest.mark.parametrize(("old", "name", "home"), KEPT)
def test_a_name_imported_from_the_old_module_is_the_one_in_its_new_home(
    old: str, name: str, home: str
) -> None:
    assert getattr(importlib.import_module(old), name) is getattr(
        importlib.import_module(home), name
    )


def test_the_old_modules_list_what_they_still_export() -> None:
    for old in {old for old, _, _ in KEPT}:
        exported = set(importlib.import_module(old).__all__)
        assert {name for module, name, _ in KEPT if module == old} <= exported
