import { CURRENCY_DIGITS, isCurrency, MAX_PRICE_MINOR } from "../../workers/services/shop/pure";

/**
 * A price typed by a person ("1500", "1 500,50", "1500.5") in major units, as integer minor units of the currency;
 * null when it is not a positive amount with at most the currency's number of decimals.
 * @example parsePrice("1 500,50", "RUB") // 150050
 */
export function parsePrice(text: string, currency: string): number | null {
  const digits = isCurrency(currency) ? CURRENCY_DIGITS[currency] : 2;
  const clean = text.replace(/[\s\u00a0]/g, "").replace(",", ".");
  const match = /^(\d{1,9})(?:\.(\d+))?$/.exec(clean);
  if (!match) return null;
  const fraction = match[2] ?? "";
  if (fraction.length > digits) return null;
  const minor = Number(match[1]) * 10 ** digits + Number(fraction.padEnd(digits, "0") || "0");
  return minor > 0 && minor <= MAX_PRICE_MINOR ? minor : null;
}

/** Minor units back to what the price field shows: 150050 RUB → "1500,50", 1200 JPY → "1200". */
export function priceInput(minor: number, currency: string): string {
  const digits = isCurrency(currency) ? CURRENCY_DIGITS[currency] : 2;
  if (digits === 0) return String(minor);
  const whole = Math.floor(minor / 10 ** digits);
  const fraction = String(minor % 10 ** digits).padStart(digits, "0");
  return `${whole},${fraction}`;
}
