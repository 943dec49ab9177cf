"""`render_template`: a prompt template file rendered with Jinja2 (imported only when used)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openhands.sdk.errors import OpenHandsError


class PromptTemplateError(OpenHandsError, ValueError):
    """A prompt template cannot be read or rendered: fix the file or the filename."""


def render_template(prompt_dir: str | Path, template_name: str, **kwargs: Any) -> str:
    """Render `template_name` (absolute, or relative to `prompt_dir`) with `kwargs`.

    Templates use Jinja2 syntax (`{{ name }}`, `{% if %}`, `{% include %}` from the same
    folder); a name a template uses but `kwargs` lacks renders empty. The result is stripped.
    """
    path = Path(template_name)
    if not path.is_absolute():
        path = Path(prompt_dir) / path
    if not path.is_file():
        raise PromptTemplateError(
            f"Prompt template {template_name!r} not found (looked for {path}); give an "
            "absolute path or a file in the agent's prompts folder."
        )
    # Jinja2 is only needed for custom templates, so it is not imported with the SDK.
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(path.parent)), keep_trailing_newline=False
    )
    try:
        return environment.get_template(path.name).render(**kwargs).strip()
    except jinja2.TemplateError as exc:
        raise PromptTemplateError(f"Prompt template {path} cannot be rendered: {exc}") from exc
