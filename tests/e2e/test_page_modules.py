"""The page's own modules in the real browser: the Markdown renderer (safe by construction)
and the tracker of tool calls that wait for a result or an approval; and how messages and
status rows look in the events list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from page_actions import WAIT_MS, create_conversation
from playwright.sync_api import Page, expect

RENDER = """async (text) => {
  const { renderMarkdown } = await import('/static/markdown.js');
  const box = document.createElement('div');
  box.append(renderMarkdown(text));
  return box.innerHTML;
}"""


def markdown(page: Page, text: str) -> str:
    """The HTML the page's renderer builds for `text` (read back from the DOM)."""
    return page.evaluate(RENDER, text)


def test_markdown_renders_paragraphs_emphasis_code_lists_and_links(page: Page) -> None:
    text = (
        "Hello **bold** and *em* with `a < b`.\nNext line\n\n"
        "```python\nprint('<b>')\n```\n"
        "- one\n- two\n  - nested\n\n"
        "3. three\n4. four\n\n"
        "See [docs](https://example.com/a?b=1) or https://example.org."
    )
    assert markdown(page, text) == (
        "<p>Hello <strong>bold</strong> and <em>em</em> with "
        '<code class="md-inline-code">a &lt; b</code>.<br>Next line</p>'
        '<pre class="md-code" tabindex="0"><code data-lang="python">print(\'&lt;b&gt;\')</code></pre>'
        '<ul class="md-list"><li>one</li><li>two<ul class="md-list"><li>nested</li></ul></li></ul>'
        '<ol class="md-list" start="3"><li>three</li><li>four</li></ol>'
        '<p>See <a class="md-link" href="https://example.com/a?b=1" target="_blank" '
        'rel="noopener noreferrer">docs</a> or <a class="md-link" href="https://example.org/" '
        'target="_blank" rel="noopener noreferrer">https://example.org</a>.</p>'
    )


def test_markdown_never_turns_text_into_markup(page: Page) -> None:
    attack = (
        '<script>window.hacked = 1</script><img src=x onerror="window.hacked = 2">\n\n'
        "**<iframe src=javascript:alert(1)>**\n\n"
        '[<b onclick="x">click</b>](https://example.com)\n\n'
        "```\n</code></pre><script>window.hacked = 3</script>\n```"
    )
    counts: dict[str, Any] = page.evaluate(
        """async (text) => {
          const { renderMarkdown } = await import('/static/markdown.js');
          const box = document.createElement('div');
          box.append(renderMarkdown(text));
          document.body.append(box);
          return {
            markup: box.querySelectorAll('script, img, iframe, b, [onclick], [onerror]').length,
            text: box.textContent,
            hacked: window.hacked ?? null,
          };
        }""",
        attack,
    )
    assert counts["markup"] == 0
    assert counts["hacked"] is None
    assert "<script>window.hacked = 1</script>" in counts["text"]
    assert "</code></pre><script>window.hacked = 3</script>" in counts["text"]


def test_markdown_links_only_http_and_https(page: Page) -> None:
    html = markdown(
        page,
        "[a](javascript:alert(1)) [b](data:text/html,hi) [c](file:///etc/passwd) "
        "[d](/relative) [e](http://example.com/)",
    )
    assert html == (
        "<p>[a](javascript:alert(1)) b c d "
        '<a class="md-link" href="http://example.com/" target="_blank" '
        'rel="noopener noreferrer">e</a></p>'
    )


def test_markdown_leaves_snake_case_and_lone_stars_alone(page: Page) -> None:
    assert markdown(page, "use snake_case_name and 2 * 3 * 4, a_b_c") == (
        "<p>use snake_case_name and 2 * 3 * 4, a_b_c</p>"
    )


def test_markdown_survives_pathological_input(page: Page) -> None:
    # Unmatched delimiters by the thousand: each stays text, and the page does not hang.
    cases = {"*a" * 10_000: 10_000, "[" * 20_000: 20_000, "x" + "`" * 5_000: 5_001}
    cases.update({"a_" * 10_000: 20_000, "**a" * 5_000: 5_000, "x *" * 5_000: 15_000})
    for text, length in cases.items():
        rendered = page.evaluate(
            """async (text) => {
              const { renderMarkdown } = await import('/static/markdown.js');
              const box = document.createElement('div');
              box.append(renderMarkdown(text));
              return box.textContent.length;
            }""",
            text,
        )
        assert rendered == length


