import type { NodeTokens, TreeNode, TurnNode } from "../inspector-api-types.js";

/** One visible row of a session's execution trees: a node, its depth and the turn it is in. */
export interface TreeRow {
  node: TreeNode;
  turn: TurnNode;
  depth: number;
  expanded: boolean;
}

/**
 * The rows shown for `turns` when the nodes in `expanded` are open: each turn, then (when open)
 * its children depth first. Collapsed by default, so a session of 2,000 turns is 2,000 rows
 * however large its trees; only the open subtrees are walked.
 */
export function visibleRows(turns: readonly TurnNode[], expanded: ReadonlySet<string>): TreeRow[] {
  const rows: TreeRow[] = [];
  for (const turn of turns) {
    const stack: { node: TreeNode; depth: number }[] = [{ node: turn, depth: 0 }];
    while (stack.length > 0) {
      const { node, depth } = stack.pop()!;
      const open = expanded.has(node.id) && node.children.length > 0;
      rows.push({ node, turn, depth, expanded: open });
      if (!open) continue;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, depth: depth + 1 });
    }
  }
  return rows;
}

/** Tokens, cost, model time and calls spent by one agent in the trees shown. */
export interface AgentTotal {
  agentId: string;
  tokens: NodeTokens;
  costUsd: number;
  durationMs: number;
  modelCalls: number;
}

/**
 * Totals per agent over the model calls of `turns`: a call belongs to the target agent of the
 * nearest delegation or background node above it (its label), else to the session's agent.
 * Summed from model calls only, so subtree totals on parent nodes are not counted twice.
 */
export function agentTotals(turns: readonly TurnNode[], sessionAgent: string): AgentTotal[] {
  const totals = new Map<string, AgentTotal>();
  const add = (agentId: string, node: TreeNode) => {
    let total = totals.get(agentId);
    if (!total)
      totals.set(
        agentId,
        (total = { agentId, tokens: { input: 0, output: 0 }, costUsd: 0, durationMs: 0, modelCalls: 0 }),
      );
    total.modelCalls += 1;
    total.tokens.input += node.tokens?.input ?? 0;
    total.tokens.output += node.tokens?.output ?? 0;
    total.costUsd += node.costUsd ?? 0;
    total.durationMs += node.durationMs ?? 0;
  };
  const stack: { node: TreeNode; agentId: string }[] = turns.map((node) => ({ node, agentId: sessionAgent }));
  while (stack.length > 0) {
    const { node, agentId } = stack.pop()!;
    if (node.kind === "model_call") add(agentId, node);
    const inner = node.kind === "delegation" || node.kind === "background" ? node.label : agentId;
    for (const child of node.children) stack.push({ node: child, agentId: inner });
  }
  return [...totals.values()].sort((a, b) => b.costUsd - a.costUsd || b.tokens.input - a.tokens.input);
}

/** Every node id of `turns` (for "expand all"). */
export function allNodeIds(turns: readonly TreeNode[]): string[] {
  const ids: string[] = [];
  const stack = [...turns];
  while (stack.length > 0) {
    const node = stack.pop()!;
    ids.push(node.id);
    stack.push(...node.children);
  }
  return ids;
}
