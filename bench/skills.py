"""What 200 AgentSkills cost an agent: creation time and system prompt size.

Writes 200 skill folders (SKILL.md with a name, a description and a 4 KB body, plus
scripts/ and references/), then, in fresh processes, times loading them with
`load_skills_from_dir` and creating an agent with them through to its system prompt,
against the same without skills: "cold" is the first agent of a process (PyYAML's import
and the skill models' first build included), "warm" the next one (the parsed skills are
cached while the files are unchanged). Times are CPU time of the process (the machine is
shared; wall time is reported for cold too). Prints one JSON line: the added milliseconds
(median of the runs), how much the prompt grew, and whether any skill body reached it.
Targets (docs/performance.md): at most 50 ms added (cold), and the prompt grows by each
skill's name, description and location only (progressive disclosure: bodies are read on
use).

Usage: `uv run python bench/skills.py [--skills N] [--runs N]`
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

BODY_MARKER = "BODY-TEXT-THAT-MUST-NOT-REACH-THE-PROMPT"

CHILD = r"""
import json, sys, time
from openhands.sdk import LLM, Agent, AgentContext

folder, with_skills = sys.argv[1], sys.argv[2] == "1"


def create():
    skills = []
    if with_skills:
        from openhands.sdk.skills import load_skills_from_dir
        repo, knowledge, agentskills = load_skills_from_dir(folder)
        skills = [*agentskills.values(), *repo.values(), *knowledge.values()]
    agent = Agent(llm=LLM(model="openai/x"), tools=[], agent_context=AgentContext(skills=skills))
    prompt = agent.system_prompt_event([]).dynamic_context
    return len(skills), prompt.text if prompt is not None else ""


timings = []
for _ in range(2):  # cold (first in this process), then warm
    wall, cpu = time.perf_counter(), time.process_time()
    count, text = create()
    timings.append((time.perf_counter() - wall, time.process_time() - cpu))
print(json.dumps({"cold_wall": timings[0][0], "cold_cpu": timings[0][1],
                  "warm_wall": timings[1][0], "warm_cpu": timings[1][1],
                  "prompt_chars": len(text), "skills": count, "prompt": text}))
"""


def write_skills(root: Path, count: int) -> tuple[int, int]:
    """`count` skill folders; returns (chars of names + descriptions + locations, body chars)."""
    listed = 0
    bodies = 0
    for index in range(count):
        name = f"skill-{index:03d}"
        description = f"Helps with task number {index}: when the user asks about topic {index}."
        folder = root / name
        (folder / "scripts").mkdir(parents=True)
        (folder / "references").mkdir()
        (folder / "scripts" / "run.sh").write_text("echo run\n")
        (folder / "references" / "guide.md").write_text("# Guide\n")
        body = f"# {name}\n{BODY_MARKER}\n" + ("Step by step instructions. " * 150) + "\n"
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {json.dumps(description)}\nlicense: MIT\n"
            f"metadata:\n  author: bench\n  version: '1.0'\n---\n{body}"
        )
        listed += len(name) + len(description) + len(str(folder / "SKILL.md"))
        bodies += len(body)
    return listed, bodies


def measure(folder: Path, with_skills: bool) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), "1" if with_skills else "0"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Run the benchmark and print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skills", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-skills-") as tmp:
        root = Path(tmp)
        listed, bodies = write_skills(root, args.skills)
        added: dict[str, list[float]] = {k: [] for k in ("cold_wall", "cold_cpu", "warm_cpu")}
        for _ in range(args.runs):
            without = measure(root, False)
            with_ = measure(root, True)
            for key, values in added.items():
                values.append(float(with_[key]) - float(without[key]))  # type: ignore[arg-type]
    if with_["skills"] != args.skills:
        raise SystemExit(f"loaded {with_['skills']} skills, not {args.skills}")
    growth = int(with_["prompt_chars"]) - int(without["prompt_chars"])  # type: ignore[arg-type]
    median = {key: round(1000 * statistics.median(v), 1) for key, v in added.items()}
    bodies_in_prompt = BODY_MARKER in str(with_["prompt"])
    print(
        json.dumps(
            {
                "bench": "skills",
                "skills": with_["skills"],
                "added_ms_cold_cpu": median["cold_cpu"],
                "added_ms_cold_wall": median["cold_wall"],
                "added_ms_warm_cpu": median["warm_cpu"],
                "prompt_growth_chars": growth,
                "prompt_chars_per_skill": round(growth / args.skills, 1),
                "names_descriptions_locations_chars": listed,
                "skill_body_chars": bodies,
                "bodies_in_prompt": bodies_in_prompt,
                "targets_met": median["cold_cpu"] <= 50 and not bodies_in_prompt,
            }
        )
    )


if __name__ == "__main__":
    main()
