"""The REFERENCE SDK's clients and models on this server's git, bash, file and extension
routes, run with the reference's Python (never ours).

`python surface_files.py FLOW CONFIG_JSON` prints one JSON line: what the reference's own
client code (`RemoteWorkspace`: file upload/download, git changes/diff, execute_command)
got, and every answer this server gave that the reference's own request/answer models
refused to validate (`invalid`: route -> error).
"""

from __future__ import annotations

import json
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx
from openhands.agent_server import (
    file_router,
    hooks_router,
    models,
    plugins_router,
    skills_router,
    sub_agents_router,
    tool_router,
)
from openhands.sdk.git import models as git_models
from openhands.sdk.workspace import RemoteWorkspace
from pydantic import TypeAdapter, ValidationError


class Checker:
    """Calls the server and validates each JSON answer with a reference model."""

    def __init__(self, config: dict[str, Any]) -> None:
        # A fresh connection per call: a kept-alive one the server closes while idle (its
        # keep-alive timeout) would race with the next request on a loaded machine.
        self.http = httpx.Client(
            base_url=config["host"],
            headers={"X-Session-API-Key": config["key"]},
            timeout=120,
            limits=httpx.Limits(max_keepalive_connections=0),
        )
        self.invalid: dict[str, str] = {}
        self.statuses: dict[str, int] = {}

    def call(self, name: str, model: Any, method: str, url: str, **kwargs: Any) -> Any:
        answer = self.http.request(method, url, **kwargs)
        self.statuses[name] = answer.status_code
        if answer.status_code != 200:
            self.invalid[name] = f"HTTP {answer.status_code}: {answer.text[:300]}"
            return None
        adapter = model if isinstance(model, TypeAdapter) else TypeAdapter(model)
        try:
            return adapter.validate_python(answer.json())
        except ValidationError as exc:
            self.invalid[name] = str(exc)[:500]
            return None


def workspace(config: dict[str, Any], conversation: str | None = None) -> RemoteWorkspace:
    scope = {} if conversation is None else {"runtime_conversation_id": uuid.UUID(conversation)}
    return RemoteWorkspace(
        host=config["host"], api_key=config["key"], working_dir=config["working_dir"], **scope
    )


def client_flows(config: dict[str, Any], conversation: str) -> dict[str, Any]:
    """What `RemoteWorkspace` itself does, server-wide and in the conversation's scope."""
    work = Path(config["working_dir"])
    results: dict[str, Any] = {}
    local = Path(tempfile.mkdtemp())
    for form, ws in (
        ("server", workspace(config)),
        ("conversation", workspace(config, conversation)),
    ):
        source = local / f"{form}.txt"
        source.write_text(f"hello from {form}")
        up = ws.file_upload(str(source), str(work / "uploads" / f"{form}.txt"))
        down = ws.file_download(str(work / "uploads" / f"{form}.txt"), str(local / f"{form}.back"))
        done = ws.execute_command("printf first; sleep 1; printf second; exit 3", timeout=60)
        changes = ws.git_changes(str(work / "repo"))
        diff = ws.git_diff(str(work / "repo" / "tracked.txt"))
        results[form] = {
            "upload": [up.success, up.file_size, up.error],
            "download": [
                down.success,
                (local / f"{form}.back").read_text() if down.success else down.error,
            ],
            "command": [done.exit_code, done.stdout, done.stderr],
            "changes": sorted([c.status.value, str(c.path)] for c in changes),
            "diff": [diff.original, diff.modified],
        }
    outside = workspace(config, conversation).file_download("/etc/hostname", str(local / "x"))
    results["outside_refused"] = not outside.success
    return results


