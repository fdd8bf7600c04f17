import { useCallback, useEffect, useState } from "react";

/** State remembered in localStorage (view mode, sort order); the server render uses the fallback. */
export function usePersistentState<T extends string>(key: string, fallback: T): [T, (value: T) => void] {
  const [value, setValue] = useState<T>(fallback);
  useEffect(() => {
    const stored = localStorage.getItem(key);
    if (stored) setValue(stored as T);
  }, [key]);
  const set = useCallback(
    (next: T) => {
      localStorage.setItem(key, next);
      setValue(next);
    },
    [key],
  );
  return [value, set];
}
