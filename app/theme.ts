/** The dark palette of the product: every colour the UI uses comes from here (as CSS variables). */
export const palette = {
  bg: "#0e1014",
  surface: "#151920",
  surfaceRaised: "#1b2029",
  surfaceHover: "#222834",
  border: "#2a313d",
  borderStrong: "#394151",
  text: "#e7eaf0",
  textMuted: "#9aa3b4",
  /** 4.5:1 on every surface up to surfaceHover (WCAG AA, the axe audit in tests/e2e/a11y.e2e.ts) */
  textFaint: "#8a93a5",
  accent: "#4c8dff",
  accentHover: "#6aa1ff",
  accentText: "#ffffff",
  /** filled buttons: white text on `accent` is 3.2:1, on this 4.9:1 (links and outlines keep `accent`) */
  accentFill: "#2d6ae0",
  accentFillHover: "#2563eb",
  accentSoft: "rgba(76, 141, 255, 0.14)",
  danger: "#f0506e",
  dangerSoft: "rgba(240, 80, 110, 0.14)",
  /** danger as text on dangerSoft (badges «Ошибка», «не удалось»): `danger` there is 4.0–4.4:1, this 5.6:1 */
  dangerText: "#ff7a90",
  success: "#2fbf71",
  warning: "#f5a524",
  folder: "#f2b84b",
  shadow: "0 12px 32px rgba(0, 0, 0, 0.45)",
} as const;

const toKebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `:root { --bg: …; … }`, inlined into the document head so the first paint is already dark. */
export function themeCss(): string {
  const vars = Object.entries(palette)
    .map(([name, value]) => `--${toKebab(name)}:${value}`)
    .join(";");
  return `:root{${vars};color-scheme:dark}`;
}
