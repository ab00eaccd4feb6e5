import type { DispatchedTurn } from "../../contracts/agent-runtime.js";

/** Where turns the runtime starts on its own go: a host's dispatcher, once `setTurnDispatcher` installed one. */
export class TurnDispatch {
  #dispatch: ((turn: DispatchedTurn) => Promise<void>) | undefined;

  /** The installed dispatcher, if any. */
  get current(): ((turn: DispatchedTurn) => Promise<void>) | undefined {
    return this.#dispatch;
  }

  /** `runtime.setTurnDispatcher`: installs `dispatch` (`undefined` removes it). */
  install(dispatch: ((turn: DispatchedTurn) => Promise<void>) | undefined): void {
    this.#dispatch = dispatch;
  }
}
