import photo from "../fixtures/photo-1600x1200.jpg?inline";
import png from "../fixtures/logo-400x300.png?inline";
import tiny from "../fixtures/tiny-200x100.jpg?inline";
import corrupt from "../fixtures/corrupt.jpg?inline";
import pdf from "../fixtures/three-pages.pdf?inline";

/** The committed fixture files (tests/fixtures, made by make-fixtures.mjs), inlined by Vite as data URLs. */
const FIXTURES = { photo, png, tiny, corrupt, pdf } as const;
export type FixtureName = keyof typeof FIXTURES;

/** The bytes of a fixture file. */
export function fixture(name: FixtureName): Uint8Array<ArrayBuffer> {
  const base64 = FIXTURES[name].slice(FIXTURES[name].indexOf(",") + 1);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}
