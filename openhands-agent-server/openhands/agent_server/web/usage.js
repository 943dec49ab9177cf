// Cost and tokens per LLM of a conversation (its `metrics`: the agent's and the goal judge's).

import { $, el, replaceIfChanged } from "./dom.js";
import { formatCost, formatTokens } from "./format.js";

const JUDGE_USAGE_ID = "goal-judge";
let metrics = {};
let agentUsageId = "agent";

/** Forget the shown usage; `usageId` is the agent LLM's usage id (its row says "Agent"). */
export function resetUsage(usageId) {
  metrics = {};
  agentUsageId = usageId || "agent";
  render();
}

/**
 * Merge `incoming` (usage id -> Metrics) into what is shown. Metrics only grow, so for each
 * LLM the entry with more completions (then more cost) wins: an older copy arriving late, from
 * a replayed event or a slow answer, never turns the numbers back.
 */
export function updateUsage(incoming) {
  for (const [id, entry] of Object.entries(incoming || {})) {
    const old = metrics[id];
    const newer = !old || entry.completions > old.completions
      || (entry.completions === old.completions && entry.accumulated_cost >= old.accumulated_cost);
    if (newer) metrics[id] = entry;
  }
  render();
}

function label(id) {
  if (id === agentUsageId) return "Agent";
  if (id === JUDGE_USAGE_ID) return "Judge";
  return id;
}

function row(name, entry, className) {
  const tr = el("tr", className);
  const th = el("th", null, name);
  th.scope = "row";
  tr.append(th);
  tr.append(el("td", "num", formatCost(entry.accumulated_cost)));
  tr.append(el("td", "num", formatTokens(entry.prompt_tokens)));
  tr.append(el("td", "num", formatTokens(entry.completion_tokens)));
  tr.append(el("td", "num", String(entry.completions || 0)));
  tr.dataset.usage = name.toLowerCase();
  return tr;
}

function render() {
  const ids = Object.keys(metrics).filter((id) => metrics[id].completions > 0 || metrics[id].accumulated_cost > 0);
  ids.sort((a, b) => (a === agentUsageId ? -1 : b === agentUsageId ? 1 : a.localeCompare(b)));
  $("usage").hidden = ids.length === 0;
  replaceIfChanged($("usage-rows"), JSON.stringify(ids.map((id) => metrics[id])), () => {
    const rows = ids.map((id) => row(label(id), metrics[id]));
    if (ids.length > 1) {
      const total = { accumulated_cost: 0, prompt_tokens: 0, completion_tokens: 0, completions: 0 };
      for (const id of ids) {
        for (const key of Object.keys(total)) total[key] += metrics[id][key] || 0;
      }
      rows.push(row("Total", total, "total"));
    }
    return rows;
  });
}
