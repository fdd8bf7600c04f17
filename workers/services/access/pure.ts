/**
 * The pure part of the access domain (decision record 025): constants, types and validation with no bindings and no
 * storage behind them, so the browser bundle and the database schema may import them without pulling in the domain.
 */
export { DENY_BIT, grantingBits, holds, maskOf } from "./access-policy";
export type { AccessLevel, ChainRow } from "./access-policy";
