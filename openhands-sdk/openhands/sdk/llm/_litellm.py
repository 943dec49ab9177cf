"""The one place that imports litellm (lazily: importing the SDK must not)."""

from __future__ import annotations

import os
from typing import Any


def import_litellm() -> Any:
    """Import litellm on first use, without its import-time side effects unless asked.

    By default litellm fetches its model price map from the network and loads a `.env` file
    from the working directory into `os.environ` when imported. We use the price map it ships
    and leave the environment alone; a user who sets either variable keeps their choice.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
    import litellm

    litellm.suppress_debug_info = True
    return litellm
