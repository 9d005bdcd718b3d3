import { useEffect, useState } from 'react';

/**
 * A module loaded on first use (its own chunk), whose loading a component waits for with
 * `useModuleLoaded` instead of React.lazy. A lazy component suspends, and React holds back
 * what replaces a Suspense fallback until 300 ms after that fallback appeared, however soon
 * the module is in; a state update shows it at once (decision 0282).
 */
export type ModuleLoader = {
  /** Whether the module is in (its `onLoad` has run). */
  readonly loaded: boolean;
  /** Loads it once; a failed load is tried again on the next call. */
  load(): Promise<void>;
};

export function moduleLoader<T>(
  importModule: () => Promise<T>,
  onLoad: (module: T) => void,
): ModuleLoader {
  let loading: Promise<void> | null = null;
  const loader = {
    loaded: false,
    load() {
      loading ??= importModule().then(
        (module) => {
          onLoad(module);
          loader.loaded = true;
        },
        (error: unknown) => {
          loading = null;
          throw error;
        },
      );
      return loading;
    },
  };
  return loader;
}

/**
 * Whether `loader`'s module is in; starts loading it when not. A failed load is thrown
 * during render, as a lazy component's was, so the nearest error boundary shows it.
 */
export function useModuleLoaded(loader: ModuleLoader): boolean {
  const [loaded, setLoaded] = useState(() => loader.loaded);
  const [failure, setFailure] = useState<{ error: unknown } | null>(null);
  useEffect(() => {
    if (loaded) return;
    let current = true;
    loader.load().then(
      () => current && setLoaded(true),
      (error: unknown) => current && setFailure({ error }),
    );
    return () => {
      current = false;
    };
  }, [loader, loaded]);
  if (failure) throw failure.error;
  return loaded;
}
