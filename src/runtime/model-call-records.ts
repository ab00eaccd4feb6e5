/**
 * A stored model call (kind `model_call`): what one request to the provider was, stored with the
 * assistant message it produced (same append). `systemDigest` / `toolsDigest` name `prompt`
 * records holding the system prompt and the tools offered, stored once per session per digest.
 */
export interface ModelCallRecord {
  id: string;
  seq: number;
  at: string;
  frame: string | null;
  kind: "model_call";
  runId: string;
  /** Unique within the turn. */
  callId: string;
  /** The id of the message record of the response (absent when the call produced none). */
  messageId?: string;
  model: string;
  provider: string;
  startedAt: string;
  durationMs: number;
  usage?: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
  costUsd?: number;
  messagesCount: number;
  systemDigest: string;
  toolsDigest: string;
  /** Set when the call failed. */
  error?: string;
}

/** The content a `model_call` points at by digest: a system prompt or a tool list (`id` = `prompt:<digest>`). */
export interface PromptRecord {
  id: string;
  seq: number;
  at: string;
  frame: null;
  kind: "prompt";
  digest: string;
  system?: string;
  tools?: { name: string; description: string; inputSchema: unknown }[];
}

/** Sessions whose stored prompt digests a runtime remembers (the oldest are forgotten first). */
const REMEMBERED_SESSIONS = 1024;

/**
 * The prompt digests a runtime knows are stored, by session (keyed with the session's `createdAt`,
 * so a session deleted and created again under its id starts afresh). Only saves sending a prompt
 * record the store has: the record's id is its digest, so sending it again stores nothing anyway.
 */
export class StoredPrompts {
  readonly #sessions = new Map<string, Set<string>>();

  /** The set for a session (created empty), marked as the most recently used. */
  of(sessionId: string, createdAt: string): Set<string> {
    const key = `${createdAt}\n${sessionId}`;
    const known = this.#sessions.get(key) ?? new Set<string>();
    this.#sessions.delete(key);
    this.#sessions.set(key, known);
    if (this.#sessions.size > REMEMBERED_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!);
    return known;
  }
}
