import type { TreeNodeKind } from "../inspector-api-types.js";
import { formatCost, formatDuration, formatTokens } from "./format.js";
import type { TreeRow } from "./tree-rows.js";

/** The height of every row of the tree, in pixels (fixed: see `VirtualList`). */
export const ROW_HEIGHT = 44;

const KIND_LABELS: Record<TreeNodeKind, string> = {
  turn: "Turn",
  model_call: "Model",
  tool_call: "Tool",
  subtask: "Sub-task",
  delegation: "Delegation",
  background: "Background",
  approval: "Approval",
  question: "Question",
  steered: "Steered",
  rewind: "Rewind",
  compaction: "Compaction",
};

/** Props of {@link TreeRowView}. */
export interface TreeRowProps {
  row: TreeRow;
  index: number;
  onToggle: (index: number) => void;
  onFocusRow: (index: number) => void;
  onDetails: (row: TreeRow) => void;
  onExport: (row: TreeRow) => void;
}

/** One card of an execution tree: kind, label, status, duration, tokens and cost; errors and budget stops marked. */
export function TreeRowView({ row, index, onToggle, onFocusRow, onDetails, onExport }: TreeRowProps) {
  const { node, depth } = row;
  const parent = node.children.length > 0;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget) return;
    const keys: Record<string, () => void> = {
      Enter: () => (parent ? onToggle(index) : onDetails(row)),
      " ": () => (parent ? onToggle(index) : onDetails(row)),
      ArrowDown: () => onFocusRow(index + 1),
      ArrowUp: () => onFocusRow(index - 1),
      ArrowRight: () => parent && !row.expanded && onToggle(index),
      ArrowLeft: () => parent && row.expanded && onToggle(index),
    };
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };
  const classes = ["row", `kind-${node.kind}`, node.error ? "has-error" : "", node.budgetStop ? "has-budget-stop" : ""];
  return (
    <div
      class={classes.join(" ")}
      role="treeitem"
      aria-level={depth + 1}
      aria-expanded={parent ? row.expanded : undefined}
      tabIndex={0}
      data-row-index={index}
      data-testid="tree-row"
      data-kind={node.kind}
      data-node-id={node.id}
      data-status={node.status ?? ""}
      style={{ height: `${ROW_HEIGHT}px` }}
      onKeyDown={onKeyDown}
      onClick={(event) =>
        (event.target as HTMLElement).closest("button, a") === null && (parent ? onToggle(index) : onDetails(row))
      }
    >
      {Array.from({ length: depth }, (_, i) => (
        <span class="guide" key={i} />
      ))}
      <div class="card">
        <span class="toggle" aria-hidden="true">
          {parent ? (row.expanded ? "▾" : "▸") : "·"}
        </span>
        <span class="kind">{KIND_LABELS[node.kind]}</span>
        <span class="label" title={node.label}>
          {node.label}
        </span>
        {node.status && <span class={`status status-${node.status}`}>{node.status}</span>}
        {node.budgetStop && <span class="status status-budget">budget stop</span>}
        {node.error && (
          <span class="error-text" title={node.error}>
            {node.error}
          </span>
        )}
        <span class="meta" data-testid="node-meta">
          {[formatDuration(node.durationMs), formatTokens(node.tokens), formatCost(node.costUsd)]
            .filter(Boolean)
            .join(" · ")}
        </span>
        {node.sessionId && (
          <a class="link" href={`#/session/${encodeURIComponent(node.sessionId)}`} data-testid="open-session">
            Open session
          </a>
        )}
        {node.kind === "turn" && (
          <button type="button" class="small" data-testid="export" onClick={() => onExport(row)}>
            Export as test
          </button>
        )}
        <button type="button" class="small" data-testid="details" onClick={() => onDetails(row)}>
          Details
        </button>
      </div>
    </div>
  );
}
