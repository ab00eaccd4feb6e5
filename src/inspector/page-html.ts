import { pageAssets } from "./page/page-assets.js";

/** Options of {@link pageHtml}. */
export interface PageHtmlOptions {
  /** Where the inspector is mounted, ending in "/" (the page calls `{basePath}api/...`). */
  basePath: string;
}

const escapeAttribute = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The inspector's whole page: one HTML document with its script and stylesheet inline (preact,
 * bundled at build time), so it loads nothing from the network: no CDN, no web font. The base
 * path travels in an attribute of `<body>` (escaped), never in the script.
 */
export function pageHtml(options: PageHtmlOptions): string {
  const { script, style } = pageAssets();
  // Inline code must not close its element early ("</script" inside a string of the bundle).
  const inlineScript = script.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
  const inlineStyle = style.replace(/<\/(style)/gi, "<\\/$1");
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="referrer" content="no-referrer">',
    "<title>Agentry inspector</title>",
    `<style>${inlineStyle}</style>`,
    "</head>",
    `<body data-base="${escapeAttribute(options.basePath)}">`,
    '<div id="app"></div>',
    `<script>${inlineScript}</script>`,
    "</body>",
    "</html>",
  ].join("\n");
}
