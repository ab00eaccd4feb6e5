import type { AssistantMessage } from "../../contracts/message.js";
import type { NewRecord } from "../../contracts/session-store.js";
import type { ModelCallInfo } from "../../loop/call-model.js";
import type { ModelCallRecord, PromptDigests, PromptRecord } from "./model-call-records.js";

type NewModelCallRecord = Omit<ModelCallRecord, "seq" | "at">;
type NewPromptRecord = Omit<PromptRecord, "seq" | "at">;

/**
 * The model calls of one turn, as records: each call's `model_call` record goes in the same append
 * as the assistant message it produced; the system prompt and the tools it was offered go once
 * per session per digest as `prompt` records (id `prompt:<digest>`, so a store that has one keeps
 * it and stores nothing again). Digests are computed once per distinct prompt / tool list object.
 */
export class ModelCallLog {
  readonly #runId: string;
  /** Digests the session has stored (shared by the runtime's turns of this session). */
  readonly #stored: Set<string>;
  readonly #calls = new Map<AssistantMessage, ModelCallInfo>();
  readonly #unsent: ModelCallInfo[] = [];
  readonly #digests: PromptDigests;
  /** Digests of this turn's tool lists (each level has its own list object). */
  readonly #toolDigests = new WeakMap<object, string>();
  #count = 0;

  constructor(runId: string, stored: Set<string>, digests: PromptDigests) {
    this.#runId = runId;
    this.#stored = stored;
    this.#digests = digests;
  }

  /** The loop's `onModelCall`. */
  readonly observe = (call: ModelCallInfo): void => {
    if (call.message) this.#calls.set(call.message, call);
    else this.#unsent.push(call);
  };

  /**
   * Records to append with the assistant message `message` (stored as `messageId`), when the loop reported its call.
   */
  recordsFor(message: AssistantMessage, messageId: string): NewRecord[] {
    const call = this.#calls.get(message);
    if (!call) return [];
    this.#calls.delete(message);
    return this.#records(call, messageId);
  }

  /** Records of calls that produced no message (failed ones): appended with the turn's end. */
  unsentRecords(): NewRecord[] {
    return this.#unsent.splice(0).flatMap((call) => this.#records(call, undefined));
  }

  /** Forgets digests whose records were not stored after all (their append failed). */
  forget(records: NewRecord[]): void {
    for (const record of records)
      if (record.id.startsWith("prompt:")) this.#stored.delete(record.id.slice("prompt:".length));
  }

  #records(call: ModelCallInfo, messageId: string | undefined): NewRecord[] {
    const out: (NewModelCallRecord | NewPromptRecord)[] = [];
    const systemDigest = this.#systemDigest(call.system);
    const toolsDigest = this.#toolsDigest(call.tools);
    if (!this.#stored.has(systemDigest)) {
      this.#stored.add(systemDigest);
      out.push({
        id: `prompt:${systemDigest}`,
        frame: null,
        kind: "prompt",
        digest: systemDigest,
        system: call.system,
      });
    }
    if (!this.#stored.has(toolsDigest)) {
      this.#stored.add(toolsDigest);
      out.push({ id: `prompt:${toolsDigest}`, frame: null, kind: "prompt", digest: toolsDigest, tools: call.tools });
    }
    const record: NewModelCallRecord = {
      id: `${this.#runId}:model:${++this.#count}`,
      frame: call.parentId,
      kind: "model_call",
      runId: this.#runId,
      callId: `${this.#runId}:${this.#count}`,
      model: call.model,
      provider: call.provider,
      startedAt: new Date(call.startedAt).toISOString(),
      durationMs: call.durationMs,
      messagesCount: call.messagesCount,
      systemDigest,
      toolsDigest,
    };
    if (messageId !== undefined) record.messageId = messageId;
    if (call.usage) record.usage = call.usage;
    if (call.costUsd !== undefined) record.costUsd = call.costUsd;
    if (call.error !== undefined) record.error = call.error.slice(0, 2000);
    out.push(record);
    return out;
  }

  #systemDigest(system: string): string {
    return this.#digests.system(system);
  }

  #toolsDigest(tools: ModelCallInfo["tools"]): string {
    let digest = this.#toolDigests.get(tools);
    if (digest === undefined) {
      digest = this.#digests.toolList(tools);
      this.#toolDigests.set(tools, digest);
    }
    return digest;
  }
}
