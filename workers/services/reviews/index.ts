/**
 * Reviews: decisions on a file's versions (in review, approved, changes requested, rejected) with their trail, and
 * requests that someone review (decision record 036). Decisions and requests are announced as events
 * (`review.decided`, `review.requested`) in the batch that records them.
 *
 * The domain's public face (decision record 025): code outside workers/services/reviews/ imports only this file.
 */
export { MAX_REVIEW_HISTORY, MAX_REVIEW_NOTE, MAX_REVIEW_REQUESTS, getReview, requestReview, setReview } from "./review.service";
export type { ReviewDecision, ReviewRequest, ReviewState } from "./review.service";
