"""Front matter from a skill, a plugin's skill or a plugin's command is hostile input.

A few hundred bytes of nested YAML aliases under `metadata` built hundreds of millions of
characters (every dump of the skill: `base_state.json`, every answer holding the agent);
30,000 nested brackets crashed the interpreter outright. Each is now refused with the file,
the line and the reason, before anything is built. The SDK case runs in a child process
bounded in time and memory, so today's behaviour fails the test instead of the machine.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

from agent_server.harness import ServerProcess, unique

CHILD_MEMORY = 2 * 1024**3
CHILD_SECONDS = 60


def bomb(levels: int) -> str:
    """A SKILL.md whose metadata nests `levels` lists of 9 aliases each (9**levels strings)."""
    lines = ["  l0: &l0 [" + ", ".join(['"lol lol"'] * 9) + "]"]
    lines += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "---\nname: bomb\ndescription: boom\nmetadata:\n" + "\n".join(lines) + "\n---\nbody\n"


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


LOAD = """
import sys
from openhands.sdk.context.skill_loading import load_skill
try:
    skill = load_skill(sys.argv[1])
except ValueError as exc:
    print("refused:", exc)
else:
    print("loaded", len(skill.model_dump_json()))
"""


def _load_in_child(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LOAD, str(path)],
        capture_output=True,
        text=True,
        timeout=CHILD_SECONDS,
        preexec_fn=_bounded,
        check=False,
    )


def test_an_alias_bomb_in_a_skill_is_refused_naming_the_file(tmp_path: Path) -> None:
    skill = tmp_path / "bomb" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text(bomb(8))
    assert len(skill.read_bytes()) < 600  # 9**8 strings if built and dumped

    done = _load_in_child(skill)

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"refused: {skill}, line 5: YAML anchors (&l0) are not allowed")


def test_deeply_nested_front_matter_is_refused_instead_of_crashing(tmp_path: Path) -> None:
    skill = tmp_path / "deep" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text("---\nname: deep\nmetadata: " + "[" * 30000 + "]" * 30000 + "\n---\nbody\n")

    done = _load_in_child(skill)

    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.startswith(f"refused: {skill}, line 3: lists and mappings nested more")


def _plugin(root: Path, *, skill: str | None = None, command: str | None = None) -> Path:
    folder = root / unique("plugin")
    (folder / ".plugin").mkdir(parents=True)
    (folder / ".plugin" / "plugin.json").write_text(json.dumps({"name": folder.name}))
    if skill is not None:
        (folder / "skills" / "bomb").mkdir(parents=True)
        (folder / "skills" / "bomb" / "SKILL.md").write_text(skill)
    (folder / "skills" / "fine").mkdir(parents=True)
    (folder / "skills" / "fine" / "SKILL.md").write_text(
        "---\nname: fine\ndescription: a skill that loads\n---\nDo things.\n"
    )
    if command is not None:
        (folder / "commands").mkdir()
        (folder / "commands" / "boom.md").write_text(command)
    return folder


def _create(server: ServerProcess, plugin: Path) -> tuple[int, bytes]:
    body = {
        "agent": {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}},
        "plugins": [{"source": str(plugin)}],
    }
    with server.client() as http:
        answer = http.post("/api/conversations", json=body)
    return answer.status_code, answer.content


def test_a_bomb_through_plugins_at_create_stays_small_and_is_named(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "conversations").start()
    try:
        plugin = _plugin(tmp_path, skill=bomb(6), command=bomb(6))
        status, answer = _create(server, plugin)
    finally:
        server.stop()

    # The broken skill and command are left out, each logged with its file and why; the
    # plugin's other skill is loaded. Before, the answer and base_state.json were megabytes.
    assert status == 201, answer[:2000]
    assert len(answer) < 64_000
    skills = json.loads(answer)["agent"]["agent_context"]["skills"]
    assert [s["name"] for s in skills] == ["fine"]
    states = list((tmp_path / "conversations").glob("*/base_state.json"))
    assert len(states) == 1 and states[0].stat().st_size < 64_000
    for bad in (plugin / "skills" / "bomb" / "SKILL.md", plugin / "commands" / "boom.md"):
        assert f"{bad}, line 5: YAML anchors (&l0) are not allowed" in server.log()
