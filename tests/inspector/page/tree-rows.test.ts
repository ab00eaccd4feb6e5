import { describe, expect, it } from "vitest";
import type { TreeNode, TurnNode } from "../../../src/inspector/inspector-api-types.js";
import { agentTotals, allNodeIds, visibleRows } from "../../../src/inspector/page/tree-rows.js";
import { upsertTurn } from "../../../src/inspector/page/use-live-turns.js";

const node = (
  id: string,
  kind: TreeNode["kind"],
  children: TreeNode[] = [],
  extra: Partial<TreeNode> = {},
): TreeNode => ({
  id,
  kind,
  label: id,
  children,
  ...extra,
});
const turn = (n: number, children: TreeNode[] = []): TurnNode => ({
  ...node(`r${n}`, "turn", children),
  runId: `run${n}`,
  turnNumber: n,
});

const model = (id: string, input: number, children: TreeNode[] = []) =>
  node(id, "model_call", children, { tokens: { input, output: 1 }, costUsd: input / 1000, durationMs: 10 });
const turns = [
  turn(1, [
    model("m1", 100, [node("t1", "tool_call"), node("d1", "delegation", [model("m2", 50)], { label: "billing" })]),
  ]),
  turn(2, [model("m3", 10)]),
];

describe("the session tree's rows", () => {
  it("shows turns collapsed, then each opened node's children in order, depth first", () => {
    expect(visibleRows(turns, new Set()).map((r) => r.node.id)).toEqual(["r1", "r2"]);
    const open = visibleRows(turns, new Set(["r1", "m1", "d1"]));
    expect(open.map((r) => [r.node.id, r.depth])).toEqual([
      ["r1", 0],
      ["m1", 1],
      ["t1", 2],
      ["d1", 2],
      ["m2", 3],
      ["r2", 0],
    ]);
    // A closed parent hides its subtree even when nodes below it are marked open.
    expect(visibleRows(turns, new Set(["m1", "d1"])).map((r) => r.node.id)).toEqual(["r1", "r2"]);
    expect(allNodeIds(turns).sort()).toEqual(["d1", "m1", "m2", "m3", "r1", "r2", "t1"]);
  });

  it("sums model calls per agent: a delegation's calls count for its target agent, once", () => {
    expect(agentTotals(turns, "support")).toEqual([
      { agentId: "support", tokens: { input: 110, output: 2 }, costUsd: 0.11, durationMs: 20, modelCalls: 2 },
      { agentId: "billing", tokens: { input: 50, output: 1 }, costUsd: 0.05, durationMs: 10, modelCalls: 1 },
    ]);
  });

  it("a live turn replaces the one with its run id, or is appended after the last, numbered in order", () => {
    const updated = { ...turn(2), status: "complete" };
    expect(upsertTurn(turns, updated).map((t) => [t.runId, t.status])).toEqual([
      ["run1", undefined],
      ["run2", "complete"],
    ]);
    const unnumbered = { ...turn(2), turnNumber: 0, label: "Turn 0: where is it?" };
    expect(upsertTurn(turns, unnumbered).map((t) => [t.turnNumber, t.label])).toEqual([
      [1, "r1"],
      [2, "Turn 2: where is it?"],
    ]);
    expect(upsertTurn(turns, turn(3)).map((t) => t.turnNumber)).toEqual([1, 2, 3]);
    expect(upsertTurn(turns, { ...turn(3), runId: "run3", turnNumber: 0 }).map((t) => t.turnNumber)).toEqual([1, 2, 3]);
  });
});
