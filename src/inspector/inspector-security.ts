import { InspectorHttpError } from "./inspector-http.js";

/** Who is looking, as `authorize` resolved it. */
export interface InspectorIdentity {
  /** Only sessions whose scope starts with this; `""` = every session, unscoped ones included. */
  scopePrefix: string;
  /** May POST decisions. */
  canAct: boolean;
}

/** Whether a session of `scope` is visible to `identity`. */
export function inScope(identity: InspectorIdentity, scope: string | undefined): boolean {
  if (identity.scopePrefix === "") return true;
  return scope !== undefined && scope.startsWith(identity.scopePrefix);
}

/** The runtime's tenant guard for `identity` (none for `""`: it sees every session, unscoped ones too). */
export function tenantGuard(identity: InspectorIdentity): { scopePrefix?: string } {
  return identity.scopePrefix === "" ? {} : { scopePrefix: identity.scopePrefix };
}

/** Makes and checks CSRF tokens: an HMAC-SHA-256 of the identity under a per-inspector random key. */
export interface CsrfTokens {
  tokenFor(identity: InspectorIdentity): Promise<string>;
  verify(identity: InspectorIdentity, token: string | null): Promise<boolean>;
}

/** A CSRF token maker with a fresh random key (tokens do not outlive the inspector instance). */
export function createCsrfTokens(): CsrfTokens {
  const subtle = globalThis.crypto.subtle;
  const key = subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  const message = (identity: InspectorIdentity) =>
    new TextEncoder().encode(`v1\n${identity.canAct ? 1 : 0}\n${identity.scopePrefix}`);
  return {
    async tokenFor(identity) {
      const signature = new Uint8Array(await subtle.sign("HMAC", await key, message(identity)));
      return toBase64Url(signature);
    },
    async verify(identity, token) {
      if (token === null || !/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
      // `verify` compares in constant time.
      return subtle.verify("HMAC", await key, fromBase64Url(token), message(identity));
    },
  };
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=");
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The checks every POST passes before anything runs: the caller may act, sends the CSRF token of
 * its identity and JSON, and the request is not cross-site (`Sec-Fetch-Site`, `Origin`, when sent).
 * Any failure is a 403 (a body declared as anything but JSON too).
 */
export async function checkAction(request: Request, identity: InspectorIdentity, csrf: CsrfTokens): Promise<void> {
  if (!identity.canAct) throw new InspectorHttpError(403, "not allowed to act");
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none")
    throw new InspectorHttpError(403, "cross-site request refused");
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(request.url).origin)
    throw new InspectorHttpError(403, "cross-origin request refused");
  if (!(await csrf.verify(identity, request.headers.get("x-agentry-csrf"))))
    throw new InspectorHttpError(403, "missing or invalid CSRF token");
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new InspectorHttpError(403, "Content-Type must be application/json");
}
