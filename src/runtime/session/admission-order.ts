import { KeyedSerializer } from "../../internal/keyed-serializer.js";

/**
 * The order in which messages reach sessions: each session-resolution step (`send`,
 * `postSystemMessage`, `agents_message`) runs in call order with every other, so messages reach a
 * session's inbox in the order they were sent.
 */
export class AdmissionOrder {
  readonly #steps = new KeyedSerializer<null>();

  /** Runs `step` after every step admitted before it. */
  admit<T>(step: () => Promise<T>): Promise<T> {
    return this.#steps.run(null, step);
  }
}
