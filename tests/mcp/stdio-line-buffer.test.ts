import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createStdioLineBuffer } from "../../src/mcp/stdio-line-buffer.js";

describe("the stdio read buffer", () => {
  it("yields the same JSON-RPC messages however the bytes are split into chunks (property)", () => {
    const message = fc.record({
      jsonrpc: fc.constant("2.0" as const),
      id: fc.nat(),
      result: fc.record({ text: fc.string({ unit: "grapheme" }) }),
    });
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.boolean(),
        (messages, cuts, crlf) => {
          const bytes = Buffer.from(messages.map((m) => JSON.stringify(m) + (crlf ? "\r\n" : "\n")).join(""));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const buffer = createStdioLineBuffer(1 << 20);
          const out: unknown[] = [];
          let from = 0;
          for (const to of [...points, bytes.length]) {
            buffer.append(bytes.subarray(from, to));
            from = to;
            for (let m = buffer.readMessage(); m !== null; m = buffer.readMessage()) out.push(m);
          }
          expect(out).toEqual(messages);
        },
      ),
    );
  });

  it("refuses to hold more than its limit, and starts over", () => {
    const line = '{"jsonrpc":"2.0","method":"x"}\n';
    const buffer = createStdioLineBuffer(line.length);
    buffer.append(Buffer.from("x".repeat(20)));
    expect(() => buffer.append(Buffer.from("y".repeat(20)))).toThrow(`exceeded maximum size of ${line.length} bytes`);
    buffer.append(Buffer.from(line));
    expect(buffer.readMessage()).toEqual({ jsonrpc: "2.0", method: "x" });
  });

  it("throws for a line that is not JSON-RPC (the transport reports it and goes on)", () => {
    const buffer = createStdioLineBuffer(1000);
    buffer.append(Buffer.from('not json\n{"jsonrpc":"2.0","method":"ping","id":1}\n'));
    expect(() => buffer.readMessage()).toThrow();
    expect(buffer.readMessage()).toEqual({ jsonrpc: "2.0", method: "ping", id: 1 });
  });
});
