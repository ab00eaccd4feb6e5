import { InvalidArgumentError } from "../../errors/errors.js";

/** Whether the runtime still takes work: `close()` ends that, once. */
export class RuntimeStatus {
  #closed = false;

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** No new work is accepted from now on (`runtime.close()`). */
  close(): void {
    this.#closed = true;
  }

  /** Throws once the runtime is closed. */
  checkOpen(): void {
    if (this.#closed) throw new InvalidArgumentError("The runtime is closed");
  }
}
