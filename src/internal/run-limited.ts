/**
 * Runs `tasks` with at most `limit` running at once (a task starts as soon as a slot frees, in
 * array order) and resolves with their results in array order, like `Promise.all`. The first
 * rejection (or synchronous throw) rejects the whole at once; the tasks not yet started still run,
 * slot by slot, and their outcomes are dropped, as with a queue drained under `Promise.all`.
 * `limit` must be at least 1 (`Infinity` starts every task at once); below 1 it counts as 1 so
 * that nothing can wait forever. Replaces `p-queue` in the core bundle (about 8 KB minified).
 */
export function runLimited<T>(tasks: readonly (() => T | PromiseLike<T>)[], limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  if (tasks.length === 0) return Promise.resolve(results);
  return new Promise<T[]>((resolve, reject) => {
    let next = 0;
    let done = 0;
    const start = (): void => {
      const index = next++;
      const task = tasks[index];
      if (!task) return;
      void new Promise<T>((settle) => settle(task())).then(
        (value) => {
          results[index] = value;
          if (++done === tasks.length) resolve(results);
          start();
        },
        (error: unknown) => {
          reject(error);
          start();
        },
      );
    };
    const slots = Math.min(tasks.length, Math.max(1, limit || 1));
    for (let slot = 0; slot < slots; slot++) start();
  });
}
