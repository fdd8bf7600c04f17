/**
 * Review statuses a file's version may carry (none until someone sets one), shared by the database schema, the API
 * contract, the automation trigger and the browser.
 */
export const REVIEW_STATUSES = ["in_review", "approved", "changes_requested", "rejected"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
