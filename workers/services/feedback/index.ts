/**
 * Feedback: the product-quality survey (PQI) and its summary.
 *
 * The domain's public face (decision record 025): code outside workers/services/feedback/ imports only this file or
 * ./pure.
 */
export { submitPqi, surveyComments, surveySummary } from "./pqi.service";
export type { PqiCommentInfo } from "./pqi.service";
