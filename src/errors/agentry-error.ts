const KINDS = Symbol.for("agentry.error.kinds");

/** Options every Agentry error accepts. */
export interface AgentryErrorOptions {
  /** The underlying error, kept as the standard `cause`. */
  cause?: unknown;
}

/**
 * Base class of every error Agentry throws or reports.
 *
 * `name` is stable per subclass (`"ProviderError"`, `"AgentConfigError"`, ...), so it survives
 * serialisation. Use the static `isInstance()` rather than `instanceof`: it works across duplicate
 * installs of the package (two copies of `@agentry/core` in one `node_modules`), because it checks
 * a `Symbol.for` marker instead of the class identity.
 */
export class AgentryError extends Error {
  /** Stable name of this error class. */
  static readonly errorName: string = "AgentryError";
  declare readonly [KINDS]: readonly string[];

  constructor(message: string, options: AgentryErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const ctor = new.target;
    this.name = ctor.errorName;
    const kinds: string[] = [];
    for (let c: any = ctor; c && typeof c.errorName === "string"; c = Object.getPrototypeOf(c)) {
      if (kinds[kinds.length - 1] !== c.errorName) kinds.push(c.errorName);
    }
    Object.defineProperty(this, KINDS, { value: kinds, enumerable: false });
  }

  /** True when `value` is an instance of this class (or a subclass), across duplicate installs. */
  static isInstance<T extends AgentryError>(this: { errorName: string; prototype: T }, value: unknown): value is T {
    if (typeof value !== "object" || value === null) return false;
    const kinds = (value as { [KINDS]?: unknown })[KINDS];
    return Array.isArray(kinds) && kinds.includes(this.errorName);
  }
}
