"""`BrowserObservation`: what a browser tool returns (text, and a screenshot when asked).

Its JSON has the reference SDK's fields only (`screenshot_data`, `full_output_save_dir`), so
the reference's clients read the events. The LLM gets the text and, with a screenshot, the
image; a model without vision gets the text alone (the agent drops images for it).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from pathlib import Path

from openhands.sdk.io import make_private_dir, write_atomic
from openhands.sdk.llm import ImageContent, TextContent
from openhands.sdk.tool import Observation
from pydantic import Field

__all__ = ["BASE64_IMAGE_PREFIXES", "BrowserObservation", "detect_image_mime_type"]

BASE64_IMAGE_PREFIXES = {
    "/9j/": "image/jpeg",
    "iVBORw0KGgo": "image/png",
    "R0lGODlh": "image/gif",
    "UklGR": "image/webp",
}
"""How base64 image data starts, by its MIME type."""


def detect_image_mime_type(base64_data: str) -> str:
    """The MIME type of base64 image data (PNG when it is not recognised)."""
    for prefix, mime_type in BASE64_IMAGE_PREFIXES.items():
        if base64_data.startswith(prefix):
            return mime_type
    return "image/png"


class BrowserObservation(Observation):
    """The result of a browser action: text for the agent, and a screenshot if one was taken."""

    screenshot_data: str | None = Field(
        default=None, description="The screenshot, base64 (PNG), when one was taken."
    )
    full_output_save_dir: str | None = Field(
        default=None, description="Folder where the screenshot is also saved as a file."
    )

    def save_screenshot(self) -> Path | None:
        """Write the screenshot into `full_output_save_dir` (named by its hash); its path, or
        None without a screenshot, a folder, or valid data."""
        if not self.screenshot_data or not self.full_output_save_dir:
            return None
        try:
            data = base64.b64decode(self.screenshot_data, validate=True)
        except (binascii.Error, ValueError):
            return None
        suffix = detect_image_mime_type(self.screenshot_data).split("/")[-1]
        digest = hashlib.sha256(data).hexdigest()[:12]
        path = Path(self.full_output_save_dir) / f"browser_screenshot_{digest}.{suffix}"
        try:
            make_private_dir(path.parent)  # the conversation's folder: private, as all in it
            if not path.exists():
                write_atomic(path, data)
        except OSError:
            return None
        return path

    @property
    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """The text (an error gets a header line first), then the screenshot as an image."""
        parts: list[TextContent | ImageContent] = []
        if self.is_error:
            parts.append(TextContent(text=self.ERROR_MESSAGE_HEADER))
        parts.extend(part for part in self.content if isinstance(part, TextContent))
        if self.screenshot_data:
            mime_type = detect_image_mime_type(self.screenshot_data)
            parts.append(
                ImageContent(image_urls=[f"data:{mime_type};base64,{self.screenshot_data}"])
            )
        return parts
