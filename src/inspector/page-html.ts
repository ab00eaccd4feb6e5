/** Options of {@link pageHtml}. */
export interface PageHtmlOptions {
  /** Where the inspector is mounted, ending in `/` (the page calls `${basePath}api/...`). */
  basePath: string;
}

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * The inspector's page: one self-contained HTML document (inline script and style, nothing loaded
 * from the network). This minimal version lists sessions; the full page replaces it.
 */
export function pageHtml(options: PageHtmlOptions): string {
  const base = JSON.stringify(options.basePath).replace(/</g, "\\u003c");
  const title = options.basePath.replace(/[&<>"']/g, (c) => escapes[c]!);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Agentry inspector</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem;color-scheme:light dark}li{margin:.25rem 0}</style></head>
<body><h1>Agentry inspector</h1><p>Mounted at <code>${title}</code>.</p><ul id="sessions"></ul>
<script>
const base = ${base};
fetch(base + "api/sessions").then((r) => r.json()).then((body) => {
  const list = document.getElementById("sessions");
  for (const row of body.items || []) {
    const li = document.createElement("li");
    li.textContent = row.updatedAt + "  " + row.agentId + "  " + row.sessionId + "  " + row.state;
    list.appendChild(li);
  }
});
</script></body></html>`;
}
