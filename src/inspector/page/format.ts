import type { NodeTokens } from "../inspector-api-types.js";

/** "850 ms", "2.4 s", "3 min 5 s". */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** "1,234 in / 56 out" (cached and reasoning when present). */
export function formatTokens(tokens: NodeTokens | undefined): string {
  if (!tokens) return "";
  const parts = [`${tokens.input.toLocaleString("en-US")} in`, `${tokens.output.toLocaleString("en-US")} out`];
  if (tokens.cached) parts.push(`${tokens.cached.toLocaleString("en-US")} cached`);
  if (tokens.reasoning) parts.push(`${tokens.reasoning.toLocaleString("en-US")} reasoning`);
  return parts.join(" / ");
}

/** "$0.0123" (four decimals under a dollar). */
export function formatCost(usd: number | undefined): string {
  if (usd === undefined) return "";
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** A local date and time, short. */
export function formatTime(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString("en-GB", { dateStyle: "short", timeStyle: "medium" });
}

/** JSON for display, indented; long values are cut to keep the drawer responsive. */
export function formatJson(value: unknown, max = 20_000): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "undefined");
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}
