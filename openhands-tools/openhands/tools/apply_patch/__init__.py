"""`apply_patch`: the patch-based file editing tool GPT-5-class models are trained on."""

from openhands.tools.apply_patch.definition import (
    ApplyPatchAction,
    ApplyPatchExecutor,
    ApplyPatchObservation,
    ApplyPatchTool,
)
from openhands.tools.apply_patch.patch import PatchError

__all__ = [
    "ApplyPatchAction",
    "ApplyPatchExecutor",
    "ApplyPatchObservation",
    "ApplyPatchTool",
    "PatchError",
]
