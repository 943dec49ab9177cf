"""Shrinking images that a provider would refuse: Anthropic's many-image limit.

Anthropic accepts images up to 8000x8000 pixels, but a request with more than 20 images
caps every image at 2000x2000 and refuses the request otherwise. Before such a request is
sent, each inline (base64 data URL) image larger than that is scaled down to fit, keeping
its aspect ratio and format; image links (http URLs) are left to the provider. Pillow is
loaded only when an image has to be resized.
"""

from __future__ import annotations

import base64
import binascii
import io
import logging
import re
from typing import Any

__all__ = [
    "MANY_IMAGES_MAX_DIMENSION",
    "MANY_IMAGES_THRESHOLD",
    "fit_many_images",
    "resize_data_url",
]

logger = logging.getLogger(__name__)

MANY_IMAGES_THRESHOLD = 20
"""More images than this in one Anthropic request: each must fit MANY_IMAGES_MAX_DIMENSION."""
MANY_IMAGES_MAX_DIMENSION = 2000

_DATA_URL = re.compile(r"^data:(image/[\w.+-]+);base64,(.*)$", re.DOTALL)


def _image_parts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            parts.extend(
                part
                for part in content
                if isinstance(part, dict) and part.get("type") == "image_url"
            )
    return parts


def fit_many_images(messages: list[dict[str, Any]]) -> int:
    """Scale down, in place, the inline images of a request with more than 20 images so each
    fits 2000x2000; return how many were resized."""
    parts = _image_parts(messages)
    if len(parts) <= MANY_IMAGES_THRESHOLD:
        return 0
    resized = 0
    for part in parts:
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else None
        if not isinstance(url, str):
            continue
        smaller = resize_data_url(url, MANY_IMAGES_MAX_DIMENSION)
        if smaller is not None and isinstance(image, dict):
            image["url"] = smaller
            resized += 1
    if resized:
        logger.info(
            "Scaled %d of %d images down to fit %dpx (more than %d images in one request)",
            resized,
            len(parts),
            MANY_IMAGES_MAX_DIMENSION,
            MANY_IMAGES_THRESHOLD,
        )
    return resized


def resize_data_url(url: str, max_dimension: int) -> str | None:
    """`url` (a base64 image data URL) scaled to fit `max_dimension`, or None when it already
    fits, is not an inline image, or cannot be decoded (then it is sent as it is)."""
    match = _DATA_URL.match(url)
    if match is None:
        return None
    mime, payload = match.groups()
    try:
        raw = base64.b64decode(payload, validate=False)
    except (binascii.Error, ValueError):
        return None
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(raw)) as image:
            if max(image.size) <= max_dimension:
                return None
            image_format = image.format or "PNG"
            image.thumbnail((max_dimension, max_dimension))
            out = io.BytesIO()
            image.save(out, format=image_format)
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        logger.warning("An inline image could not be resized (sent as it is): %s", exc)
        return None
    return f"data:{mime};base64,{base64.b64encode(out.getvalue()).decode('ascii')}"
