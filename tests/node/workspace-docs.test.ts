import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createWorkspaceTools } from "@agentry/core/node";

const guide = readFileSync(
  fileURLToPath(new URL("../../docs/02-agents-tools-and-scoping.md", import.meta.url)),
  "utf8",
);

/** The argument names the guide's "Arguments and results" table gives each tool. */
function documentedArguments(): Map<string, string[]> {
  const section = guide.slice(guide.indexOf("### Arguments and results"));
  const rows = new Map<string, string[]>();
  for (const line of section.split("\n")) {
    const row = /^\| `([a-z_]+)` \| `\{(.*?)\}` \|/.exec(line);
    if (!row) continue;
    const names = [...row[2]!.matchAll(/(?:^|;)\s*([a-z_]+)\??:/g)].map((m) => m[1]!);
    rows.set(row[1]!, names.sort());
  }
  return rows;
}

describe("the workspace tools' documented arguments", () => {
  it("name exactly each tool's input properties, for every tool", () => {
    const tools = createWorkspaceTools({ commandAllowlist: ["node"] });
    const documented = documentedArguments();
    expect([...documented.keys()].sort()).toEqual(tools.map((tool) => tool.name).sort());
    for (const tool of tools) {
      const properties = Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}).sort();
      expect({ tool: tool.name, args: documented.get(tool.name) }).toEqual({ tool: tool.name, args: properties });
    }
  });
});
