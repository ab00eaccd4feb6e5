import { defineTool, type Tool } from "@agentry/core";

type ToolExtras = Partial<Pick<Tool, "permissionClass" | "capabilities" | "contexts">>;

/** A do-nothing tool for scoping tests. */
export function fakeTool(name: string, extras: ToolExtras = {}): Tool {
  return defineTool({ name, description: `${name} tool`, input: { type: "object" }, ...extras, execute: () => null });
}

/** The names of tools, in order. */
export const names = (tools: Tool[]): string[] => tools.map((t) => t.name);
