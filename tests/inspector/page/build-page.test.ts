import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { describe, expect, it } from "vitest";
import { inspectorPagePlugin } from "../../../src/inspector/page/build-page.js";

const pageHtmlSource = fileURLToPath(new URL("../../../src/inspector/page-html.ts", import.meta.url));

describe("the inspector page in the package build", () => {
  it("is inlined as prebuilt strings: the bundle carries the page and never builds it at run time", async () => {
    const bundle = async (plugins: esbuild.Plugin[]) =>
      (
        await esbuild.build({
          entryPoints: [pageHtmlSource],
          bundle: true,
          write: false,
          format: "esm",
          platform: "neutral",
          logLevel: "silent",
          plugins,
        })
      ).outputFiles[0]!.text;
    const built = await bundle([inspectorPagePlugin(esbuild)]);
    expect(built).toContain("Pending decisions"); // text of the page's own views
    expect(built).toContain("prefers-color-scheme");
    expect(built).not.toContain("getBuiltinModule");
    expect(built).not.toContain("main.tsx");

    const fromSource = await bundle([]);
    expect(fromSource).toContain("getBuiltinModule");
    expect(fromSource).not.toContain("Pending decisions");
  });
});
