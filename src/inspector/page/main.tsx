/**
 * The inspector page's entry, bundled by esbuild into the script `pageHtml` inlines (see
 * build-page.ts). The base path comes from `<body data-base>`.
 */
import { render } from "preact";
import { App } from "./app.js";
import "./styles.css";

const root = document.getElementById("app");
if (root) render(<App base={document.body.dataset.base ?? "/"} />, root);
