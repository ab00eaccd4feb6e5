import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import { InvalidArgumentError } from "../errors/errors.js";
import type { AgentRuntime, SendInput } from "../contracts/agent-runtime.js";

/** What {@link serveAgentsOverMcp} takes. */
export interface ServeAgentsOverMcpOptions {
  /** The runtime whose agents are served. */
  runtime: AgentRuntime;
  /**
   * Ids of the agents to serve; each must exist and not be `apiExposed: false`.
   * @default every registered agent whose `apiExposed` is not false
   */
  agents?: string[];
  /** The scope (tenant / end user) every turn runs in: MCP clients reach only that scope's sessions. @default unscoped */
  scope?: string;
  /** The server's name in the MCP handshake. @default "agentry" */
  name?: string;
  /** The server's version in the MCP handshake. @default "1.0.0" */
  version?: string;
}

/** Where {@link McpServerHandle.listen} serves. */
export interface McpListenOptions {
  /** @default 0 (a free port) */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
  /** The endpoint path. @default "/mcp" */
  path?: string;
}

/** A running agents-over-MCP server. */
export interface McpServerHandle {
  /** Serves one MCP client over a transport, e.g. `new StdioServerTransport()` (Claude Desktop, Cursor). */
  connect(transport: Transport): Promise<void>;
  /**
   * Serves streamable HTTP (stateless: each POST is answered on its own) on a `node:http` server.
   * Resolves with the endpoint URL once listening. On a loopback host, requests whose `Host`
   * header is not that host are refused (DNS rebinding protection).
   */
  listen(options?: McpListenOptions): Promise<{ url: string }>;
  /** Answers one streamable HTTP request on a host's own server (`parsedBody` when a body parser already read it). */
  handleRequest(request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** Stops listening and closes every transport. */
  close(): Promise<void>;
}

/** Statuses that mean the turn did not produce its answer. */
const FAILED = new Set(["error", "aborted", "budget_exceeded", "iteration_limit"]);

/**
 * Exposes agents as MCP tools, one per agent (named by its `agentId`), so an MCP client (Claude
 * Desktop, Cursor, another agent) can talk to them. A tool takes `{ message, session? }`
 * (`session`: `"latest-or-create"` (default), `"latest"`, `"create"` or a session id) and
 * answers with the agent's reply as text, plus `structuredContent` `{ reply, sessionId, status }`
 * (pass `sessionId` back as `session` to continue that conversation). A turn that fails, is
 * aborted or runs out of budget, and a send the runtime refuses (unknown session, wrong scope),
 * answer with `isError: true`. Cancelling the request aborts the turn.
 *
 * Throws `InvalidArgumentError` when `agents` names an unknown agent or one with `apiExposed: false`.
 *
 * @example
 * const handle = serveAgentsOverMcp({ runtime, agents: ["support"] });
 * await handle.connect(new StdioServerTransport());        // or: await handle.listen({ port: 3001 })
 */
export function serveAgentsOverMcp(options: ServeAgentsOverMcpOptions): McpServerHandle {
  const { runtime } = options;
  const agents = servedAgents(options);
  const servers = new Set<McpServer>();
  let http: HttpServer | undefined;

  function newServer(): McpServer {
    const server = new McpServer({ name: options.name ?? "agentry", version: options.version ?? "1.0.0" });
    for (const agent of agents) registerAgent(server, agent);
    servers.add(server);
    server.server.onclose = () => void servers.delete(server);
    return server;
  }

  function registerAgent(server: McpServer, agent: AgentDefinition): void {
    server.registerTool(
      agent.agentId,
      {
        title: agent.displayName,
        description: agent.description ?? `Send a message to the agent "${agent.displayName}" and get its reply.`,
        inputSchema: {
          message: z.string().min(1).describe("The message to the agent."),
          session: z.string().min(1).optional().describe('"latest-or-create" (default), "latest", "create", or a sessionId from an earlier reply.'),
        },
        outputSchema: { reply: z.string(), sessionId: z.string(), status: z.string() },
        annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      },
      async ({ message, session }, extra) => {
        const input: SendInput & { scope?: string } = { agentId: agent.agentId, content: message, signal: extra.signal };
        if (session !== undefined) input.session = session;
        if (options.scope !== undefined) input.scope = options.scope;
        try {
          const result = await runtime.send(input);
          const failed = FAILED.has(result.status);
          const reply = failed
            ? `The agent's turn ended with status "${result.status}"${result.error ? `: ${result.error.message}` : ""}.`
            : result.status === "suspended"
              ? `${result.text}${result.text ? "\n" : ""}[The agent is waiting for an approval in session ${result.sessionId}.]`
              : result.text;
          return {
            content: [{ type: "text" as const, text: reply }],
            structuredContent: { reply, sessionId: result.sessionId, status: result.status },
            ...(failed && { isError: true }),
          };
        } catch (error) {
          return { content: [{ type: "text" as const, text: error instanceof Error ? error.message : String(error) }], isError: true };
        }
      },
    );
  }

  async function handleRequest(request: IncomingMessage, response: ServerResponse, parsedBody?: unknown, allowedHosts?: string[]): Promise<void> {
    if (request.method !== "POST") {
      response.writeHead(405, { "content-type": "application/json", allow: "POST" });
      response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this server is stateless, send POST." }, id: null }));
      return;
    }
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      ...(allowedHosts && { enableDnsRebindingProtection: true, allowedHosts }),
    });
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, parsedBody);
  }

  return {
    async connect(transport) {
      await newServer().connect(transport);
    },
    handleRequest: (request, response, parsedBody) => handleRequest(request, response, parsedBody),
    listen(listenOptions = {}) {
      if (http) return Promise.reject(new InvalidArgumentError("serveAgentsOverMcp: already listening"));
      const host = listenOptions.host ?? "127.0.0.1";
      const path = listenOptions.path ?? "/mcp";
      const loopback = host === "127.0.0.1" || host === "localhost" || host === "::1";
      let allowedHosts: string[] | undefined;
      const server = createServer((request, response) => {
        if (new URL(request.url ?? "/", "http://x").pathname !== path) {
          response.writeHead(404).end();
          return;
        }
        handleRequest(request, response, undefined, allowedHosts).catch(() => {
          if (!response.headersSent) response.writeHead(500);
          response.end();
        });
      });
      http = server;
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(listenOptions.port ?? 0, host, () => {
          const { port } = server.address() as AddressInfo;
          const hostPart = host.includes(":") ? `[${host}]` : host;
          if (loopback) allowedHosts = [`${hostPart}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`];
          resolve({ url: `http://${hostPart}:${port}${path}` });
        });
      });
    },
    async close() {
      const server = http;
      http = undefined;
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await Promise.all([...servers].map((s) => s.close().catch(() => undefined)));
    },
  };
}

function servedAgents(options: ServeAgentsOverMcpOptions): AgentDefinition[] {
  if (!options?.runtime || typeof options.runtime.send !== "function") throw new InvalidArgumentError("serveAgentsOverMcp: runtime is required");
  const { registry } = options.runtime;
  if (options.agents === undefined) return registry.list().filter((agent) => agent.apiExposed !== false);
  const problems: string[] = [];
  const agents: AgentDefinition[] = [];
  for (const id of options.agents) {
    const agent = registry.get(id);
    if (!agent) problems.push(`unknown agent "${id}"`);
    else if (agent.apiExposed === false) problems.push(`agent "${id}" has apiExposed: false`);
    else agents.push(agent);
  }
  if (problems.length > 0) throw new InvalidArgumentError(`serveAgentsOverMcp: ${problems.join("; ")}`);
  return agents;
}
