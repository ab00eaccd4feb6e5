import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicy, type ToolContext } from "@agentry/core";
import { connectMcpServer, type McpConnection } from "@agentry/core/mcp";
import { everythingServer, runMcpTool } from "./servers.js";

/** Starting a server process takes seconds on a busy machine (the default hook limit is 10 s). */
const SERVER_START_MS = 60_000;

const ctx = (): ToolContext => ({
  toolCallId: "c1",
  depth: 0,
  parentId: null,
  callKey: "test",
  signal: new AbortController().signal,
  policy: defaultPolicy(),
});
const call = (connection: McpConnection, name: string, args: unknown) => {
  const tool = connection.tools().find((t) => t.name === `${connection.name}.${name}`);
  if (!tool)
    throw new Error(
      `no tool ${name} in ${connection
        .tools()
        .map((t) => t.name)
        .join(", ")}`,
    );
  return runMcpTool(tool, args, ctx());
};

/** A loopback port that was free a moment ago. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe("the official everything server", { timeout: 60_000 }, () => {
  describe("over stdio", () => {
    let everything: McpConnection;
    beforeAll(async () => {
      everything = await connectMcpServer({
        name: "everything",
        command: process.execPath,
        args: [everythingServer(), "stdio"],
      });
    }, SERVER_START_MS);
    afterAll(() => everything.close());

    it("offers its tools with names that keep the server visible", () => {
      const names = everything.tools().map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "everything.echo",
          "everything.get-sum",
          "everything.get-structured-content",
          "everything.get-tiny-image",
        ]),
      );
      expect(everything.tools().every((t) => t.mcpServer === "everything")).toBe(true);
    });

    it("maps text, structured content and images", async () => {
      await expect(call(everything, "echo", { message: "hi" })).resolves.toBe("Echo: hi");
      await expect(call(everything, "get-structured-content", { location: "Chicago" })).resolves.toMatchObject({
        temperature: 36,
      });
      await expect(call(everything, "get-tiny-image", {})).resolves.toMatchObject({
        type: "content",
        parts: expect.arrayContaining([
          { type: "image", mediaType: "image/png", data: expect.stringMatching(/^iVBORw0KGgo/) },
        ]),
      });
    });

    it("gives the server only a safe subset of this process's environment plus `env`", async () => {
      process.env.AGENTRY_TEST_SECRET = "do-not-leak";
      const leaky = await connectMcpServer({
        name: "envcheck",
        command: process.execPath,
        args: [everythingServer(), "stdio"],
        env: { GIVEN: "yes" },
      });
      try {
        const env = JSON.stringify(await call(leaky, "get-env", {}));
        expect(env).toContain("GIVEN");
        expect(env).not.toContain("do-not-leak");
      } finally {
        delete process.env.AGENTRY_TEST_SECRET;
        await leaky.close();
      }
    });
  });

  describe("over streamable HTTP on a loopback port", () => {
    let child: ChildProcess;
    let url: string;
    let stdout = "";
    beforeAll(async () => {
      const port = await freePort();
      child = spawn(process.execPath, [everythingServer(), "streamableHttp"], {
        env: { ...process.env, PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout!.on("data", (chunk: Buffer) => (stdout += String(chunk)));
      await new Promise<void>((resolve, reject) => {
        let stderr = "";
        child.stderr!.on("data", (chunk: Buffer) => {
          stderr += String(chunk);
          if (stderr.includes(`listening on port ${port}`)) resolve();
        });
        child.once("exit", (code) => reject(new Error(`everything server exited (${code}): ${stderr}`)));
      });
      url = `http://127.0.0.1:${port}/mcp`;
    }, SERVER_START_MS);
    afterAll(() => {
      child.kill();
    });

    it("connects by URL, lists and calls tools", async () => {
      const remote = await connectMcpServer({ name: "remote", url, headers: { "x-test": "1" } });
      try {
        expect(remote.tools().map((t) => t.name)).toContain("remote.echo");
        await expect(call(remote, "echo", { message: "over http" })).resolves.toBe("Echo: over http");
        await expect(call(remote, "get-sum", { a: 2, b: 3 })).resolves.toMatch(/5/);
      } finally {
        await remote.close();
      }
      // close() ends the server's session for this client (DELETE), not only the local transport.
      await expect.poll(() => stdout).toMatch(/Received session termination request/);
    });

    it("rejects with a typed error when nothing listens at the URL", async () => {
      const port = await freePort();
      await expect(
        connectMcpServer({ name: "gone", url: `http://127.0.0.1:${port}/mcp`, connectTimeoutMs: 5_000 }),
      ).rejects.toMatchObject({
        name: "McpConnectionError",
        server: "gone",
      });
    });
  });
});
