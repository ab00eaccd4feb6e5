import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import { InvalidArgumentError } from "../errors/errors.js";
import type { AgentRuntime } from "../contracts/agent-runtime.js";
import {
  createMcpAgentClient,
  McpClientRefusal,
  type McpAgentClient,
  type McpClientLimits,
} from "./mcp-agent-client.js";

/** Who an HTTP request comes from, as the host's `authorize` decides: the scope its turns run in. */
export interface McpAuthorization {
  /** The scope (tenant / end user) of the request's turns. @default unscoped */
  scope?: string;
}

/** What {@link serveAgentsOverMcp} takes. */
export interface ServeAgentsOverMcpOptions {
  /** The runtime whose agents are served. */
  runtime: AgentRuntime;
  /**
   * Ids of the agents to serve; each must exist and not be `apiExposed: false`.
   * @default every registered agent whose `apiExposed` is not false
   */
  agents?: string[];
  /**
   * The scope (tenant / end user) every turn runs in when `authorize` does not say (always for
   * `connect()`). Not with `authorize`. @default unscoped
   */
  scope?: string;
  /**
   * Streamable HTTP: called for every request (before anything else is read) with the request;
   * returns the scope its turns run in, or `null` to answer 401. An MCP session keeps the scope it
   * started with: a later request of that session authorized to another scope gets 404, as an
   * unknown session does. Must not throw (a throw answers 500).
   * @default every request is authorized, in `scope`
   */
  authorize?: (request: IncomingMessage) => McpAuthorization | null | Promise<McpAuthorization | null>;
  /** MCP sessions (HTTP clients) served at once; an `initialize` beyond gets 503. @default 1_000 */
  maxClients?: number;
  /** Agent sessions one MCP client may create; beyond, `"create"` is an error result. @default 100 */
  maxSessionsPerClient?: number;
  /** Turns one MCP client may have running at once; beyond, a call is an error result. @default 4 */
  maxTurnsPerClient?: number;
  /**
   * An HTTP MCP session with no request for this long is ended (its client must initialize again). @default 1_800_000
   * (30 min)
   */
  clientIdleMs?: number;
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
  /**
   * The `Host` header values (`name:port`) accepted; others get 403 (DNS rebinding protection).
   * Required when `host` is not a loopback address (`0.0.0.0` included): the names clients use.
   * @default on loopback: the address, `localhost` and `127.0.0.1`, each with the port
   */
  allowedHosts?: string[];
}

