/**
 * The tenant guard of a call that takes only an id (`tasks.approve`, `createEventLog().resume`,
 * the dispatcher's `resolveApproval`, ...): the call acts only on what belongs to `scope` (exactly)
 * or to a scope starting with `scopePrefix` (a plain prefix; `""` = every scoped session). Outside
 * it, the id is "not found": the same error as an unknown id, nothing changed, nothing revealed.
 * Give one of the two, not both; omitted = no guard (the host checked already).
 */
export interface TenantGuard {
  /** Only what belongs to this scope. @default undefined (no guard) */
  scope?: string;
  /** Only what belongs to a scope starting with this prefix. @default undefined (no guard) */
  scopePrefix?: string;
}
