import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createInspector, toNodeHandler } from "@agentry/core/inspector";
import { makeInspector } from "./helpers.js";

describe("toNodeHandler", () => {
  it("serves the inspector on Node's http: GETs, a POST with its JSON body, and a live stream ended by the client", async () => {
    const { runtime, todo } = makeInspector();
    todo.items.push("milk");
    const turn = await runtime.send({ agentId: "todo", content: "delete milk" });
    const live = { opened: 0 };
    const inspector = createInspector({
      runtime,
      basePath: "/inspector",
      authorize: () => ({ scopePrefix: "", canAct: true }),
      maxLiveConnections: 1,
    });
    const server = createServer(toNodeHandler(inspector));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/inspector/`;
    try {
      const me = (await (await fetch(`${base}api/me`)).json()) as { csrfToken: string };
      const requestId = turn.pendingApprovals![0]!.requestId;
      const decided = await fetch(`${base}api/approvals/${requestId}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-agentry-csrf": me.csrfToken,
          origin: base.slice(0, -"/inspector/".length),
        },
        body: JSON.stringify({ approved: true }),
      });
      expect(decided.status).toBe(200);
      expect(todo.items).toEqual([]);
      // A live stream whose client goes away frees its place (the cap is 1): each next one is
      // admitted once the server saw the previous socket close (polled by count, not by time).
      for (let i = 0; i < 3; i++) {
        let stream: Response | undefined;
        const controller = new AbortController();
        for (let tries = 0; tries < 500; tries++) {
          stream = await fetch(`${base}api/sessions/${turn.sessionId}/live`, { signal: controller.signal });
          if (stream.status === 200) break;
          await stream.body?.cancel();
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(stream!.status).toBe(200);
        live.opened++;
        const reader = stream!.body!.getReader();
        await reader.read();
        controller.abort();
        await reader.cancel().catch(() => undefined);
      }
      expect(live.opened).toBe(3);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("toNodeHandler under back-pressure", () => {
  it("waits for each drain without leaving a close listener behind per wait", async () => {
    const { EventEmitter } = await import("node:events");
    const chunks = Array.from({ length: 40 }, (_, i) => new TextEncoder().encode(`chunk ${i}\n`));
    const handler = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        }),
      );
    const res = Object.assign(new EventEmitter(), {
      headersSent: false,
      written: 0,
      maxCloseListeners: 0,
      ended: false,
      writeHead() {
        res.headersSent = true;
      },
      write() {
        res.written++;
        res.maxCloseListeners = Math.max(res.maxCloseListeners, res.listenerCount("close"));
        setImmediate(() => res.emit("drain")); // every write fills the buffer: the adapter must wait
        return false;
      },
      end() {
        res.ended = true;
        res.emit("finished");
      },
      destroy() {},
    });
    const req = Object.assign(new EventEmitter(), { method: "GET", url: "/", headers: { host: "localhost" } });
    const finished = new Promise((resolve) => res.once("finished", resolve));
    toNodeHandler(handler)(req, res);
    await finished;
    expect(res.written).toBe(40);
    // One for the abort wiring, at most one for the wait in progress: never one per chunk.
    expect(res.maxCloseListeners).toBeLessThanOrEqual(2);
  });
});
