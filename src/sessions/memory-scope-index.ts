import type { ScopeFilter } from "../internal/scope-filter.js";

/** One scope's share of the memory store's indexes (the unscoped space has one too). */
export interface ScopeSlot<S> {
  /**
   * The scope's sessions, least recently touched first. Like the store's own touch log, a touch
   * appends the session and its earlier entries go stale (the session records which entry is its
   * latest); the store skips stale entries and compacts the log when they outnumber live ones.
   */
  order: S[];
  /** How many stored sessions the scope has. */
  size: number;
  /** Ids of the undecided approval requests of the scope's sessions, oldest first. */
  pending: Set<string>;
}

/**
 * The memory store's scope index: a slot per scope with a stored session, and the scope names
 * sorted, so that the scopes starting with a prefix are one run of them, found by binary search.
 * Listing a scope or a prefix then costs what its own sessions cost, whatever else is stored.
 */
export class ScopeIndex<S> {
  readonly #slots = new Map<string | undefined, ScopeSlot<S>>();
  /**
   * Every scope name with a slot, sorted (code unit order: any lexicographic order keeps a prefix's names together).
   */
  readonly #names: string[] = [];

  /** Counts a new session of `scope` (`undefined` = unscoped) and returns the scope's slot. */
  enter(scope: string | undefined): ScopeSlot<S> {
    let slot = this.#slots.get(scope);
    if (slot === undefined) {
      slot = { order: [], size: 0, pending: new Set() };
      this.#slots.set(scope, slot);
      if (scope !== undefined) this.#names.splice(lowerBound(this.#names, scope), 0, scope);
    }
    slot.size++;
    return slot;
  }

  /** Uncounts a removed session of `scope`; a scope left without sessions loses its slot. */
  leave(scope: string | undefined): void {
    const slot = this.#slots.get(scope);
    if (slot === undefined || --slot.size > 0) return;
    this.#slots.delete(scope);
    if (scope !== undefined) this.#names.splice(lowerBound(this.#names, scope), 1);
  }

  /** The slots of the scopes `filter` keeps; `undefined` for `any` (every session, scoped or not). */
  select(filter: ScopeFilter): ScopeSlot<S>[] | undefined {
    switch (filter.kind) {
      case "any":
        return undefined;
      case "unscoped":
        return this.#slotList(undefined);
      case "exact":
        return this.#slotList(filter.scope);
      case "prefix": {
        const slots: ScopeSlot<S>[] = [];
        const names = this.#names;
        for (
          let index = lowerBound(names, filter.prefix);
          index < names.length && names[index]!.startsWith(filter.prefix);
          index++
        ) {
          slots.push(this.#slots.get(names[index])!);
        }
        return slots;
      }
      default:
        return assertNever(filter);
    }
  }

  #slotList(scope: string | undefined): ScopeSlot<S>[] {
    const slot = this.#slots.get(scope);
    return slot === undefined ? [] : [slot];
  }
}

/** The first index of `sorted` whose name is not less than `name`. */
function lowerBound(sorted: string[], name: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < name) low = middle + 1;
    else high = middle;
  }
  return low;
}

function assertNever(value: never): never {
  throw new Error(`unexpected scope filter ${JSON.stringify(value)}`);
}
