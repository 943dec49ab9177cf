// How numbers, durations and times read on the page.

/** US dollars: small amounts keep four decimals ($0.0123), larger ones two ($12.34). */
export function formatCost(usd) {
  const value = Number(usd) || 0;
  if (value === 0) return "$0";
  return value < 1 ? `$${value.toFixed(4)}` : `$${value.toFixed(2)}`;
}

/** A token count, shortened: 950, 12.3k, 4.1M. */
export function formatTokens(count) {
  const value = Number(count) || 0;
  if (value < 1000) return String(value);
  if (value < 1_000_000) return `${(value / 1000).toFixed(value < 10_000 ? 1 : 0)}k`;
  return `${(value / 1_000_000).toFixed(1)}M`;
}

/** Seconds as "0.4 s", "8 s", "3 min 05 s" or "2 h 04 min". */
export function formatDuration(seconds) {
  const exact = Math.max(0, Number(seconds) || 0);
  if (exact < 10 && exact !== Math.floor(exact)) return `${exact.toFixed(1)} s`;
  const total = Math.floor(exact);
  if (total < 60) return `${total} s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes} min ${String(total % 60).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** A past moment relative to now: "just now", "5 min ago", "3 h ago", else the date. */
export function relativeTime(iso, now = Date.now()) {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.max(0, (now - then) / 1000);
  if (seconds < 45) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(then).toLocaleDateString();
}

/** The full local date and time of an ISO timestamp (for tooltips). */
export function fullTime(iso) {
  const then = Date.parse(iso);
  return Number.isNaN(then) ? "" : new Date(then).toLocaleString();
}

/** A score from 0..1 as a whole percentage. */
export function percent(score) {
  return `${Math.round((Number(score) || 0) * 100)}%`;
}
