/**
 * Two texts in SQLite's own order (BINARY: by UTF-8 bytes), which a list's `ORDER BY` follows. Code units order the
 * same except astral characters against U+E000–U+FFFF, which no name sorts by here.
 */
export function binaryOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
