import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("examples/plan-act.ts", () => {
  it("explores read-only, submits a plan, is revised once, approved, asks one question and completes", async () => {
    const out = (await runExample("plan-act.ts")).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<task>");
    const lifecycle = out.split("\n").filter((line) => line.startsWith("▣ task") || line.startsWith("▣ role") || line.startsWith("? question"));
    expect(lifecycle).toEqual([
      "▣ task <task>: new → planning",
      "▣ role: none → planner",
      "▣ task <task>: planning → awaiting_review",
      "▣ task <task>: awaiting_review → planning",
      "▣ task <task>: planning → awaiting_review",
      "▣ task <task>: awaiting_review → executing",
      "▣ role: planner → actor",
      "? question: Should notes.md list the items in the original order?",
      "▣ task <task>: executing → completed",
    ]);
    // The planner only read; the file was written after approval.
    const planning = out.slice(0, out.indexOf("awaiting_review → executing"));
    expect(planning).toMatch(/→ list_directory/);
    expect(planning).not.toMatch(/→ write_file/);
    expect(out).toMatch(/^3\. Keep the original files$/m);
    expect(out).toMatch(/^task completed$/m);
    expect(out).toMatch(/^notes\.md:\n- buy milk\n- call Ann\n- book flights$/m);
  });
});
