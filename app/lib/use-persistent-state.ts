import { useCallback, useEffect, useState } from "react";
import { loadUiSettings, onUiSetting, saveUiSetting } from "./ui-settings";

/**
 * A view setting (view mode, sort order, a panel's state): remembered in localStorage for the first paint and in the
 * user's server-side `ui_settings` (app/lib/ui-settings.ts), so it is the same on every device. The server render
 * uses the fallback.
 */
export function usePersistentState<T extends string>(key: string, fallback: T): [T, (value: T) => void] {
  const [value, setValue] = useState<T>(fallback);
  useEffect(() => {
    const stored = localStorage.getItem(key);
    if (stored) setValue(stored as T);
    const off = onUiSetting((changed, next) => {
      if (changed === key) setValue(next as T);
    });
    void loadUiSettings();
    return off;
  }, [key]);
  const set = useCallback((next: T) => saveUiSetting(key, next), [key]);
  return [value, set];
}
