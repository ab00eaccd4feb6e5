/** A persisted, flat tree of the tool calls of one turn (snake_case because it is a stored format). */
export interface ExecutionTreeSnapshot {
  version: 1;
  nodes: ExecutionTreeNode[];
}

/** One tool call. `run_subtask` nodes are containers: their children carry their id as `parent_id`. */
export interface ExecutionTreeNode {
  id: string;
  parent_id: string | null;
  name: string;
  title?: string;
  /** At most 500 characters. */
  args_preview?: string;
  /** At most 500 characters. */
  result_preview?: string;
  is_error?: boolean;
  duration_ms: number;
}
