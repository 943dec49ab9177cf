"""`InstallationInfo`: the manifest record of an installed skill or plugin."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from openhands.sdk.extensions.installation import InstallationInfo, LoadedExtension


def test_a_record_is_made_from_what_an_extension_declares(tmp_path: Path) -> None:
    extension = LoadedExtension("linter", version="0.1.2", description="Lints.")

    info = InstallationInfo.from_extension(
        extension,
        "github:owner/repo",
        tmp_path / "linter",
        requested_ref="v1",
        resolved_ref="abc123",
        repo_path="plugins/linter",
    )

    assert (info.name, info.version, info.description) == ("linter", "0.1.2", "Lints.")
    assert (info.source, info.install_path, info.enabled) == (
        "github:owner/repo",
        tmp_path / "linter",
        True,
    )
    assert (info.requested_ref, info.resolved_ref, info.repo_path) == (
        "v1",
        "abc123",
        "plugins/linter",
    )
    assert datetime.fromisoformat(info.installed_at).tzinfo is not None
