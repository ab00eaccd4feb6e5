import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("examples/helpdesk", () => {
  it("auto-approves acme's small refund, and globex's waits through the delegation chain until an operator in another process approves it", async () => {
    const out = await runExample("helpdesk/index.ts");
    expect(out).toMatch(/^acme\/eu: complete: Helpdesk: Order A-7: refunded 15 for A-7\.$/m);
    expect(out).toMatch(/^globex\/us: suspended: waits for refund asked by billing$/m);
    expect(out).toMatch(/^refunds paid so far: acme\/eu\/ann 15$/m);
    expect(out).toMatch(/^operator: refund \{"orderId":"A-7","amount":15\} asked by triage → billing$/m);
    expect(out).toMatch(
      /^operator: approved; the customer \(triage\) now reads: Helpdesk: Order A-7: refunded 15 for A-7\.$/m,
    );
    expect(out).toMatch(/^operator: refunds paid here: globex\/us\/bob 15$/m);
  });
});
