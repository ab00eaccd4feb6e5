/**
 * `@agentry/core/node`: Node-only parts: the JSONL file session store, workspace file and command
 * tools, and CLI-agent providers.
 *
 * @module
 */

// >>> jsonl store block
// <<< jsonl store block
// >>> workspace tools block
// <<< workspace tools block
// >>> cli providers block
// <<< cli providers block
