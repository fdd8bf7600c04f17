/**
 * Money in the shop: integer minor units (kopecks, cents) of an ISO 4217 currency, never floating point. The list
 * is the currencies the shop accepts, each with its number of minor-unit digits (what Stripe's `unit_amount` and
 * the receipt's formatting both follow).
 */
export const CURRENCY_DIGITS = { RUB: 2, USD: 2, EUR: 2, GBP: 2, CHF: 2, KZT: 2, CNY: 2, JPY: 0 } as const;
export type Currency = keyof typeof CURRENCY_DIGITS;
export const CURRENCIES = Object.keys(CURRENCY_DIGITS) as [Currency, ...Currency[]];

/** The largest price of one item in minor units: Stripe's `unit_amount` takes at most eight digits. */
export const MAX_PRICE_MINOR = 99_999_999;

export function isCurrency(code: string): code is Currency {
  return Object.hasOwn(CURRENCY_DIGITS, code);
}

/**
 * A price for people: `123456` RUB → "1 234,56 ₽" (Russian grouping and decimal comma).
 * @example formatMoney(150000, "RUB") // "1 500,00 ₽"
 */
export function formatMoney(minor: number, currency: string): string {
  const digits = isCurrency(currency) ? CURRENCY_DIGITS[currency] : 2;
  return new Intl.NumberFormat("ru-RU", {
    style: "currency",
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(minor / 10 ** digits);
}

/** Sum of item prices, all in one currency (checkout refuses baskets that mix currencies before summing). */
export function orderTotal(items: readonly { price: number }[]): number {
  return items.reduce((sum, item) => sum + item.price, 0);
}
