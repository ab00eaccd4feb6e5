import { useEffect, useRef, useState } from "preact/hooks";
import type {
  CompactionDetail,
  ModelCallDetail,
  NodeDetailResponse,
  ToolCallDetail,
  TreeNode,
} from "../inspector-api-types.js";
import type { ApiResult, InspectorClient } from "./api.js";
import { formatCost, formatDuration, formatJson, formatTokens } from "./format.js";

/** Props of {@link NodeDrawer}. */
export interface NodeDrawerProps {
  client: InspectorClient;
  sessionId: string;
  node: TreeNode;
  onClose: () => void;
}

function Field(props: { name: string; value: string | undefined; testId?: string }) {
  if (props.value === undefined || props.value === "") return null;
  return (
    <section class="field">
      <h3>{props.name}</h3>
      <pre data-testid={props.testId}>{props.value}</pre>
    </section>
  );
}

function ModelCall({ detail }: { detail: ModelCallDetail }) {
  return (
    <>
      <p class="facts">
        {[
          detail.provider,
          detail.model,
          formatDuration(detail.durationMs),
          formatTokens(detail.tokens),
          formatCost(detail.costUsd),
        ]
          .filter(Boolean)
          .join(" · ")}
        {detail.messagesCount !== undefined && ` · ${detail.messagesCount} messages`}
      </p>
      <Field name="System prompt" value={detail.system ?? "(not recorded)"} testId="detail-system" />
      <section class="field">
        <h3>Tools offered ({detail.tools?.length ?? 0})</h3>
        <ul class="tools" data-testid="detail-tools">
          {(detail.tools ?? []).map((tool) => (
            <li key={tool.name}>
              <details>
                <summary>
                  <code>{tool.name}</code> {tool.description}
                </summary>
                <pre>{formatJson(tool.inputSchema)}</pre>
              </details>
            </li>
          ))}
        </ul>
      </section>
      <Field name="Response" value={formatJson(detail.response)} testId="detail-response" />
    </>
  );
}

function ToolCall({ detail }: { detail: ToolCallDetail }) {
  return (
    <>
      <p class="facts">
        <code>{detail.name}</code>
        {detail.decision !== undefined && (
          <span data-testid="detail-decision"> · decision: {formatJson(detail.decision)}</span>
        )}
        {detail.isError && <span class="error-text"> · error</span>}
      </p>
      <Field name="Arguments" value={formatJson(detail.args)} testId="detail-args" />
      <Field
        name="Result"
        value={detail.result === undefined ? undefined : formatJson(detail.result)}
        testId="detail-result"
      />
      <Field name="Arguments digest" value={detail.digest} testId="detail-digest" />
      <Field name="Audit" value={detail.audit === undefined ? undefined : formatJson(detail.audit)} />
    </>
  );
}

function Compaction({ detail }: { detail: CompactionDetail }) {
  return (
    <>
      <p class="facts" data-testid="detail-compaction">
        {detail.trigger === "auto" ? "before the turn's first model call" : "runtime.compact"} · by {detail.source} · ~
        {detail.tokensBefore} → ~{detail.tokensAfter} estimated tokens · {detail.summarizedMessages} messages summarized
      </p>
      <Field name="Summary" value={detail.summary} testId="detail-summary" />
      <Field name="Instructions" value={detail.instructions} />
    </>
  );
}

function Detail({ detail }: { detail: NodeDetailResponse }) {
  switch (detail.kind) {
    case "model_call":
      return <ModelCall detail={detail} />;
    case "tool_call":
      return <ToolCall detail={detail} />;
    case "compaction":
      return <Compaction detail={detail} />;
    case "other":
      return <Field name="Node" value={formatJson({ ...detail.node, children: detail.node.children.length })} />;
    default: {
      const never: never = detail;
      return <p>Unknown detail {formatJson(never)}</p>;
    }
  }
}

/**
 * The detail of one node, in a side drawer: a model call's system prompt, tools offered and
 * response; a tool call's arguments, result, decision and digest. Escape closes it and focus
 * returns to where it was.
 */
export function NodeDrawer({ client, sessionId, node, onClose }: NodeDrawerProps) {
  const [result, setResult] = useState<ApiResult<NodeDetailResponse> | undefined>(undefined);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    let live = true;
    setResult(undefined);
    const path = `api/sessions/${encodeURIComponent(sessionId)}/nodes/${encodeURIComponent(node.id)}`;
    void client.get<NodeDetailResponse>(path).then((value) => live && setResult(value));
    return () => void (live = false);
  }, [sessionId, node.id]);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    close.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && onClose();
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      if (before?.isConnected) before.focus();
    };
  }, []);
  return (
    <section
      class="drawer"
      role="dialog"
      aria-label={`Detail of ${node.label}`}
      data-testid="drawer"
      data-kind={node.kind}
    >
      <header>
        <h2>{node.label}</h2>
        <button type="button" ref={close} onClick={onClose} data-testid="drawer-close" aria-label="Close (Escape)">
          ✕
        </button>
      </header>
      {node.error && <p class="error-text">{node.error}</p>}
      {result === undefined && <p class="muted">Loading…</p>}
      {result?.ok === false && <p class="error-text">{result.error}</p>}
      {result?.ok === true && <Detail detail={result.data} />}
    </section>
  );
}
