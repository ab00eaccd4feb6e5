/**
 * `@agentry/core/inspector`: see every agent run, and act on it, from inside the host app. A Fetch
 * handler (`createInspector`) serving a self-contained page and a JSON API over the runtime's
 * store, with `toNodeHandler` to mount it in Node's `http` or Express. Never loaded by the core
 * entry: it adds nothing to its import cost or bundle.
 *
 * @module \@agentry/core/inspector
 */

// >>> inspector block
export { createInspector } from "../inspector/create-inspector.js";
export type { InspectorOptions, RedactHook, RedactInfo } from "../inspector/create-inspector.js";
export type { InspectorIdentity } from "../inspector/inspector-security.js";
export { toNodeHandler } from "../inspector/to-node-handler.js";
export type { FetchHandler } from "../inspector/to-node-handler.js";
export { exportTurnAsTest } from "../inspector/export-turn.js";
export type { ExportTurnOptions } from "../inspector/export-turn.js";
export { sessionStates } from "../inspector/inspector-api-types.js";
export type {
  ActionResponse,
  ApprovalDecisionBody,
  CostGroupBy,
  CostResponse,
  CostRow,
  InspectorError,
  LiveMessage,
  MeResponse,
  ModelCallDetail,
  NodeDetailResponse,
  NodeTokens,
  OfferedTool,
  OtherNodeDetail,
  PendingResponse,
  QuestionAnswerBody,
  SessionDetailResponse,
  SessionListResponse,
  SessionRow,
  SessionState,
  TaskListResponse,
  TaskReviseBody,
  TaskRow,
  ToolCallDetail,
  TreeNode,
  TreeNodeKind,
  TurnNode,
} from "../inspector/inspector-api-types.js";
// <<< inspector block
