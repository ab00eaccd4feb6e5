/**
 * `load` run at most once while it succeeds: every call gets the same promise. A load that failed
 * (a chunk the network did not deliver) is not kept: the next call runs `load` again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    }));
}
