/** Toast timing and size (SPEC §9). */
export const TOAST_DURATION_MS = 5_000;
export const TOAST_WIDTH = 400;

export interface Toast {
  id: number;
  title: string;
  message: string;
  kind: "error" | "info";
}

type Listener = (toasts: Toast[]) => void;

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<Listener>();

function emit() {
  for (const listener of listeners) listener(toasts);
}

export function dismissToast(id: number): void {
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

/** Clears every toast: a screen change that makes them stale (a successful sign-in after a refused one). */
export function dismissAllToasts(): void {
  toasts = [];
  emit();
}

/** Shows a toast for TOAST_DURATION_MS; identical messages already on screen are not repeated. */
export function showToast(toast: Omit<Toast, "id" | "kind"> & { kind?: Toast["kind"] }): void {
  if (toasts.some((t) => t.title === toast.title && t.message === toast.message)) return;
  const entry: Toast = { kind: "error", ...toast, id: nextId++ };
  toasts = [...toasts, entry];
  emit();
  setTimeout(() => dismissToast(entry.id), TOAST_DURATION_MS);
}

export function subscribeToasts(listener: Listener): () => void {
  listeners.add(listener);
  listener(toasts);
  return () => listeners.delete(listener);
}
