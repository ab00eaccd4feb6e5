import { describe, expect, it } from "vitest";
import { pageHtml } from "../../src/inspector/page-html.js";

describe("pageHtml", () => {
  it("is one self-contained document: inline script and style, nothing loaded from the network", () => {
    const html = pageHtml({ basePath: "/inspector/" });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toMatch(/<style>[^]*prefers-color-scheme[^]*<\/style>/);
    expect(html).toMatch(/<script>[^]+<\/script>/);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import|url\(https?:|@font-face/);
    expect(html.match(/<\/script/gi)).toHaveLength(1);
  });

  it("escapes the base path into an attribute, so it cannot inject markup", () => {
    const html = pageHtml({ basePath: '/a"><script>alert(1)</script>/' });
    expect(html).toContain('data-base="/a&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;/"');
    expect(html.match(/<script>/g)).toHaveLength(1);
  });
});
