/**
 * The operator's process: lists what waits for a decision in one tenant (a prefix of scopes), and
 * approves it. The customer's conversation, in the other process's sessions, resumes here.
 *   tsx examples/helpdesk/operator.ts <sqlite file> <tenant>
 */
import { createHelpdesk, type Ledger } from "./app.js";

const [path, tenant] = process.argv.slice(2);
if (!path || !tenant) throw new Error("usage: operator.ts <sqlite file> <tenant>");
const ledger: Ledger = new Map();
const helpdesk = createHelpdesk(path, ledger);
for (const pending of await helpdesk.pendingApprovals({ scopePrefix: tenant })) {
  const asked = [...(pending.chain ?? []).map((c) => c.agentId), pending.agentId].join(" → ");
  console.log(`operator: ${pending.request.name} ${JSON.stringify(pending.request.args)} asked by ${asked}`);
  const resumed = await helpdesk.resolveApproval(pending.requestId, { approved: true });
  console.log(`operator: approved; the customer (${resumed.agentId}) now reads: ${resumed.text}`);
}
console.log(
  `operator: refunds paid here: ${[...ledger.values()].map((r) => `${r.tenant}/${r.customer} ${r.amount}`).join(", ")}`,
);
await helpdesk.close();
