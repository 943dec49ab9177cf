"""`to_prompt`: the `<available_skills>` listing, including when there is nothing to list."""

from __future__ import annotations

from openhands.sdk.context import Skill
from openhands.sdk.skills import to_prompt


def test_an_empty_listing_says_there_are_no_skills() -> None:
    assert to_prompt([]) == "<available_skills>\n  no available skills\n</available_skills>"


def test_a_listing_names_each_skill_with_its_description() -> None:
    text = to_prompt(
        [
            Skill(name="pdf-tools", content="# PDF", description="Process PDFs."),
            Skill(name="review", content="# Review", description="Review code."),
        ]
    )

    assert text.startswith("<available_skills>") and text.endswith("</available_skills>")
    assert text.count("<skill>") == 2
    assert "<name>pdf-tools</name>" in text and "<description>Review code.</description>" in text
    assert "no available skills" not in text
