"""The agent's prompts: the built-in system prompt, and custom prompt templates.

`Agent.system_prompt_filename` names the system prompt: the default `system_prompt.j2` is
the built-in prompt below (unless the agent class's own `prompts/` folder holds a file of
that name); any other name is a template file, absolute or relative to that folder, rendered
with Jinja2 and `system_prompt_kwargs` (see `render_template`).
"""

from typing import TYPE_CHECKING

from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.agent.prompts.templates import PromptTemplateError, render_template

DEFAULT_SYSTEM_PROMPT = """\
You are a careful software agent working in a workspace on the user's machine.
Use the tools to inspect files, run commands and make changes. Verify your work with
real evidence (run the tests, read the file back) before you say it is done.
When the task is complete, call `finish` with a short summary of what you did and how
you verified it. If you cannot complete it, call `finish` and say why."""

DEFAULT_SYSTEM_PROMPT_FILENAME = "system_prompt.j2"
"""The `system_prompt_filename` that means the built-in prompt."""

DEFAULT_SECURITY_POLICY_FILENAME = "security_policy.j2"
"""The `security_policy_filename` that means the built-in security policy."""


# Templates are only rendered for custom prompts: load that module on first use.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "PromptTemplateError": "openhands.sdk.agent.prompts.templates",
        "render_template": "openhands.sdk.agent.prompts.templates",
    },
)


__all__ = [
    "DEFAULT_SECURITY_POLICY_FILENAME",
    "DEFAULT_SYSTEM_PROMPT",
    "DEFAULT_SYSTEM_PROMPT_FILENAME",
    "PromptTemplateError",
    "render_template",
]
