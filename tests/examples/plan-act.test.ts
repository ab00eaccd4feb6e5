import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("examples/plan-act.ts", () => {
  it("explores read-only (search, git status), submits a plan, is revised once, approved, asks one question, patches and completes", async () => {
    const out = (await runExample("plan-act.ts")).replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
      "<task>",
    );
    const lifecycle = out
      .split("\n")
      .filter((line) => line.startsWith("▣ task") || line.startsWith("▣ role") || line.startsWith("? question"));
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
    expect(planning).toMatch(/→ search_files/);
    expect(planning).toMatch(/search_files → .*"file":"notes-b\.md","line":1,"text":"- call Ann"/);
    expect(planning).toMatch(/git_status → \{"branch":"main","entries":\[\]/);
    expect(planning).not.toMatch(/→ (write_file|apply_patch)/);
    expect(out).not.toContain("✗");
    // The actor created notes.md and edited README.md in one patch, then looked at the diff.
    const acting = out.slice(out.indexOf("awaiting_review → executing"));
    expect(acting).toMatch(
      /apply_patch → .*"path":"notes\.md","action":"created".*"path":"README\.md","action":"modified"/,
    );
    expect(acting).toMatch(/git_diff →\n[\s\S]*\+- notes\.md \(both, merged\)/);
    expect(out).toMatch(/^git status --short:\n M README\.md\n\?\? notes\.md$/m);
    expect(out).toMatch(/^3\. Keep the original files$/m);
    expect(out).toMatch(/^task completed$/m);
    expect(out).toMatch(/^notes\.md:\n- buy milk\n- call Ann\n- book flights$/m);
  });
});