def test_pending_calls_are_those_after_the_last_result_without_one(page: Page) -> None:
    result = page.evaluate(
        """async () => {
          const { PendingActions } = await import('/static/pending.js');
          const pending = new PendingActions();
          const action = (id, call) => ({kind: 'ActionEvent', id, tool_call_id: call, tool_name: 't'});
          pending.observe(action('a1', 'c1'));
          pending.observe(action('a2', 'c2'));  // two calls of one reply
          pending.observe({kind: 'ObservationEvent', id: 'o1', action_id: 'a1', tool_call_id: 'c1'});
          const running = pending.unanswered().map((a) => a.id);
          pending.observe({kind: 'AgentErrorEvent', id: 'e2', tool_call_id: 'c2'});
          pending.observe(action('a3', 'c3'));
          pending.observe(action('a4', 'c4'));
          const waiting = pending.awaitingApproval().map((a) => a.id);
          pending.observe({kind: 'UserRejectObservation', id: 'r3', action_id: 'a3', tool_call_id: 'c3'});
          const afterReject = pending.awaitingApproval().map((a) => a.id);
          return {running, waiting, afterReject};
        }"""
    )
    assert result == {"running": ["a2"], "waiting": ["a3", "a4"], "afterReject": []}


def test_agent_markdown_shows_a_monospaced_code_block(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    model = create_conversation(page, fake_llm, tmp_path / "project")
    fake_llm.script(model, [FakeReply.text("Run **this**:\n\n```bash\npytest -q\n```")])
    page.get_by_label("Message").fill("how do I test?")
    page.get_by_role("button", name="Send").click()
    code = page.locator(".event.from-agent pre.md-code code")
    expect(code).to_have_text("pytest -q", timeout=WAIT_MS)
    expect(page.locator(".event.from-agent strong")).to_have_text("this")
    font = code.evaluate("node => getComputedStyle(node).fontFamily")
    assert "monospace" in font


def test_status_rows_are_folded_into_one_expandable_group(
    page: Page, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    model = create_conversation(page, fake_llm, tmp_path / "project")
    fake_llm.script(
        model,
        [FakeReply.tool_call("terminal", {"command": "echo hi"}), FakeReply.text("done")],
    )
    page.get_by_label("Message").fill("go")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#exec-status")).to_have_text("finished", timeout=WAIT_MS)
    last_fold = page.locator("#events > li.fold").last
    expect(last_fold.locator("summary")).to_contain_text("status updates · Status: finished")
    expect(last_fold.locator("details")).not_to_have_attribute("open", "")
    expect(last_fold.locator(".fold-items > li").first).to_be_hidden()
    last_fold.locator("summary").click()
    expect(last_fold.locator(".fold-items > li").last).to_have_text(
        "Status: finished" + last_fold.locator(".fold-items > li time").last.inner_text()
    )
    # A message is never folded: the top level holds every non-status event.
    expect(page.locator("#events > li.event.from-agent")).to_have_count(1)


def test_approval_panel_shows_the_waiting_call_and_sends_the_answer(page: Page) -> None:
    """The panel's wiring, with the server's answers stubbed (test_approval.py uses the real
    routes)."""
    sent: list[dict[str, Any]] = []

    def answer(route: Any) -> None:
        sent.append({"url": route.request.url, "body": route.request.post_data_json})
        route.fulfill(json={"success": True})

    page.route("**/events/respond_to_confirmation", answer)
    page.route("**/api/conversations/conv-1/run", answer)  # after a rejection the agent goes on
    page.evaluate(
        """async () => {
          const { PendingActions } = await import('/static/pending.js');
          const { updateApproval } = await import('/static/approval.js');
          const pending = new PendingActions();
          pending.observe({kind: 'ActionEvent', id: 'a1', tool_call_id: 'c1', tool_name: 'terminal',
                           thought: [], action: {command: 'rm -rf build'}});
          window.showWaiting = () => updateApproval('conv-1', 'waiting_for_confirmation', pending);
          document.getElementById('conversation').hidden = false;  // as if one were open
          window.showWaiting();
        }"""
    )
    panel = page.get_by_role("region", name="Waiting for your approval")
    expect(panel).to_be_visible()
    expect(panel.locator(".pending-action")).to_contain_text("terminal")
    expect(panel.locator(".pending-action pre.command")).to_have_text("$ rm -rf build")
    panel.get_by_label("Reason for rejecting").fill("not in my repo")
    panel.get_by_role("button", name="Reject").click()
    expect(panel.get_by_role("button", name="Approve")).to_be_disabled()
    base = page.url.split("#")[0].rstrip("/") + "/api/conversations/conv-1"
    for _ in range(100):  # both requests are answered at once by the stubs
        if len(sent) == 2:
            break
        page.wait_for_timeout(50)
    assert sent[0] == {
        "url": base + "/events/respond_to_confirmation",
        "body": {"accept": False, "reason": "not in my repo"},
    }
    assert [entry["url"] for entry in sent] == [
        base + "/events/respond_to_confirmation",
        base + "/run",
    ]
    page.evaluate("() => window.showWaiting()")  # unchanged status: still answered
    page.evaluate(
        """async () => {
          const { updateApproval } = await import('/static/approval.js');
          updateApproval('conv-1', 'running', null);
        }"""
    )
    expect(panel).to_be_hidden()
    page.evaluate("() => window.showWaiting()")  # waiting again: a new question
    panel.get_by_role("button", name="Approve").click()
    expect(page.locator("#notices .notice-error")).to_have_count(0)
    expect(panel.get_by_role("button", name="Approve")).to_be_disabled()
    assert sent[-1]["body"] == {"accept": True}
    assert len(sent) == 3  # an approval runs the calls itself: no separate run


def test_goal_chip_says_waiting_for_approval_while_its_agent_waits(page: Page) -> None:
    page.evaluate(
        """async () => {
          const goal = await import('/static/goal.js');
          goal.showGoal({active: true, status: 'running', iteration: 1, max_iterations: 5,
                         objective: 'x', phase: 'agent'});
          goal.setGoalExecutionStatus('waiting_for_confirmation');
        }"""
    )
    chip = page.locator("#goal-chip")
    expect(chip.locator(".chip-status")).to_have_text("waiting for approval")
    expect(chip).to_have_attribute("data-waiting", "true")
    expect(chip).to_have_attribute("data-status", "running")
    page.evaluate("async () => (await import('/static/goal.js')).setGoalExecutionStatus('running')")
    expect(chip.locator(".chip-status")).to_have_text("running")


CONTINUE = """async (values) => {
  const { continueRequest } = await import('/static/goal.js');
  const form = document.getElementById('goal-continue');
  for (const [name, value] of Object.entries(values)) form[name].value = value;
  try {
    return continueRequest(form);
  } catch (err) {
    return {error: err.message};
  }
}"""


@pytest.mark.parametrize(
    ("values", "body"),
    [
        ({"max_iterations": "6", "max_cost": "", "time_limit": ""}, {"max_iterations": 6}),
        (
            {"max_iterations": "", "max_cost": "0", "time_limit": "1.5"},
            {"max_cost": 0, "time_limit": 90},
        ),
        (
            {"max_iterations": "", "max_cost": "", "time_limit": ""},
            {"error": "Give at least one new limit to continue a capped goal."},
        ),
        (
            {"max_iterations": "2.5", "max_cost": "", "time_limit": ""},
            {"error": "Max iterations must be a whole number of 1 or more."},
        ),
        (
            {"max_iterations": "", "max_cost": "-1", "time_limit": ""},
            {"error": "Max cost must be a number of 0 or more."},
        ),
    ],
)
def test_the_continue_form_sends_totals_and_names_a_bad_field(
    page: Page, values: dict[str, str], body: dict[str, Any]
) -> None:
    assert page.evaluate(CONTINUE, values) == body
