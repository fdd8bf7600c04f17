import type { ReviewStatus } from "../../../shared/review-status";
import type { ReviewRequest, ReviewState } from "../../../workers/services/reviews";
import { apiRequest } from "../../lib/api-client";

/** Client of the review calls (workers/api/routes/review.routes.ts); shapes shared with the service. */
export type { ReviewRequest, ReviewState };

export const getReview = (assetId: string) => apiRequest<ReviewState>(`/api/asset/${assetId}/review`, { toast: false });

export const setReview = (assetId: string, body: { status: ReviewStatus; version?: number; note?: string | null }) =>
  apiRequest<ReviewState>(`/api/asset/${assetId}/review`, { method: "PUT", body });

export const requestReview = (assetId: string, body: { reviewer: string; due?: string | null; version?: number; note?: string | null }) =>
  apiRequest<ReviewRequest>(`/api/asset/${assetId}/review-requests`, { method: "POST", body, toast: false });
