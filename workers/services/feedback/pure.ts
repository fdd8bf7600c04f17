/**
 * The pure part of the feedback domain (decision record 025): constants, types and validation with no bindings and no
 * storage behind them, so the browser bundle and the database schema may import them without pulling in the domain.
 */
export { PASSIVE_MIN, PQI_COMMENT_MAX, PROMOTER_MIN } from "./pqi-summary";
export type { RatingCount, SurveySummary } from "./pqi-summary";
