import { ru } from "../../i18n/ru";

export interface PageLifecycleHooks {
  /** the page became visible again */
  onVisible(): void;
  /** leaving now would lose bytes */
  hasUnsavedWork(): boolean;
  /** the page is being unloaded (true) or was restored from the back-forward cache (false) */
  onLeaving(leaving: boolean): void;
}

/** Listens to the page's visibility and unloading for the upload controller; answers the function that stops it. */
export function watchPageLifecycle(hooks: PageLifecycleHooks): () => void {
  const onVisible = () => document.visibilityState === "visible" && hooks.onVisible();
  const onBeforeUnload = (event: BeforeUnloadEvent) => {
    if (!hooks.hasUnsavedWork()) return;
    event.preventDefault();
    // Browsers show their own wording; the SPEC text is kept for those that show ours.
    event.returnValue = ru.uploads.leavePrompt;
    return ru.uploads.leavePrompt;
  };
  // Once the page is going away its requests are cut off: that is an interruption (the next page resumes), not a
  // failure to report to the queue.
  const onPageHide = (event: PageTransitionEvent) => {
    if (!event.persisted) hooks.onLeaving(true);
  };
  const onPageShow = () => hooks.onLeaving(false);
  document.addEventListener("visibilitychange", onVisible);
  window.addEventListener("beforeunload", onBeforeUnload);
  window.addEventListener("pagehide", onPageHide);
  window.addEventListener("pageshow", onPageShow);
  return () => {
    document.removeEventListener("visibilitychange", onVisible);
    window.removeEventListener("beforeunload", onBeforeUnload);
    window.removeEventListener("pagehide", onPageHide);
    window.removeEventListener("pageshow", onPageShow);
  };
}
