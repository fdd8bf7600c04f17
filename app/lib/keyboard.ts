/** Whether a key press is meant for a text field (shortcuts such as Ctrl+A or arrows must leave it alone). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) return !["checkbox", "radio", "button", "submit", "range", "color", "file"].includes(target.type);
  return false;
}

/** Whether a dialog or menu is open on the page (shortcuts of the page behind it must not fire). */
export function overlayOpen(): boolean {
  return document.querySelector('[role="dialog"], [role="menu"], .modal-backdrop') != null;
}