/** A running agents-over-MCP server. */
export interface McpServerHandle {
  /** Serves one MCP client over a transport, e.g. `new StdioServerTransport()` (Claude Desktop, Cursor), in `scope`. */
  connect(transport: Transport): Promise<void>;
  /**
   * Serves streamable HTTP on a `node:http` server, with MCP sessions (one per client).
   * Resolves with the endpoint URL once listening. Requests whose `Host` header is not allowed
   * (see `allowedHosts`) get 403 (DNS rebinding protection). Rejects with `InvalidArgumentError`
   * for a non-loopback `host` without `allowedHosts`.
   */
  listen(options?: McpListenOptions): Promise<{ url: string }>;
  /**
   * Answers one streamable HTTP request on a host's own server (`parsedBody` when a body parser
   * already read it), with `authorize` and MCP sessions as `listen` has them. Checking the `Host`
   * header (DNS rebinding) is then the host's server's job.
   */
  handleRequest(request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** Stops listening and closes every transport. */
  close(): Promise<void>;
}

/** Statuses that mean the turn did not produce its answer. */
const FAILED = new Set(["error", "aborted", "budget_exceeded", "iteration_limit", "blocked"]);
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

interface HttpClient {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  scope: string | undefined;
  idle: ReturnType<typeof setTimeout> | undefined;
}

function jsonError(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/**
 * Exposes agents as MCP tools, one per agent (named by its `agentId`), so an MCP client (Claude
 * Desktop, Cursor, another agent) can talk to them. A tool takes `{ message, session? }` and
 * answers with the agent's reply as text, plus `structuredContent` `{ reply, sessionId, status }`, which
 * `content` repeats as a second text block of JSON (as the protocol asks, for clients that read only `content`).
 *
 * Conversations belong to the MCP client (one MCP session) that started them: without `session`
 * (or `"latest-or-create"`) a client continues its own conversation with that agent, or starts one;
 * `"latest"` continues it; `"create"` starts another; a `sessionId` from an earlier reply continues
 * that conversation when this client started it (or, for a scoped client, when it is in the
 * client's scope). Any other id, a hidden agent's included, is `Unknown session "<id>"`. A client
 * starts at most `maxSessionsPerClient` sessions and runs at most `maxTurnsPerClient` turns at once.
 *
 * A turn that fails, is aborted or runs out of budget, and a send the runtime or these rules
 * refuse, answer with `isError: true`. Cancelling the request aborts the turn.
 *
 * Throws `InvalidArgumentError` when `agents` names an unknown agent or one with `apiExposed: false`,
 * and for bad options.
 *
 * @example
 * const handle = serveAgentsOverMcp({ runtime, agents: ["support"], authorize: (request) => userOf(request) });
 * await handle.connect(new StdioServerTransport());        // or: await handle.listen({ port: 3001 })
 */
export function serveAgentsOverMcp(options: ServeAgentsOverMcpOptions): McpServerHandle {
  const agents = servedAgents(options);
  const limits: McpClientLimits = {
    maxSessionsPerClient: options.maxSessionsPerClient ?? 100,
    maxTurnsPerClient: options.maxTurnsPerClient ?? 4,
  };
  const maxClients = options.maxClients ?? 1_000;
  const idleMs = options.clientIdleMs ?? 1_800_000;
  const servers = new Set<McpServer>();
  const clients = new Map<string, HttpClient>();
  let http: HttpServer | undefined;

  function newServer(client: McpAgentClient): McpServer {
    const server = new McpServer({ name: options.name ?? "agentry", version: options.version ?? "1.0.0" });
    for (const agent of agents) registerAgent(server, agent, client);
    servers.add(server);
    server.server.onclose = () => void servers.delete(server);
    return server;
  }

  function endClient(id: string): void {
    const client = clients.get(id);
    if (!client) return;
    clients.delete(id);
    clearTimeout(client.idle);
    void client.transport.close().catch(() => undefined);
    void client.server.close().catch(() => undefined);
  }

  function touch(id: string, client: HttpClient): void {
    clearTimeout(client.idle);
    client.idle = setTimeout(() => endClient(id), idleMs);
    client.idle.unref?.();
  }

  async function handleRequest(
    request: IncomingMessage,
    response: ServerResponse,
    parsedBody?: unknown,
  ): Promise<void> {
    const authorization = options.authorize ? await options.authorize(request) : { scope: options.scope };
    if (authorization === null) return jsonError(response, 401, "Unauthorized.");
    const scope = authorization.scope;
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const client = clients.get(sessionId);
      // Another scope's session looks like one that does not exist.
      if (!client || client.scope !== scope) return jsonError(response, 404, "Session not found.");
      touch(sessionId, client);
      await client.transport.handleRequest(request, response, parsedBody);
      return;
    }
    if (request.method !== "POST")
      return jsonError(response, 405, "Method not allowed: start an MCP session with POST initialize.", {
        allow: "POST",
      });
    if (clients.size >= maxClients)
      return jsonError(response, 503, `Too many MCP sessions (at most ${maxClients}); try again later.`);
    const server = newServer(createMcpAgentClient(options.runtime, scope, limits));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        const client: HttpClient = { transport, server, scope, idle: undefined };
        clients.set(id, client);
        touch(id, client);
      },
      onsessionclosed: (id) => endClient(id),
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, parsedBody);
    // Not an initialize request: no session was made, nothing to keep.
    if (transport.sessionId === undefined) {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    }
  }

  return {
    async connect(transport) {
      await newServer(createMcpAgentClient(options.runtime, options.scope, limits)).connect(transport);
    },
    handleRequest: (request, response, parsedBody) => handleRequest(request, response, parsedBody),
    listen(listenOptions = {}) {
      if (http) return Promise.reject(new InvalidArgumentError("serveAgentsOverMcp: already listening"));
      const host = listenOptions.host ?? "127.0.0.1";
      const unprotected = unprotectedHostError(host, listenOptions.allowedHosts);
      if (unprotected) return Promise.reject(unprotected);
      const endpoint = startHttpEndpoint({ ...listenOptions, host }, (request, response) =>
        handleRequest(request, response),
      );
      http = endpoint.server;
      return endpoint.listening;
    },
    async close() {
      const server = http;
      http = undefined;
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      for (const id of [...clients.keys()]) endClient(id);
      await Promise.all([...servers].map((s) => s.close().catch(() => undefined)));
    },
  };
}

/** The error of listening on a non-loopback `host` without `allowedHosts` (no DNS rebinding protection), if so. */
function unprotectedHostError(host: string, allowedHosts: string[] | undefined): InvalidArgumentError | undefined {
  if (LOOPBACK.has(host) || (allowedHosts !== undefined && allowedHosts.length > 0)) return undefined;
  return new InvalidArgumentError(
    `serveAgentsOverMcp: listening on "${host}" needs allowedHosts (the Host names clients use), for DNS rebinding protection`,
  );
}

