import { describe, expect, it } from "vitest";
import type { ModelRequest, RuntimeEvent } from "@agentry/core";
import { createInspector } from "@agentry/core/inspector";
import { formatEvent, type FakeTurn } from "@agentry/core/testing";
import { toAgUiEvents, toTaskEvents, toUIMessageStream, type AgUiEvent } from "@agentry/core/ui";
import { makeRuntime, textOf } from "../runtime/helpers.js";

const SUMMARY = "## Goal\n- keep the secret-plan safe";

function script(request: ModelRequest): FakeTurn {
  if (request.caller?.purpose === "compaction") return { text: SUMMARY };
  return { text: `re: ${textOf(request.messages.at(-1))} ${"y".repeat(480)}` };
}

/** A session of a few turns, the last of which compacted it, and the compacting turn's events. */
async function compactedSession() {
  const made = makeRuntime(script, { compaction: { triggerTokens: 1_500 } });
  let sessionId = "";
  let turnEvents: RuntimeEvent[] = [];
  for (let turn = 1; turn <= 30; turn++) {
    turnEvents = [];
    for await (const event of made.runtime.stream({
      agentId: "general",
      content: `turn ${turn}`,
      ...(sessionId && { session: sessionId }),
    }))
      turnEvents.push(event);
    sessionId = turnEvents.at(-1)!.sessionId;
    if (turnEvents.some((e) => e.type === "context_compacted")) break;
  }
  return { ...made, sessionId, turnEvents };
}

async function* iterate<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

describe("a compaction as hosts and people see it", () => {
  it("the inspector shows it as a row of the turn that compacted, and its drawer detail holds the summary (redacted)", async () => {
    const { runtime, sessionId } = await compactedSession();
    const inspector = createInspector({
      runtime,
      authorize: () => ({ scopePrefix: "", canAct: false }),
      redact: (value) => (typeof value === "string" ? value.replaceAll("secret-plan", "[hidden]") : value),
    });
    const read = async (path: string) => (await inspector(new Request(`http://x${path}`))).json();
    const detail = await read(`/api/sessions/${sessionId}`);
    const last = detail.turns.at(-1);
    const row = last.children[0];
    expect(row).toMatchObject({ kind: "compaction", status: "model" });
    expect(row.label).toMatch(/^context compacted ~\d+ → ~\d+ tokens: ## Goal - keep the \[hidden\] safe$/);
    const node = await read(`/api/sessions/${sessionId}/nodes/${encodeURIComponent(row.id)}`);
    expect(node).toMatchObject({ kind: "compaction", summary: "## Goal\n- keep the [hidden] safe", trigger: "auto" });
    expect(node.tokensAfter).toBeLessThan(node.tokensBefore);

    // On demand: a row of the turn before it, with its instructions.
    await runtime.send({ agentId: "general", content: "one more", session: sessionId });
    await runtime.send({ agentId: "general", content: "and another", session: sessionId });
    const manual = await runtime.compact(sessionId, { instructions: "keep the secret-plan" });
    const after = await read(`/api/sessions/${sessionId}`);
    const rows = after.turns.at(-1).children.filter((c: { kind: string }) => c.kind === "compaction");
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe(`c:${manual.recordId}`);
    const manualNode = await read(`/api/sessions/${sessionId}/nodes/${encodeURIComponent(rows[0].id)}`);
    expect(manualNode).toMatchObject({ trigger: "manual", instructions: "keep the [hidden]" });
  });

  it("every UI translator carries context_compacted: the AI SDK stream, AG-UI, the task events and the test labels", async () => {
    const { turnEvents } = await compactedSession();
    const event = turnEvents.find((e) => e.type === "context_compacted")!;

    const chunks: { type: string; id?: string; data?: unknown }[] = [];
    const reader = toUIMessageStream(iterate(turnEvents)).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const part = chunks.find((chunk) => chunk.type === "data-agentry-compaction");
    expect(part).toMatchObject({ id: event.type === "context_compacted" ? event.recordId : "" });
    expect(part?.data).toMatchObject({ trigger: "auto", source: "model", summary: SUMMARY, depth: 0 });

    const agUi: AgUiEvent[] = [];
    for await (const item of toAgUiEvents(iterate(turnEvents))) agUi.push(item);
    const custom = agUi.find((item) => item.type === "CUSTOM" && item.name === "agentry.context_compacted");
    expect(custom).toMatchObject({ value: { trigger: "auto", summary: SUMMARY } });

    const tasks = toTaskEvents(turnEvents);
    const log = tasks.find((item) => item.type === "log.info" && item.payload.code === "context_compacted");
    expect(log?.type === "log.info" ? log.payload.message : undefined).toMatch(
      /^Context compacted: ~\d+ → ~\d+ estimated tokens \(\d+ messages summarized, by model\)\.$/,
    );

    expect(formatEvent(event)).toMatch(/context compacted: ~\d+ → ~\d+ tokens/);
  });
});
