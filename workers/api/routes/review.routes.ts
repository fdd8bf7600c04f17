import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { REVIEW_STATUSES } from "../../../shared/review-status";
import { writeWhereItLives } from "../library-place";
import { readRouted } from "../library-reads";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";
import { MAX_REVIEW_NOTE } from "../../services/reviews";

/**
 * Review decisions on a file's versions and requests that someone review one (decision record 036). Mounted on
 * /api/asset before the asset router, whose `/{id}` routes would otherwise match.
 */

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const Params = z.object({ id: IdSchema.openapi({ param: { name: "id", in: "path" } }) });

const StatusSchema = z.enum(REVIEW_STATUSES, { error: ru.reviews.unknownStatus }).openapi({ description: "the new review status" });
const VersionSchema = z
  .number()
  .int()
  .min(1)
  .max(999_999_999)
  .optional()
  .openapi({ description: "the version decided on; the latest when absent" });
const NoteSchema = z.string().max(MAX_REVIEW_NOTE, ru.reviews.noteTooLong(MAX_REVIEW_NOTE)).nullable().optional();

/** Furthest a due date may lie ahead (ten years): a later one is a typing slip. */
const MAX_DUE_AHEAD_MS = 10 * 365 * 86_400_000;
/** A due date this far in the past is still taken (a clock a little behind, a dialog left open). */
const DUE_GRACE_MS = 5 * 60_000;

const DueSchema = z.iso
  .datetime({ offset: true, error: "ожидается дата и время ISO 8601, например 2026-12-24T18:00:00+05:00" })
  .transform((value, ctx) => {
    const ms = Date.parse(value);
    const now = Date.now();
    if (ms < now - DUE_GRACE_MS) ctx.addIssue({ code: "custom", message: ru.reviews.duePast });
    else if (ms > now + MAX_DUE_AHEAD_MS) ctx.addIssue({ code: "custom", message: "срок не дальше десяти лет" });
    return ms;
  })
  .nullable()
  .optional()
  .openapi({ type: "string", format: "date-time", description: "when the decision is due (with the zone offset)" });

const SetReviewBody = z
  .object({ status: StatusSchema, version: VersionSchema, note: NoteSchema })
  .strict()
  .openapi("SetReview", { example: { status: "approved", version: 2, note: "Цвет как в макете" } });

const RequestReviewBody = z
  .object({
    reviewer: z.string().trim().min(1).max(255).openapi({ description: "the reviewer's login or user id" }),
    version: VersionSchema,
    due: DueSchema,
    note: NoteSchema,
  })
  .strict()
  .openapi("RequestReview", { example: { reviewer: "maria", due: "2026-12-24T18:00:00+05:00", note: "Посмотрите обложку" } });

const DecisionSchema = z
  .object({
    status: z.enum(REVIEW_STATUSES),
    version: z.number().int(),
    by_id: z.string(),
    by_name: z.string().nullable(),
    at: z.string(),
    note: z.string().nullable(),
  })
  .openapi("ReviewDecision");

const RequestSchema = z
  .object({
    request_id: z.string(),
    version: z.number().int(),
    requester_id: z.string(),
    requester_name: z.string().nullable(),
    reviewer_id: z.string(),
    reviewer_name: z.string().nullable(),
    due: z.string().nullable(),
    note: z.string().nullable(),
    ctime: z.string(),
  })
  .openapi("ReviewRequest");

const ReviewStateSchema = z
  .object({
    current: DecisionSchema.nullable().openapi({ description: "the newest decision of the latest version; null when none" }),
    history: z.array(DecisionSchema).openapi({ description: "every decision on the file, newest first (at most 500)" }),
    requests: z.array(RequestSchema).openapi({ description: "review requests, newest first (at most 100)" }),
  })
  .openapi("ReviewState");

export const reviewRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/review",
      tags: ["Reviews"],
      summary: "A file's review status, the trail of decisions and the review requests",
      description: "Needs read on the file; without it the same 404 as for no file.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: Params },
      responses: { 200: json(ReviewStateSchema, "The review state"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "getReview", [c.req.valid("param").id]), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/{id}/review",
      tags: ["Reviews"],
      summary: "Decide on a version: in review, approved, changes requested or rejected, with a note",
      description:
        "Needs update on the file, or a review request for that version addressed to the caller (who must still read the file). A reader otherwise gets 403. Every decision is kept; a `review.decided` event is recorded in the same batch.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: Params, body: jsonBody(SetReviewBody) },
      responses: {
        200: json(ReviewStateSchema, "The review state after the decision"),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "setReview", [id, c.req.valid("json")]), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/review-requests",
      tags: ["Reviews"],
      summary: "Ask someone, by login or id, to review a version by a date",
      description:
        "Needs update on the file. The reviewer must be able to read the file: an unknown user and one who cannot read it get the same 400. A `review.requested` event is recorded in the same batch (notifications deliver it).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: Params, body: jsonBody(RequestReviewBody) },
      responses: { 201: json(RequestSchema, "The request"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const due = typeof body.due === "number" ? body.due : null;
      const { id } = c.req.valid("param");
      // In a library's shard the reviewer's access is decided there too: his copy rides along with the caller's.
      return c.json(await writeWhereItLives(c, id, "requestReview", [id, { ...body, due }], { people: [body.reviewer] }), 201);
    },
  );
