import { planSummaryOf } from "../../modes/plan-summary.js";
import { argsOf, artifactIdOf } from "../agents/mode-tools.js";
import type { TurnScope } from "./turn-scope.js";

/** Characters of an artifact's content in `artifact_created.preview`. */
const PREVIEW_CHARS = 280;

/** What the plan/act mode tools do beyond their results: artifacts stored, roles switched. */
export interface ModeEffects {
  /** Arguments of `create_artifact` calls, by tool-call id, kept from their `start`. */
  artifactArgs: Map<string, unknown>;
  /** Stores the artifact of a `create_artifact` call that succeeded; emits `artifact_created` (and `plan_ready`). */
  storeArtifact(toolCallId: string, parentId: string | null, depth: number): Promise<void>;
  /** Records a role switch (used from the next turn) and emits `role_changed`. */
  switchRole(to: string, depth: number, parentId: string | null): Promise<void>;
}

export function modeEffects(scope: TurnScope): ModeEffects {
  const { deps, setup, sessionId, runId, publish } = scope;
  const { store } = deps;
  const artifactArgs = new Map<string, unknown>();
  let role = setup.role ?? null;
  return {
    artifactArgs,
    async storeArtifact(toolCallId, parentId, depth) {
      const args = argsOf(artifactArgs.get(toolCallId)) as
        { filename?: unknown; kind?: unknown; content?: unknown } | undefined;
      if (typeof args?.filename !== "string" || typeof args.kind !== "string" || typeof args.content !== "string")
        return;
      const artifactId = artifactIdOf(toolCallId);
      const { filename, kind, content } = args;
      await scope.append([
        { id: artifactId, frame: parentId, kind: "artifact", artifactId, filename, artifactKind: kind, content, runId },
      ]);
      publish({
        type: "artifact_created",
        artifactId,
        filename,
        kind,
        preview: content.slice(0, PREVIEW_CHARS),
        depth,
        parentId,
      });
      if (kind !== "plan") return;
      // Parsed once per call: the calling message's type and the tool's check read the same result.
      const parsed = deps.plans.read(content);
      deps.plans.forget(content);
      if (!parsed.ok) return;
      const taskId = await deps.hooks.planReady(setup.session, artifactId);
      const summary = planSummaryOf(parsed.plan);
      publish({
        type: "plan_ready",
        artifactId,
        plan: parsed.plan,
        summary,
        ...(taskId !== undefined && { taskId }),
        depth,
        parentId,
      });
    },
    async switchRole(to, depth, parentId) {
      if (role === to) return;
      await scope.append([{ id: `${runId}:role:${scope.next()}`, frame: null, kind: "role", role: to, from: role }]);
      // Kept in the attributes too, so the role outlives a reset of the log.
      const current = await store.getSession(sessionId);
      await store.updateSession(sessionId, { attributes: { ...current?.attributes, role: to } });
      publish({ type: "role_changed", sessionId, from: role, to, depth, parentId });
      role = to;
    },
  };
}
