const started = new Map<string, Promise<unknown>>();

/**
 * Runs `post` at most once per `key` for the life of the page and hands every caller the
 * same promise. A provider's `state` is single-use: a second post of it (React StrictMode
 * runs mount effects twice, a remount runs them again) would be refused and turn a
 * granted consent into an error on screen.
 */
export function postOnce<T>(key: string, post: () => Promise<T>): Promise<T> {
  let pending = started.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = post();
    started.set(key, pending);
  }
  return pending;
}
