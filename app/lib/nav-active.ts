/** Screens outside a section's path that still belong to it: a file opened by id is part of «Файлы». */
const ALIASES: [prefix: string, target: string][] = [["/asset", "/mam"]];

const within = (pathname: string, prefix: string) => pathname === prefix || pathname.startsWith(`${prefix}/`);

/**
 * The one sidebar item to highlight for a path: the most specific target whose path contains it, so /mam/trash
 * lights «Корзина» alone, not also «Файлы» (/mam). Null when no item covers the path.
 */
export function activeNavTarget(pathname: string, targets: readonly string[]): string | null {
  const alias = ALIASES.find(([prefix]) => within(pathname, prefix));
  const path = alias ? alias[1] : pathname;
  let best: string | null = null;
  for (const target of targets) {
    if (within(path, target) && (best === null || target.length > best.length)) best = target;
  }
  return best;
}
