/**
 * The pure part of the shop domain (decision record 025): constants, types and validation with no bindings and no
 * storage behind them, so the browser bundle and the database schema may import them without pulling in the domain.
 */
export { CURRENCIES, CURRENCY_DIGITS, MAX_PRICE_MINOR, isCurrency } from "./money";
