import type { ExecutionTreeNode, ExecutionTreeSnapshot } from "../contracts/execution-tree.js";

/** Longest preview kept in a tree node. */
export const PREVIEW_CHARS = 500;

/** A short string form of any value: strings as is, others as JSON, cut to `max` characters. */
export function preview(value: unknown, max: number = PREVIEW_CHARS): string {
  let text: string;
  if (typeof value === "string") text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/** Collects the tool calls of one turn, every depth, in start order. */
export class ExecutionTree {
  private readonly nodes: ExecutionTreeNode[] = [];
  private readonly byId = new Map<string, ExecutionTreeNode>();

  start(id: string, parentId: string | null, name: string, args: unknown, title?: string): void {
    const node: ExecutionTreeNode = { id, parent_id: parentId, name, duration_ms: 0 };
    if (title !== undefined) node.title = title;
    node.args_preview = preview(args);
    this.nodes.push(node);
    this.byId.set(id, node);
  }

  end(id: string, result: unknown, isError: boolean, durationMs: number): void {
    const node = this.byId.get(id);
    if (!node) return;
    node.result_preview = preview(result);
    if (isError) node.is_error = true;
    node.duration_ms = durationMs;
  }

  get size(): number {
    return this.nodes.length;
  }

  /** A plain-JSON copy of the tree as it stands. */
  snapshot(): ExecutionTreeSnapshot {
    return { version: 1, nodes: this.nodes.map((n) => ({ ...n })) };
  }
}
