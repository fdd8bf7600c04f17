/**
 * UTF-7 (RFC 2152), which WOPI uses for file names in headers (X-WOPI-SuggestedTarget, X-WOPI-RelativeTarget,
 * X-WOPI-RequestedName, X-WOPI-ValidRelativeTarget): ASCII stays as is, other text is "+" base64 of UTF-16BE "-".
 */

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Decodes UTF-7; null when a shifted sequence is malformed. */
export function decodeUtf7(value: string): string | null {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch !== "+") {
      out += ch;
      continue;
    }
    let j = i + 1;
    while (j < value.length && B64.includes(value[j])) j++;
    const run = value.slice(i + 1, j);
    if (run === "") {
      // "+-" is a literal plus; a lone "+" is kept as typed.
      out += "+";
    } else {
      let bits = 0;
      let acc = 0;
      const units: number[] = [];
      for (const c of run) {
        acc = (acc << 6) | B64.indexOf(c);
        bits += 6;
        if (bits >= 16) {
          bits -= 16;
          units.push((acc >> bits) & 0xffff);
          acc &= (1 << bits) - 1;
        }
      }
      if (acc !== 0) return null;
      out += String.fromCharCode(...units);
    }
    i = value[j] === "-" ? j : j - 1;
  }
  return out;
}

const DIRECT = /[A-Za-z0-9'(),./:? \-!"#$%&*;<=>@[\]^_`{|}]/;

/** Encodes a string as UTF-7 (non-ASCII and "+" shifted). */
export function encodeUtf7(value: string): string {
  let out = "";
  let i = 0;
  while (i < value.length) {
    if (DIRECT.test(value[i])) {
      out += value[i++];
      continue;
    }
    if (value[i] === "+") {
      out += "+-";
      i++;
      continue;
    }
    const units: number[] = [];
    while (i < value.length && !DIRECT.test(value[i]) && value[i] !== "+") units.push(value.charCodeAt(i++));
    let bits = 0;
    let acc = 0;
    let run = "";
    for (const u of units) {
      acc = (acc << 16) | u;
      bits += 16;
      while (bits >= 6) {
        bits -= 6;
        run += B64[(acc >> bits) & 63];
      }
      acc &= (1 << bits) - 1;
    }
    if (bits > 0) run += B64[(acc << (6 - bits)) & 63];
    out += `+${run}-`;
  }
  return out;
}
