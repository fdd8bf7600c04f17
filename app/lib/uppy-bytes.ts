import { formatBytes } from "./media-kind";

/**
 * Stands in for `@transloadit/prettier-bytes` (aliased in vite.config.ts): Uppy formats every size with it and it
 * only speaks English («4 KB»); the app's own formatter answers in Russian units («4 КБ») like the rest of the screens.
 */
export function prettierBytes(bytes: number): string {
  return formatBytes(bytes);
}
