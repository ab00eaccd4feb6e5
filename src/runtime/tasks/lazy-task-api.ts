import type { TaskApi } from "../../contracts/task.js";
import type { TaskRuntime } from "./task-api.js";
import { loadOnDemand } from "../common/load-on-demand.js";
import { loadOnce } from "../../internal/load-once.js";

/**
 * `runtime.tasks`: the task API of `runtime`, every method loading the task module on its first
 * call and then calling through to the one API made from it (same contract, same errors, as
 * rejections): an app that never makes a task never downloads or parses it. A failed load (a
 * chunk the network did not deliver) is not kept: the next call tries again. `load` loads the
 * runtime's on-demand module.
 * @default load loadOnDemand
 */
export function lazyTaskApi(runtime: TaskRuntime, load = loadOnDemand): TaskApi {
  const api = loadOnce(async () => (await load()).createTaskApi(runtime));
  return {
    create: async (input) => (await api()).create(input),
    approve: async (taskId, guard) => (await api()).approve(taskId, guard),
    revise: async (taskId, feedback, guard) => (await api()).revise(taskId, feedback, guard),
    reply: async (taskId, content, guard) => (await api()).reply(taskId, content, guard),
    rename: async (taskId, title, guard) => (await api()).rename(taskId, title, guard),
    delete: async (taskId, guard) => (await api()).delete(taskId, guard),
    cancel: async (taskId, guard) => (await api()).cancel(taskId, guard),
    get: async (taskId, guard) => (await api()).get(taskId, guard),
    list: async (query) => (await api()).list(query),
    artifacts: async (taskId, guard) => (await api()).artifacts(taskId, guard),
  };
}
