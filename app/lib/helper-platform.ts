import { useEffect, useState } from "react";
import { HELPER_PLATFORM_IDS, type HelperPlatform } from "../../shared/helper-platforms";

/**
 * The helper programs in the order the install steps show them: the visitor's own system first (from the user
 * agent; a Mac's processor is not told reliably, so both macOS builds stay next to each other).
 */
export function platformsByLikelihood(userAgent: string): HelperPlatform[] {
  const guess: HelperPlatform[] = /Windows/i.test(userAgent)
    ? ["windows-x64"]
    : /Mac OS X|Macintosh/i.test(userAgent)
      ? ["macos-arm64", "macos-x64"]
      : /Linux|X11/i.test(userAgent) && !/Android/i.test(userAgent)
        ? ["linux-x64"]
        : [];
  return [...guess, ...HELPER_PLATFORM_IDS.filter((p) => !guess.includes(p))];
}

/** How many of `platformsByLikelihood`'s first entries are the visitor's own system. */
export function ownPlatformCount(userAgent: string): number {
  if (/Windows/i.test(userAgent)) return 1;
  if (/Mac OS X|Macintosh/i.test(userAgent)) return 2;
  return /Linux|X11/i.test(userAgent) && !/Android/i.test(userAgent) ? 1 : 0;
}

const DESKTOP_QUERY = "(pointer: fine) and (min-width: 700px)";

/**
 * True on a computer with a mouse and a wide window: the local disk helper runs on computers only, so phones and
 * tablets are not offered «Открыть на компьютере». False until mounted (the server cannot know).
 */
export function useIsDesktop(): boolean {
  const [desktop, setDesktop] = useState(false);
  useEffect(() => {
    const query = window.matchMedia(DESKTOP_QUERY);
    const update = () => setDesktop(query.matches);
    update();
    query.addEventListener("change", update);
    return () => query.removeEventListener("change", update);
  }, []);
  return desktop;
}
