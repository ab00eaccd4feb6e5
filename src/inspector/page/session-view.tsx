import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import type { SessionDetailResponse, TreeNode, TurnNode } from "../inspector-api-types.js";
import type { InspectorClient } from "./api.js";
import { formatCost, formatDuration, formatTime, formatTokens } from "./format.js";
import { NodeDrawer } from "./node-drawer.js";
import { agentTotals, allNodeIds, visibleRows, type TreeRow } from "./tree-rows.js";
import { ROW_HEIGHT, TreeRowView } from "./tree-row.js";
import { upsertTurn, useLiveTurns } from "./use-live-turns.js";
import { VirtualList } from "./virtual-list.js";
import { ErrorState, StateBadge } from "./widgets.js";

type Loaded =
  | { status: "loading" }
  | { status: "error"; code: number; error: string }
  | { status: "ready"; data: SessionDetailResponse };

function AgentTotals({ turns, agentId }: { turns: TurnNode[]; agentId: string }) {
  const totals = useMemo(() => agentTotals(turns, agentId), [turns, agentId]);
  if (totals.length === 0) return null;
  return (
    <table class="totals" data-testid="agent-totals">
      <thead>
        <tr>
          <th scope="col">Agent</th>
          <th scope="col">Model calls</th>
          <th scope="col">Model time</th>
          <th scope="col">Tokens</th>
          <th scope="col">Cost</th>
        </tr>
      </thead>
      <tbody>
        {totals.map((total) => (
          <tr key={total.agentId}>
            <td>{total.agentId}</td>
            <td>{total.modelCalls}</td>
            <td>{formatDuration(total.durationMs)}</td>
            <td>{formatTokens(total.tokens)}</td>
            <td>{formatCost(total.costUsd)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Loads a session's detail; `renderMs` is the time from the request to the first render of its tree. */
function useSession(client: InspectorClient, sessionId: string) {
  const [loaded, setLoaded] = useState<Loaded>({ status: "loading" });
  const [renderMs, setRenderMs] = useState<number | undefined>(undefined);
  useEffect(() => {
    let live = true;
    const started = performance.now();
    setLoaded({ status: "loading" });
    void client.get<SessionDetailResponse>(`api/sessions/${encodeURIComponent(sessionId)}`).then((result) => {
      if (!live) return;
      setLoaded(
        result.ok
          ? { status: "ready", data: result.data }
          : { status: "error", code: result.status, error: result.error },
      );
      if (result.ok) requestAnimationFrame(() => live && setRenderMs(Math.round(performance.now() - started)));
    });
    return () => void (live = false);
  }, [sessionId]);
  const onTurn = useCallback((turn: TurnNode) => {
    setLoaded((current) =>
      current.status === "ready"
        ? { ...current, data: { ...current.data, turns: upsertTurn(current.data.turns, turn) } }
        : current,
    );
  }, []);
  const liveUrl =
    loaded.status === "ready" ? `${client.base}api/sessions/${encodeURIComponent(sessionId)}/live` : undefined;
  // The live stream opens after the last record the detail read, not with a replay of the whole log.
  const live = useLiveTurns(liveUrl, loaded.status === "ready" ? loaded.data.lastSeq : 0, onTurn);
  return { loaded, renderMs, live };
}

/**
 * A session: its header, totals per agent, and every turn's execution tree as rows of nested
 * cards (collapsed by default, virtualized), kept up to date from the live stream.
 */
export function SessionView({ client, sessionId }: { client: InspectorClient; sessionId: string }) {
  const { loaded, renderMs, live } = useSession(client, sessionId);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [focusIndex, setFocusIndex] = useState<number | undefined>(undefined);
  const [drawer, setDrawer] = useState<TreeNode | undefined>(undefined);
  const [notice, setNotice] = useState("");
  const turns = loaded.status === "ready" ? loaded.data.turns : [];
  const rows = useMemo(() => visibleRows(turns, expanded), [turns, expanded]);

  const toggle = useCallback(
    (index: number) => {
      const id = rows[index]?.node.id;
      if (id === undefined) return;
      setExpanded((current) => {
        const next = new Set(current);
        if (!next.delete(id)) next.add(id);
        return next;
      });
      setFocusIndex(index);
    },
    [rows],
  );
  const exportTurn = useCallback(
    async (row: TreeRow) => {
      const path = `api/sessions/${encodeURIComponent(sessionId)}/turns/${encodeURIComponent(row.turn.runId)}/export`;
      const result = await client.download(path, `turn-${row.turn.turnNumber}.test.ts`);
      setNotice(result.ok ? `Downloaded ${result.data}` : `Export failed: ${result.error}`);
    },
    [sessionId],
  );

  if (loaded.status === "loading")
    return (
      <p class="muted" data-testid="loading">
        Loading session…
      </p>
    );
  if (loaded.status === "error") return <ErrorState code={loaded.code} error={loaded.error} />;
  const { session } = loaded.data;
  return (
    <div class="session-view" data-testid="session-view" data-live={live}>
      <header class="session-head">
        <h1>
          {session.name ?? session.sessionId} <StateBadge state={session.state} />
        </h1>
        <p class="muted">
          {session.agentId} · {session.scope ?? "unscoped"} · <code>{session.sessionId}</code> · updated{" "}
          {formatTime(session.updatedAt)}
          {" · "}
          <span data-testid="live-state">{live === "live" ? "● live" : live}</span>
        </p>
        <AgentTotals turns={turns} agentId={session.agentId} />
        <div class="toolbar">
          <span>{turns.length} turns</span>
          <button type="button" onClick={() => setExpanded(new Set(allNodeIds(turns)))}>
            Expand all
          </button>
          <button type="button" onClick={() => setExpanded(new Set())}>
            Collapse all
          </button>
          <span class="notice" role="status" data-testid="notice">
            {notice}
          </span>
        </div>
      </header>
      <VirtualList
        label="Turns and their execution trees"
        testId="tree"
        count={rows.length}
        rowHeight={ROW_HEIGHT}
        focusIndex={focusIndex}
        renderMs={renderMs}
        renderRow={(index) => (
          <TreeRowView
            key={rows[index]!.node.id}
            row={rows[index]!}
            index={index}
            onToggle={toggle}
            onFocusRow={(next) => setFocusIndex(Math.max(0, Math.min(rows.length - 1, next)))}
            onDetails={(row) => setDrawer(row.node)}
            onExport={(row) => void exportTurn(row)}
          />
        )}
      />
      {drawer && (
        <NodeDrawer client={client} sessionId={sessionId} node={drawer} onClose={() => setDrawer(undefined)} />
      )}
    </div>
  );
}
