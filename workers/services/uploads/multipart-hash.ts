/**
 * SHA-256 whose state can be saved and resumed: the hash of a multipart upload too large to read back in one queue
 * run (a run has bounded CPU time) is computed over several runs, the state stored in D1 between them. Web Crypto's
 * DigestStream is faster but cannot export its state, so it is used whenever one pass suffices (multipart.service).
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** The saved form of a running hash: chaining values, bytes hashed, and the bytes of an unfinished block. */
export interface Sha256State {
  h: number[];
  bytes: number;
  /** hex of the buffered bytes (fewer than 64) */
  tail: string;
}

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

function fromHex(value: string): Uint8Array {
  const out = new Uint8Array(value.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(value.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Incremental SHA-256 (FIPS 180-4) with `save()` / `Sha256.resume()`.
 * @example const h = new Sha256(); h.update(a); const saved = h.save(); const g = Sha256.resume(saved); g.update(b); g.hex()
 */
export class Sha256 {
  private readonly h = new Int32Array(INITIAL);
  private readonly w = new Int32Array(64);
  private readonly block = new Uint8Array(64);
  private buffered = 0;
  private total = 0;

  /** Bytes hashed so far. */
  get bytes(): number {
    return this.total;
  }

  /** Resumes a hash from `save()`. Throws on a malformed state. */
  static resume(state: Sha256State): Sha256 {
    const tail = /^(?:[0-9a-f]{2}){0,63}$/.test(state.tail) ? fromHex(state.tail) : null;
    if (!Array.isArray(state.h) || state.h.length !== 8 || !Number.isSafeInteger(state.bytes) || tail === null) {
      throw new Error("malformed SHA-256 state");
    }
    if ((state.bytes - tail.length) % 64 !== 0) throw new Error("malformed SHA-256 state");
    const hash = new Sha256();
    hash.h.set(state.h.map((v) => v | 0));
    hash.block.set(tail);
    hash.buffered = tail.length;
    hash.total = state.bytes;
    return hash;
  }

  /** The state to store; `Sha256.resume(state)` continues exactly here. */
  save(): Sha256State {
    return { h: Array.from(this.h), bytes: this.total, tail: hex(this.block.subarray(0, this.buffered)) };
  }

  update(data: Uint8Array): this {
    let offset = 0;
    const length = data.byteLength;
    this.total += length;
    if (this.buffered > 0) {
      const take = Math.min(64 - this.buffered, length);
      this.block.set(data.subarray(0, take), this.buffered);
      this.buffered += take;
      offset = take;
      if (this.buffered < 64) return this;
      this.compress(this.block, 0);
      this.buffered = 0;
    }
    for (; offset + 64 <= length; offset += 64) this.compress(data, offset);
    if (offset < length) {
      this.block.set(data.subarray(offset), 0);
      this.buffered = length - offset;
    }
    return this;
  }

  /** Finishes the hash (the object must not be updated afterwards) and answers it in lowercase hex. */
  hex(): string {
    const bits = this.total * 8;
    const padding = new Uint8Array((this.buffered < 56 ? 56 : 120) - this.buffered + 8);
    padding[0] = 0x80;
    const view = new DataView(padding.buffer);
    view.setUint32(padding.length - 8, Math.floor(bits / 0x100000000));
    view.setUint32(padding.length - 4, bits >>> 0);
    const total = this.total;
    this.update(padding);
    this.total = total;
    const out = new Uint8Array(32);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) outView.setInt32(i * 4, this.h[i]);
    return hex(out);
  }

  private compress(data: Uint8Array, offset: number): void {
    const w = this.w;
    const h = this.h;
    let a = h[0];
    let b = h[1];
    let c = h[2];
    let d = h[3];
    let e = h[4];
    let f = h[5];
    let g = h[6];
    let hh = h[7];
    for (let i = 0; i < 64; i++) {
      let wi: number;
      if (i < 16) {
        const j = offset + (i << 2);
        wi = (data[j] << 24) | (data[j + 1] << 16) | (data[j + 2] << 8) | data[j + 3];
      } else {
        const x = w[i - 15];
        const y = w[i - 2];
        wi =
          (w[i - 16] +
            (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) +
            w[i - 7] +
            (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10))) |
          0;
      }
      w[i] = wi;
      const t1 =
        (hh + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + K[i] + wi) | 0;
      const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0] + a) | 0;
    h[1] = (h[1] + b) | 0;
    h[2] = (h[2] + c) | 0;
    h[3] = (h[3] + d) | 0;
    h[4] = (h[4] + e) | 0;
    h[5] = (h[5] + f) | 0;
    h[6] = (h[6] + g) | 0;
    h[7] = (h[7] + hh) | 0;
  }
}
