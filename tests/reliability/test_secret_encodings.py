"""A conversation secret printed base64-, hex- or URL-encoded is masked like the value itself.

Before, only the literal value was replaced: `echo "$TOKEN" | base64` put the secret into
the events, the answers and the LLM's next request. A real server runs a scripted agent's
terminal commands (real bash, real coreutils) that print the secret in common encodings, at
each of the three base64 alignments and across the line breaks `base64` inserts; the test
computes each encoding itself and looks for it in the events and in what the LLM was sent.
Masking is a guard against accidents: the test does not try to outwit it.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

from agent_server.harness import ServerProcess, llm_spec, unique, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

SECRET = "tok/3n+Secr3t=Value-7f2a9c41"

COMMANDS = [
    'echo "$TOKEN" | base64',  # the value starts a base64 stream
    "printf 'a%s' \"$TOKEN\" | base64",  # one byte before it: the second alignment
    "printf 'ab%s!' \"$TOKEN\" | base64",  # two bytes before it: the third
    '(printf "%0100d" 0; printf %s "$TOKEN"; printf "%0100d" 0) | base64',  # wrapped
    'printf %s "$TOKEN" | base64 | tr "+/" "-_"',  # URL-safe alphabet
    'printf %s "$TOKEN" | od -An -tx1 -v',  # hex with spaces and line breaks
    "python3 -c 'import os; print(os.environ[\"TOKEN\"].encode().hex().upper())'",
    'python3 -c \'import os, urllib.parse as u; print(u.quote(os.environ["TOKEN"], safe=""))\'',
    'echo "plain: $TOKEN"',
]


def _base64_inner(prefix: bytes) -> str:
    """The base64 characters that only the secret's bits decide, after `prefix`."""
    encoded = base64.b64encode(prefix + SECRET.encode()).decode()
    start = (len(prefix) * 8 + 5) // 6
    end = (len(prefix) + len(SECRET)) * 8 // 6
    return encoded[start:end]


def _encodings() -> dict[str, str]:
    data = SECRET.encode()
    forms = {f"base64 after {n} bytes": _base64_inner(b"x" * n) for n in range(3)}
    forms["base64url"] = _base64_inner(b"").translate(str.maketrans("+/", "-_"))
    forms["hex"] = data.hex()
    forms["url"] = quote(SECRET, safe="")
    forms["plain"] = SECRET
    return forms


def _found(text: str) -> list[str]:
    """The encodings of the secret in `text` (line breaks and hex spacing ignored)."""
    squashed = text.replace("\\n", "").replace("\n", "")
    spaced = squashed.replace(" ", "").lower()
    found = []
    for name, form in _encodings().items():
        if form in squashed or (name == "hex" and form in spaced):
            found.append(name)
    return found


def test_encoded_secrets_are_masked_in_events_and_in_the_llms_context(tmp_path: Path) -> None:
    with FakeOpenAIServer() as fake:
        model = unique("agent")
        calls = [FakeReply.tool_call("terminal", {"command": c}) for c in COMMANDS]
        fake.script(model, [*calls, FakeReply.text("done")])
        server = ServerProcess(tmp_path / "conversations").start()
        try:
            with server.client() as http:
                body = {
                    "agent": {
                        "kind": "Agent",
                        "llm": llm_spec(fake, model),
                        "tools": [{"name": "terminal"}],
                    },
                    "workspace": {"kind": "LocalWorkspace", "working_dir": str(tmp_path / "w")},
                    "secrets": {"TOKEN": SECRET},
                    "initial_message": {"content": [{"type": "text", "text": "print it"}]},
                }
                created = http.post("/api/conversations", json=body)
                assert created.status_code == 201, created.text
                cid = created.json()["id"]
                wait_until(
                    lambda: (
                        http.get(f"/api/conversations/{cid}").json()["execution_status"]
                        in ("finished", "error")
                    ),
                    what="the run's end",
                )
                events = http.get(
                    f"/api/conversations/{cid}/events/search", params={"limit": 100}
                ).json()["items"]
        finally:
            server.stop()

        outputs = [e["observation"] for e in events if e.get("kind") == "ObservationEvent"]
        assert len(outputs) == len(COMMANDS)
        for command, observation in zip(COMMANDS, outputs, strict=True):
            text = json.dumps(observation)
            assert "<secret-hidden>" in text, (command, text)
            assert _found(text) == [], (command, text)
        sent = json.dumps(fake.requests_for(model)[-1])
        assert _found(sent) == []
        assert _found(json.dumps(events)) == []
