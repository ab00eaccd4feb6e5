import type { TaskApi } from "../../contracts/task.js";
import type { TaskRuntime } from "./task-api.js";

/**
 * Loads the task API's module (./task-api.ts) on first use: it is its own chunk in the ESM build,
 * so an app that never makes a task never downloads or parses it. A failed load (a chunk the
 * network did not deliver) is not kept: the next call tries again.
 */
export const loadTaskModule = () => import("./task-api.js");

/**
 * `runtime.tasks`: the task API of `runtime`, every method loading the task module on its first
 * call and then calling through to the one API made from it (same contract, same errors, as
 * rejections). `load` is how the module is loaded.
 * @default load loadTaskModule
 */
export function lazyTaskApi(runtime: TaskRuntime, load: typeof loadTaskModule = loadTaskModule): TaskApi {
  let loaded: Promise<TaskApi> | undefined;
  const api = () =>
    (loaded ??= load().then(
      (module) => module.createTaskApi(runtime),
      (error: unknown) => {
        loaded = undefined;
        throw error;
      },
    ));
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
