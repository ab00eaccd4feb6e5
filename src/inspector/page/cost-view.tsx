import { useEffect, useState } from "preact/hooks";
import type { CostGroupBy, CostResponse } from "../inspector-api-types.js";
import type { ApiResult, InspectorClient } from "./api.js";
import { formatCost, formatTokens } from "./format.js";
import { ErrorState } from "./widgets.js";

const GROUPS: { value: CostGroupBy; label: string }[] = [
  { value: "scope", label: "Scope" },
  { value: "agent", label: "Agent" },
  { value: "day", label: "Day" },
];

/** Cost and tokens from the stored usage, per scope, agent or day, over an optional date range. */
export function CostView({ client }: { client: InspectorClient }) {
  const [groupBy, setGroupBy] = useState<CostGroupBy>("scope");
  const [range, setRange] = useState({ from: "", to: "" });
  const [result, setResult] = useState<ApiResult<CostResponse> | undefined>(undefined);
  useEffect(() => {
    let live = true;
    const query = new URLSearchParams({ groupBy });
    if (range.from) query.set("from", range.from);
    if (range.to) query.set("to", range.to);
    void client.get<CostResponse>(`api/cost?${query.toString()}`).then((value) => live && setResult(value));
    return () => void (live = false);
  }, [groupBy, range]);
  if (result?.ok === false) return <ErrorState code={result.status} error={result.error} />;
  const rows = result?.data.rows ?? [];
  const total = rows.reduce((sum, row) => sum + row.costUsd, 0);
  return (
    <div data-testid="cost-view">
      <h1>Cost</h1>
      <div class="filters" role="group" aria-label="Group and range">
        {GROUPS.map((group) => (
          <label key={group.value} class="radio">
            <input
              type="radio"
              name="group"
              checked={groupBy === group.value}
              onChange={() => setGroupBy(group.value)}
              data-testid={`group-${group.value}`}
            />
            {group.label}
          </label>
        ))}
        <label>
          From{" "}
          <input type="date" value={range.from} onChange={(e) => setRange({ ...range, from: e.currentTarget.value })} />
        </label>
        <label>
          To <input type="date" value={range.to} onChange={(e) => setRange({ ...range, to: e.currentTarget.value })} />
        </label>
      </div>
      <table class="list" data-testid="cost-rows" aria-busy={result === undefined}>
        <thead>
          <tr>
            <th scope="col">{GROUPS.find((group) => group.value === groupBy)?.label}</th>
            <th scope="col">Turns</th>
            <th scope="col">Tokens</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} data-testid="cost-row">
              <td>{row.key === "" ? "(unscoped)" : row.key}</td>
              <td>{row.turns}</td>
              <td>{formatTokens(row.tokens)}</td>
              <td>{formatCost(row.costUsd)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            <td>{rows.reduce((sum, row) => sum + row.turns, 0)}</td>
            <td />
            <td>{formatCost(total)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
