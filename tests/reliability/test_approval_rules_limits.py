"""Standing approvals have a cap (OH_MAX_APPROVAL_RULES) and replacing them costs one save.

Before, a PUT of 1,000 rules saved the conversation once per rule removed and once per rule
added (41 s; 5,000 ran for minutes on a control thread and held up shutdown), and nothing
bounded their number. A real server on loopback, a small cap to keep the test quick.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_server.harness import ServerProcess

LIMIT = 300


def _rules(count: int, start: int = 0) -> list[dict[str, Any]]:
    return [{"tool": "terminal", "command_prefix": f"tool{n}"} for n in range(start, start + count)]


def test_approval_rules_are_capped_with_a_422_naming_the_setting(tmp_path: Path) -> None:
    env = {"OH_MAX_APPROVAL_RULES": str(LIMIT)}
    server = ServerProcess(tmp_path / "conversations", env=env).start()
    try:
        with server.client() as http:
            body = {"agent": {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}}}
            cid = http.post("/api/conversations", json=body).json()["id"]
            rules_url = f"/api/conversations/{cid}/approval_rules"

            too_many = http.put(rules_url, json={"rules": _rules(LIMIT + 1)})
            assert too_many.status_code == 422, too_many.text
            problem = too_many.json()
            assert "OH_MAX_APPROVAL_RULES" in problem["message"]
            assert f"at most {LIMIT}" in problem["message"]
            assert any(d["loc"] == ["body", "rules"] for d in problem["detail"])
            assert http.get(rules_url).json() == []  # nothing changed

            # Repeats count once: 2 x LIMIT entries, LIMIT different rules, in order.
            rules = _rules(LIMIT)
            full = http.put(rules_url, json={"rules": [*rules, *rules]})
            assert full.status_code == 200, full.text
            assert http.get(rules_url).json() == rules

            one_more = http.post(rules_url, json=_rules(1, start=LIMIT)[0])
            assert one_more.status_code == 422 and "OH_MAX_APPROVAL_RULES" in one_more.text
            again = http.post(rules_url, json=rules[0])  # already there: not one more
            assert again.status_code == 200, again.text
            assert len(http.get(rules_url).json()) == LIMIT
    finally:
        server.stop()
