/**
 * `@agentry/core/node`: Node-only parts: the JSONL file session store, workspace file and command
 * tools, and CLI-agent providers.
 *
 * @module \@agentry/core/node
 */

// >>> jsonl store block
export { JsonlSessionStore } from "../node/jsonl-session-store.js";
export type { JsonlSessionStoreOptions } from "../node/jsonl-session-store.js";
// <<< jsonl store block
// >>> workspace tools block
export { createWorkspaceTools } from "../node/workspace-tools.js";
export type { WorkspaceToolsOptions } from "../node/workspace-tools.js";
export type { NamespaceSandboxOptions, WorkspaceSandbox } from "../node/workspace-sandbox.js";
export { SandboxUnavailableError } from "../errors/errors.js";
export type { RunCommandResult } from "../node/workspace-command.js";
export type { SearchFilesMatch, SearchFilesResult } from "../node/workspace-search.js";
export type { GitDiffResult, GitStatusEntry, GitStatusResult } from "../node/workspace-git.js";
export type { AppliedPatchFile, ApplyPatchResult } from "../node/workspace-patch.js";
// <<< workspace tools block
// >>> cli providers block
export { createCliProvider } from "../node/create-cli-provider.js";
export type { CliArgsInput, CliProviderOptions } from "../node/create-cli-provider.js";
export { claudeCli, createClaudeOutputParser } from "../node/claude-cli.js";
export { codexCli, createCodexOutputParser } from "../node/codex-cli.js";
export { piCli, createPiOutputParser } from "../node/pi-cli.js";
export type { CliPresetOptions } from "../node/cli-preset-options.js";
export { cliPrompt } from "../node/cli-prompt.js";
export { createJsonlOutputParser, createTextOutputParser } from "../node/cli-output-parser.js";
export type { CliOutputEvent, CliOutputParser } from "../node/cli-output-parser.js";
// <<< cli providers block