/**
 * A `node:http` server answering `path` through `handle`, started listening: other paths get 404,
 * a `Host` header not in `allowedHosts` gets 403 (by default the loopback names of the port it got),
 * and a request `handle` rejects gets 500. `listening` resolves with the endpoint URL, or rejects
 * with the server's error (a port in use).
 */
function startHttpEndpoint(
  listenOptions: McpListenOptions & { host: string },
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): { server: HttpServer; listening: Promise<{ url: string }> } {
  const { host } = listenOptions;
  const path = listenOptions.path ?? "/mcp";
  let allowedHosts = listenOptions.allowedHosts;
  const server = createServer((request, response) => {
    if (new URL(request.url ?? "/", "http://x").pathname !== path) return void response.writeHead(404).end();
    if (!allowedHosts?.includes(request.headers.host ?? "")) return jsonError(response, 403, "Host not allowed.");
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  const listening = new Promise<{ url: string }>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listenOptions.port ?? 0, host, () => {
      const { port } = server.address() as AddressInfo;
      const hostPart = host.includes(":") ? `[${host}]` : host;
      allowedHosts ??= [`${hostPart}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`];
      resolve({ url: `http://${hostPart}:${port}${path}` });
    });
  });
  return { server, listening };
}

/** One agent as a tool of `server`, its turns sent through `client`. */
function registerAgent(server: McpServer, agent: AgentDefinition, client: McpAgentClient): void {
  server.registerTool(
    agent.agentId,
    {
      title: agent.displayName,
      description: agent.description ?? `Send a message to the agent "${agent.displayName}" and get its reply.`,
      inputSchema: {
        message: z.string().min(1).describe("The message to the agent."),
        session: z
          .string()
          .min(1)
          .optional()
          .describe(
            '"latest-or-create" (default: your conversation with this agent), "latest", "create", or a sessionId from an earlier reply.',
          ),
      },
      outputSchema: { reply: z.string(), sessionId: z.string(), status: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    async ({ message, session }, extra) => {
      try {
        const result = await client.send({ agentId: agent.agentId, message, session, signal: extra.signal });
        const failed = FAILED.has(result.status);
        const reply = failed
          ? `The agent's turn ended with status "${result.status}"${result.error ? `: ${result.error.message}` : ""}.`
          : result.status === "suspended"
            ? `${result.text}${result.text ? "\n" : ""}[The agent is waiting for an approval in session ${result.sessionId}.]`
            : result.status === "queued"
              ? `[The message is queued: session ${result.sessionId} is waiting for a decision; it runs once that is made.]`
              : result.text;
        const structured = { reply, sessionId: result.sessionId, status: result.status };
        return {
          // The protocol's SHOULD: the structured result repeated as JSON text, for clients that read only `content`.
          content: [
            { type: "text" as const, text: reply },
            { type: "text" as const, text: JSON.stringify(structured) },
          ],
          structuredContent: structured,
          ...(failed && { isError: true }),
        };
      } catch (error) {
        const text = error instanceof McpClientRefusal || error instanceof Error ? error.message : String(error);
        return { content: [{ type: "text" as const, text }], isError: true };
      }
    },
  );
}

function servedAgents(options: ServeAgentsOverMcpOptions): AgentDefinition[] {
  if (!options?.runtime || typeof options.runtime.send !== "function")
    throw new InvalidArgumentError("serveAgentsOverMcp: runtime is required");
  const problems: string[] = [];
  if (options.authorize !== undefined && options.scope !== undefined)
    problems.push("give authorize or scope, not both");
  for (const key of ["maxClients", "maxSessionsPerClient", "maxTurnsPerClient", "clientIdleMs"] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      problems.push(`${key} must be a whole number above 0`);
  }
  const { registry } = options.runtime;
  const agents: AgentDefinition[] = [];
  if (options.agents === undefined) agents.push(...registry.list().filter((agent) => agent.apiExposed !== false));
  else {
    for (const id of options.agents) {
      const agent = registry.get(id);
      if (!agent) problems.push(`unknown agent "${id}"`);
      else if (agent.apiExposed === false) problems.push(`agent "${id}" has apiExposed: false`);
      else agents.push(agent);
    }
  }
  if (problems.length > 0) throw new InvalidArgumentError(`serveAgentsOverMcp: ${problems.join("; ")}`);
  return agents;
}