def model_checks(config: dict[str, Any], conversation: str) -> Checker:
    """Every route of these families, its answer validated by the reference's model."""
    check = Checker(config)
    work = config["working_dir"]
    repo = f"{work}/repo"
    runtime = f"/api/conversations/{conversation}"
    for prefix in ("/api", runtime):
        tag = "server" if prefix == "/api" else "conversation"
        check.call(
            f"{tag} git changes",
            list[git_models.GitChange],
            "GET",
            f"{prefix}/git/changes",
            params={"path": repo},
        )
        check.call(
            f"{tag} git diff",
            git_models.GitDiff,
            "GET",
            f"{prefix}/git/diff",
            params={"path": f"{repo}/tracked.txt"},
        )
        page = check.call(
            f"{tag} git commits",
            git_models.GitCommitsPage,
            "GET",
            f"{prefix}/git/commits",
            params={"path": repo},
        )
        if page is not None and page.commits:
            check.call(
                f"{tag} commit changes",
                list[git_models.GitChange],
                "GET",
                f"{prefix}/git/commits/{page.commits[0].sha}/changes",
                params={"path": repo},
            )
        started = check.call(
            f"{tag} start bash",
            models.BashCommand,
            "POST",
            f"{prefix}/bash/start_bash_command",
            json={"command": "echo x"},
        )
        check.call(
            f"{tag} execute bash",
            models.BashOutput,
            "POST",
            f"{prefix}/bash/execute_bash_command",
            json={"command": "echo y"},
        )
        found = check.call(
            f"{tag} bash search", models.BashEventPage, "GET", f"{prefix}/bash/bash_events/search"
        )
        if started is not None and found is not None:
            check.call(
                f"{tag} bash get",
                models.BashCommand,
                "GET",
                f"{prefix}/bash/bash_events/{started.id.hex}",
            )
            check.call(
                f"{tag} bash batch",
                list[models.BashCommand | models.BashOutput | None],
                "GET",
                f"{prefix}/bash/bash_events/",
                params={"event_ids": [started.id.hex]},
            )
            check.call(
                f"{tag} bash stop",
                models.Success,
                "POST",
                f"{prefix}/bash/bash_commands/{started.id}/stop",
            )
        check.call(f"{tag} bash clear", dict[str, int], "DELETE", f"{prefix}/bash/bash_events")
        check.call(
            f"{tag} upload",
            models.FileUploadResult,
            "POST",
            f"{prefix}/file/upload",
            params={"path": f"{work}/m/{tag}.bin"},
            files={"file": ("f", b"abc")},
        )
        check.call(
            f"{tag} create_directory",
            models.Success,
            "POST",
            f"{prefix}/file/create_directory",
            params={"path": f"{work}/dir-{tag}"},
        )
        for name, params in (
            ("download", {"path": f"{work}/m/{tag}.bin"}),
            ("archive", {"path": work, "format": "tar.gz"}),
            ("trajectory", None),
        ):
            url = (
                f"{prefix}/file/download-trajectory/{conversation}"
                if params is None
                else f"{prefix}/file/{name}"
            )
            answer = check.http.get(url, params=params)
            check.statuses[f"{tag} {name}"] = answer.status_code
            if answer.status_code != 200 or not answer.content:
                check.invalid[f"{tag} {name}"] = f"HTTP {answer.status_code}"
    check.call("home", file_router.HomeResponse, "GET", "/api/file/home")
    check.call(
        "search_subdirs",
        file_router.SubdirectoryPage,
        "GET",
        "/api/file/search_subdirs",
        params={"path": work},
    )
    check.call(
        "repository search",
        git_models.GitProviderRepositoryPage,
        "GET",
        "/api/git/repositories/search",
        params={"provider": "github"},
    )

    skills = skills_router
    check.call(
        "skills",
        skills.SkillsResponse,
        "POST",
        "/api/skills",
        json=skills.SkillsRequest(project_dir=work).model_dump(mode="json"),
    )
    check.call("skills catalog", skills.SkillCatalogResponse, "GET", "/api/skills/catalog")
    check.call("skills sync", skills.SyncResponse, "POST", "/api/skills/sync")
    install = skills.InstallSkillRequest(source=config["skill_source"]).model_dump(mode="json")
    check.call(
        "skill install", skills.InstalledSkillResponse, "POST", "/api/skills/install", json=install
    )
    check.call(
        "skills installed", skills.InstalledSkillsListResponse, "GET", "/api/skills/installed"
    )
    name = Path(config["skill_source"]).name
    check.call("skill get", skills.InstalledSkillResponse, "GET", f"/api/skills/installed/{name}")
    state = skills.UpdateSkillStateRequest(enabled=False).model_dump(mode="json")
    check.call(
        "skill patch",
        skills.UpdateSkillStateResponse,
        "PATCH",
        f"/api/skills/installed/{name}",
        json=state,
    )
    check.call(
        "skill refresh", skills.UpdateSkillResponse, "POST", f"/api/skills/installed/{name}/refresh"
    )
    check.call(
        "skills marketplace", skills.MarketplaceCatalogResponse, "GET", "/api/skills/marketplace"
    )
    check.call(
        "skill delete", skills.UninstallSkillResponse, "DELETE", f"/api/skills/installed/{name}"
    )

    plugins = plugins_router
    check.call(
        "plugins",
        plugins.PluginsResponse,
        "POST",
        "/api/plugins",
        json=plugins.PluginsRequest(project_dir=work).model_dump(mode="json"),
    )
    check.call(
        "plugin fetch",
        plugins.FetchPluginResponse,
        "POST",
        "/api/plugins/fetch",
        json={"source": config["plugin_source"]},
    )
    check.call(
        "plugin install",
        plugins.InstalledPluginResponse,
        "POST",
        "/api/plugins/install",
        json=plugins.InstallPluginRequest(source=config["plugin_source"]).model_dump(mode="json"),
    )
    check.call(
        "plugins installed", plugins.InstalledPluginsListResponse, "GET", "/api/plugins/installed"
    )
    plugin = Path(config["plugin_source"]).name
    check.call(
        "plugin get", plugins.InstalledPluginResponse, "GET", f"/api/plugins/installed/{plugin}"
    )
    check.call(
        "plugin patch",
        plugins.UpdatePluginStateResponse,
        "PATCH",
        f"/api/plugins/installed/{plugin}",
        json={"enabled": False},
    )
    check.call(
        "plugin refresh",
        plugins.UpdatePluginResponse,
        "POST",
        f"/api/plugins/installed/{plugin}/refresh",
    )
    check.call(
        "plugins marketplace", plugins.MarketplaceCatalogResponse, "GET", "/api/plugins/marketplace"
    )
    check.call(
        "plugin delete",
        plugins.UninstallPluginResponse,
        "DELETE",
        f"/api/plugins/installed/{plugin}",
    )

    check.call(
        "hooks", hooks_router.HooksResponse, "POST", "/api/hooks", json={"project_dir": work}
    )
    check.call("tools", list[str], "GET", "/api/tools/")
    check.call("tool catalog", tool_router.ToolCatalogResponse, "GET", "/api/tools/catalog")
    check.call(
        "sub-agents",
        sub_agents_router.SubAgentsResponse,
        "POST",
        "/api/sub-agents",
        json={"project_dir": work},
    )
    return check


def flow_surface(config: dict[str, Any]) -> dict[str, Any]:
    with httpx.Client(
        base_url=config["host"], headers={"X-Session-API-Key": config["key"]}, timeout=120
    ) as http:
        body = {
            "agent": {
                "kind": "Agent",
                "llm": {
                    "model": config["model"],
                    "base_url": config["base_url"],
                    "api_key": "fake",
                },
            },
            "workspace": {"kind": "LocalWorkspace", "working_dir": config["working_dir"]},
        }
        created = http.post("/api/conversations", json=body)
        created.raise_for_status()
        conversation = created.json()["id"]
    check = model_checks(config, conversation)
    return {
        "clients": client_flows(config, conversation),
        "invalid": check.invalid,
        "routes": len(check.statuses),
    }


if __name__ == "__main__":
    flow, raw = sys.argv[1], sys.argv[2]
    print(json.dumps(globals()[f"flow_{flow}"](json.loads(raw))))
