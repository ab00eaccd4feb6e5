import type * as Esbuild from "esbuild";

/** The page's code, ready to inline: one script (an IIFE) and one stylesheet. */
export interface PageAssets {
  script: string;
  style: string;
}

/** The page's entry, beside this file. */
export const PAGE_ENTRY = "main.tsx";

/**
 * Bundles the page (`main.tsx`, preact and `styles.css`) with esbuild into one minified script
 * and one stylesheet, in memory. Called by the package build (tsup, through
 * {@link inspectorPagePlugin}) and, when running from source, by `page-assets.ts`.
 *
 * @param esbuild the `esbuild` module (a dev dependency: passed in so nothing here imports it).
 * @param entry absolute path of `main.tsx`.
 */
export function buildPageAssets(esbuild: Pick<typeof Esbuild, "buildSync">, entry: string): PageAssets {
  const result = esbuild.buildSync({
    entryPoints: [entry],
    bundle: true,
    write: false,
    outfile: "inspector-page.js",
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    charset: "utf8",
    legalComments: "none",
    jsx: "automatic",
    jsxImportSource: "preact",
    logLevel: "silent",
  });
  const file = (extension: string) => result.outputFiles?.find((output) => output.path.endsWith(extension))?.text ?? "";
  return { script: file(".js"), style: file(".css") };
}

/**
 * An esbuild plugin (tsup's `esbuildPlugins`) that replaces `src/inspector/page/page-assets.ts`
 * with the prebuilt page, so the package carries the page as two strings and never esbuild.
 * The page is built once per plugin instance, the first time the module is loaded.
 */
export function inspectorPagePlugin(esbuild: Pick<typeof Esbuild, "buildSync">): Esbuild.Plugin {
  let contents: string | undefined;
  return {
    name: "agentry-inspector-page",
    setup(build) {
      build.onLoad({ filter: /[\\/]inspector[\\/]page[\\/]page-assets\.ts$/ }, (args) => {
        const entry = args.path.replace(/page-assets\.ts$/, PAGE_ENTRY);
        contents ??= `export const pageAssets = () => (${JSON.stringify(buildPageAssets(esbuild, entry))});\n`;
        return { contents, loader: "js" };
      });
    },
  };
}
