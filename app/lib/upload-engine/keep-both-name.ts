/**
 * «Оставить оба»: the name the new file takes beside the one it clashes with — «diagram_1 (2).png», then (3), … —
 * the first that `taken` (case-insensitive, as the folder's same-name check) does not hold. The number goes before
 * the last extension; a name that is all extension (".env") or has none is numbered at its end.
 *
 * @example keepBothName("diagram_1.png", (n) => n === "diagram_1.png") // "diagram_1 (2).png"
 */
export function keepBothName(name: string, taken: (lowerName: string) => boolean): string {
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  for (let n = 2; ; n += 1) {
    const candidate = `${stem} (${n})${ext}`;
    if (!taken(candidate.toLowerCase())) return candidate;
  }
}

/** The numbered names `keepBothName` tries for `name`, from (from) on: asked of the server in one call. */
export function keepBothCandidates(name: string, from: number, count: number): string[] {
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  return Array.from({ length: count }, (_, i) => `${stem} (${from + i})${ext}`);
}
