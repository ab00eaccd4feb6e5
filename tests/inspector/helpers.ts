import { createAgentRegistry, type ModelRequest } from "@agentry/core";
import { createInspector, type InspectorOptions } from "@agentry/core/inspector";
import type { FakeScript, FakeTurn } from "@agentry/core/testing";
import { makeRuntime, textOf } from "../runtime/helpers.js";

export const ORIGIN = "http://inspector.test";

/** Identities by the `x-user` header: none = 401. */
const USERS: Record<string, { scopePrefix: string; canAct: boolean }> = {
  admin: { scopePrefix: "", canAct: true },
  viewer: { scopePrefix: "", canAct: false },
  alice: { scopePrefix: "tenant-a/", canAct: true },
  bob: { scopePrefix: "tenant-b/", canAct: true },
};

/** Deletes when asked to, asks when asked to, else answers. */
export function todoScript(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: "done", usage: { inputTokens: 50, outputTokens: 5 } };
  const text = textOf(last);
  if (text.includes("ask")) {
    return {
      toolCalls: [
        { name: "ask_user", args: { question: "Which?", severity: "minor", options: [{ label: "A", value: "a" }] } },
      ],
    };
  }
  if (text.includes("delete"))
    return {
      toolCalls: [{ name: "todo_delete", args: { item: "milk" } }],
      usage: { inputTokens: 40, outputTokens: 8 },
    };
  if (text.includes("add"))
    return {
      toolCalls: [{ name: "todo_add", args: { item: "secret-item" } }],
      usage: { inputTokens: 30, outputTokens: 6 },
    };
  return { text: `hello: ${text}`, usage: { inputTokens: 10, outputTokens: 2 } };
}

/** A runtime (memory store, fake provider, todo tools) with an inspector over it. */
export function makeInspector(script: FakeScript = todoScript, options: Partial<InspectorOptions> = {}) {
  const made = makeRuntime(script, {
    registry: createAgentRegistry([
      { agentId: "todo", displayName: "Todo", toolAllowlist: ["todo_*", "ask_user", "run_subtask"], role: "actor" },
      { agentId: "general", displayName: "General" },
    ]),
    pricing: { "fake-model": { inputPerMillion: 1000, outputPerMillion: 2000 } },
  });
  const inspector = createInspector({
    runtime: made.runtime,
    authorize: (request) => USERS[request.headers.get("x-user") ?? ""] ?? null,
    ...options,
  });
  const get = (path: string, user: string | null = "admin", headers: Record<string, string> = {}) =>
    inspector(
      new Request(`${ORIGIN}${path}`, { headers: { ...(user === null ? {} : { "x-user": user }), ...headers } }),
    );
  const getJson = async <T = any>(path: string, user: string | null = "admin") => {
    const response = await get(path, user);
    return { status: response.status, body: (await response.json()) as T };
  };
  const csrfOf = async (user: string) =>
    ((await (await get("/api/me", user)).json()) as { csrfToken: string }).csrfToken;
  const post = async (path: string, body: unknown, user = "admin", headers: Record<string, string | null> = {}) => {
    const all: Record<string, string | null> = {
      "x-user": user,
      "content-type": "application/json",
      origin: ORIGIN,
      "sec-fetch-site": "same-origin",
      "x-agentry-csrf": await csrfOf(user),
      ...headers,
    };
    const sent = Object.fromEntries(
      Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== null),
    );
    const response = await inspector(
      new Request(`${ORIGIN}${path}`, { method: "POST", headers: sent, body: JSON.stringify(body) }),
    );
    return { status: response.status, body: await response.json() };
  };
  return { ...made, inspector, get, getJson, post, csrfOf };
}
