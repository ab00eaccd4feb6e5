import type { RuntimeContext } from "../common/runtime-context.js";
import { loadOnDemand } from "../common/load-on-demand.js";
import { loadOnce } from "../../internal/load-once.js";
import type { BackgroundNotices } from "./background-notices.js";

/**
 * A runtime's background agents' failure notices (./background-notices.ts), loaded with the
 * on-demand chunk on the first background turn watched: a runtime that starts no background agent
 * never loads them. The watched turn's rejection is handled at once, as the notices themselves do;
 * a failed load is reported (`background_notice_failed`) and tried again on the next watch.
 * `load` loads the runtime's on-demand module.
 * @default load loadOnDemand
 */
export function lazyBackgroundNotices(runtime: RuntimeContext, load = loadOnDemand): BackgroundNotices {
  const notices = loadOnce(async () => (await load()).createBackgroundNotices(runtime));
  return {
    watch(session, lineage, turn) {
      turn.catch(() => undefined);
      notices().then(
        (loaded) => loaded.watch(session, lineage, turn),
        (error: unknown) => runtime.report("background_notice_failed", error, session),
      );
    },
  };
}
