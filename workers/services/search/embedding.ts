import { stem, words } from "./tokenize";

/**
 * The offline embedding (decision 011): a feature-hashed vector of a text's stems and of the character trigrams of
 * its words, L2-normalized, so texts sharing word forms or word pieces (`фотка` / `фото`, `beaches` / `beach`)
 * point the same way. Computed in code, no model download and no network: what `vector` search ranks by when no
 * Workers AI binding is configured.
 */
export const EMBEDDING_DIMENSIONS = 256;

/** FNV-1a, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function add(vector: Float32Array, feature: string, weight: number) {
  const h = hash(feature);
  // The top bit picks the sign, so colliding features cancel out on average instead of piling up.
  vector[h % EMBEDDING_DIMENSIONS] += h & 0x80000000 ? -weight : weight;
}

/**
 * @example cosine(embed("фотографии пляжа"), embed("Фото с пляжа")) // > 0.4
 */
export function embed(text: string, maxWords = 400): Float32Array {
  const vector = new Float32Array(EMBEDDING_DIMENSIONS);
  for (const word of words(text).slice(0, maxWords)) {
    add(vector, `w:${stem(word)}`, 2);
    const padded = `<${word}>`;
    for (let i = 0; i + 3 <= padded.length; i++) add(vector, `t:${padded.slice(i, i + 3)}`, 1);
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

/** Cosine similarity of two normalized vectors (their dot product). */
export function cosine(a: Float32Array | number[], b: Float32Array | number[]): number {
  let dot = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) dot += a[i] * b[i];
  return dot;
}
