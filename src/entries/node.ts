/**
 * `@agentry/core/node`: Node-only parts: the JSONL file session store, workspace file and command
 * tools, and CLI-agent providers.
 *
 * @module
 */

// >>> jsonl store block
export { JsonlSessionStore } from "../node/jsonl-session-store.js";
export type { JsonlSessionStoreOptions } from "../node/jsonl-session-store.js";
// <<< jsonl store block
// >>> workspace tools block
export { createWorkspaceTools } from "../node/workspace-tools.js";
export type { WorkspaceToolsOptions } from "../node/workspace-tools.js";
export type { RunCommandResult } from "../node/workspace-command.js";
// <<< workspace tools block
// >>> cli providers block
// <<< cli providers block
