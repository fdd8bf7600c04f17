/**
 * «Something was healed for this file» inside one tab (decision 029, «Who sees a heal»): the viewer's maker line
 * asks the server again who made what and what waits for acceptance.
 */
export const HEALED_EVENT = "mam:healed";

export function announceHealed(assetId: string): void {
  if (typeof window !== "undefined") window.dispatchEvent(new CustomEvent(HEALED_EVENT, { detail: { assetId } }));
}
