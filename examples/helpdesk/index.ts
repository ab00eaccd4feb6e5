/**
 * A multi-tenant helpdesk: two tenants ask for a refund. Acme's is small, so the host's rule
 * approves it; Globex's waits for an operator, who decides it from another process. The customer's
 * conversation (triage, which asked billing, which asked for the refund) resumes there.
 *   npx tsx examples/helpdesk/index.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHelpdesk, type Ledger } from "./app.js";

const path = join(mkdtempSync(join(tmpdir(), "helpdesk-")), "helpdesk.db");
const ledger: Ledger = new Map();
const helpdesk = createHelpdesk(path, ledger);

const acme = await helpdesk.send({
  agentId: "triage",
  content: "Please refund order A-7",
  scope: "acme/eu",
  context: { tenant: "acme", customer: "ann", plan: "pro" },
});
console.log(`acme/eu: ${acme.status}: ${acme.text}`);

const globex = await helpdesk.send({
  agentId: "triage",
  content: "Please refund order A-7",
  scope: "globex/us",
  context: { tenant: "globex", customer: "bob", plan: "free" },
});
const [waiting] = globex.pendingApprovals ?? [];
console.log(`globex/us: ${globex.status}: waits for ${waiting?.name} asked by ${waiting?.origin?.agentId}`);
console.log(
  `refunds paid so far: ${[...ledger.values()].map((r) => `${r.tenant}/${r.customer} ${r.amount}`).join(", ")}`,
);
await helpdesk.close();

// The operator works in another process, on the same database.
const operator = fileURLToPath(new URL("./operator.ts", import.meta.url));
process.stdout.write(
  execFileSync(process.execPath, ["--import", "tsx", operator, path, "globex"], { encoding: "utf8" }),
);
