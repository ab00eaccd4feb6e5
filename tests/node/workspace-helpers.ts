import type { Tool, ToolPolicy } from "@agentry/core";
import { validateToolArgs } from "../../src/tools/validate-tool-args.js";

/** The tool named `name` of `tools`; throws when there is none. */
export function toolNamed(tools: Tool[], name: string): Tool {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

/** Calls a tool the way the loop does: validate (applying defaults), then execute. */
export async function callTool(
  tools: Tool[],
  name: string,
  args: unknown,
  policy: ToolPolicy,
  signal = new AbortController().signal,
): Promise<any> {
  const tool = toolNamed(tools, name);
  const valid = validateToolArgs(tool, args);
  if (!valid.ok) throw new Error(`invalid args: ${valid.message}`);
  return tool.execute!(valid.value, { toolCallId: "c1", depth: 0, parentId: null, callKey: "test", signal, policy });
}
