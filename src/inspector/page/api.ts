import type { InspectorError, MeResponse } from "../inspector-api-types.js";

/** What every call of the page's API client resolves to: the body, or the status and error. */
export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: string };

/** The page's client of the inspector's HTTP API: GETs, and POSTs carrying the CSRF token. */
export interface InspectorClient {
  readonly base: string;
  get<T>(path: string): Promise<ApiResult<T>>;
  post<T>(path: string, body: unknown): Promise<ApiResult<T>>;
  /** Downloads `path` as a file (fetch, then a blob link), so an error shows instead of navigating away. */
  download(path: string, fallbackName: string): Promise<ApiResult<string>>;
  setCsrfToken(token: string): void;
}

async function readResult<T>(response: Response): Promise<ApiResult<T>> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.ok) return { ok: true, status: response.status, data: body as T };
  const error = (body as Partial<InspectorError> | undefined)?.error;
  return {
    ok: false,
    status: response.status,
    error: typeof error === "string" ? error : response.statusText || "request failed",
  };
}

const failure = (error: unknown): ApiResult<never> => ({
  ok: false,
  status: 0,
  error: error instanceof Error ? error.message : "network error",
});

/** Makes the client for the inspector mounted at `base` (ends in "/"). */
export function createClient(base: string): InspectorClient {
  let csrf = "";
  const url = (path: string) => `${base}${path.replace(/^\//, "")}`;
  return {
    base,
    setCsrfToken: (token) => void (csrf = token),
    get: <T>(path: string) =>
      fetch(url(path), { headers: { accept: "application/json" }, credentials: "same-origin" }).then(
        readResult<T>,
        failure,
      ),
    post: <T>(path: string, body: unknown) =>
      fetch(url(path), {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", "x-agentry-csrf": csrf, accept: "application/json" },
        body: JSON.stringify(body),
      }).then(readResult<T>, failure),
    async download(path, fallbackName) {
      try {
        const response = await fetch(url(path), { credentials: "same-origin" });
        if (!response.ok) return readResult<string>(response);
        const disposition = response.headers.get("content-disposition") ?? "";
        const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? fallbackName;
        const link = document.createElement("a");
        link.href = URL.createObjectURL(await response.blob());
        link.download = name;
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
        return { ok: true, status: response.status, data: name };
      } catch (error) {
        return failure(error);
      }
    },
  };
}

/** Reads who is looking; the page's first call. */
export const loadMe = (client: InspectorClient) => client.get<MeResponse>("api/me");
