import { createRoute, z } from "@hono/zod-openapi";
import { PQI_COMMENT_MAX } from "../../services/feedback/pure";
import { surveyComments, surveySummary, submitPqi } from "../../services/feedback";
import { rateLimit } from "../middleware/rate-limit";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";

export const PqiAnswerSchema = z
  .object({
    rating: z.number().int().min(0).max(10).openapi({ description: "1..10; 0 when the user refused the survey", example: 9 }),
    comment: z
      .string()
      .max(PQI_COMMENT_MAX)
      .nullable()
      .optional()
      .openapi({ description: `optional, at most ${PQI_COMMENT_MAX} characters` }),
  })
  .openapi("PqiAnswer");

/** From/to of the admin views: ISO dates or date-times (a plain date is that day's start in UTC). */
const WindowQuery = {
  from: z.iso.datetime({ offset: true }).or(z.iso.date()).optional().openapi({ description: "answers at or after (ISO 8601)" }),
  to: z.iso.datetime({ offset: true }).or(z.iso.date()).optional().openapi({ description: "answers at or before (ISO 8601)" }),
};

const SummaryQuerySchema = z.object({
  ...WindowQuery,
  period: z.enum(["month", "week"]).default("month").openapi({ description: "the series' step (UTC)" }),
});

const CommentsQuerySchema = z.object({
  ...WindowQuery,
  skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
  take: z.coerce.number().int().min(1).max(200).default(25),
});

const BandsSchema = {
  answered: z.number().int(),
  refused: z.number().int(),
  average: z.number().nullable(),
  nps: z.number().int().min(-100).max(100).nullable().openapi({ description: "% of 9–10 minus % of 1–6; null without ratings" }),
  promoters: z.number().int(),
  passives: z.number().int(),
  detractors: z.number().int(),
};

const SummarySchema = z
  .object({
    ...BandsSchema,
    distribution: z.array(z.object({ rating: z.number().int().min(0).max(10), count: z.number().int() })).length(11),
    series: z.array(z.object({ period: z.string().openapi({ example: "2026-11" }), ...BandsSchema })),
  })
  .openapi("PqiSummary");

const CommentSchema = z
  .object({
    id: z.string(),
    ctime: z.string(),
    rating: z.number().int(),
    comment: z.string(),
    user_id: z.string().nullable(),
    user_name: z.string().nullable(),
    user_login: z.string().nullable(),
  })
  .openapi("PqiComment");

/** `to` as a plain date means the whole of that day. */
function windowOf(q: { from?: string; to?: string }) {
  const dateOnly = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);
  return {
    from: q.from ? Date.parse(dateOnly(q.from) ? `${q.from}T00:00:00Z` : q.from) : undefined,
    to: q.to ? Date.parse(dateOnly(q.to) ? `${q.to}T23:59:59.999Z` : q.to) : undefined,
  };
}

/** The satisfaction survey: answers from the shell's modal, and the administrators' summary and comments. */
export const pqiRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      tags: ["Survey"],
      summary: "Record the signed-in user's survey answer (rating 1..10, 0 = refused, optional comment)",
      description:
        "One answer per person per 30 days: an earlier one within that time answers 429 with Retry-After. Robot accounts are refused (403).",
      security: bearerSecurity,
      middleware: [requireAuth, rateLimit("pqi")] as const,
      request: { body: { required: true, content: { "application/json": { schema: PqiAnswerSchema } } } },
      responses: {
        201: { description: "Recorded", content: { "application/json": { schema: z.object({ id: z.string(), ctime: z.string() }) } } },
        ...errorResponses(400, 401, 403, 429),
      },
    }),
    async (c) => c.json(await submitPqi(c.var.rc, c.var.actor, c.req.valid("json")), 201),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/summary",
      tags: ["Survey"],
      summary: "Rating distribution and NPS-style score, overall and per month or week (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: SummaryQuerySchema },
      responses: {
        200: { description: "Summary", content: { "application/json": { schema: SummarySchema } } },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      return c.json(await surveySummary(c.var.rc, c.var.actor, windowOf(q), q.period), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/comments",
      tags: ["Survey"],
      summary: "Answers with a comment, newest first (administrators)",
      description: "The total of matching comments is in `X-Total-Count`.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: CommentsQuerySchema },
      responses: {
        200: {
          description: "Comments",
          headers: { "X-Total-Count": { schema: { type: "integer" }, description: "matching comments over all pages" } },
          content: { "application/json": { schema: z.array(CommentSchema) } },
        },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { items, total } = await surveyComments(c.var.rc, c.var.actor, { ...windowOf(q), skip: q.skip, take: q.take });
      c.header("X-Total-Count", String(total));
      return c.json(items, 200);
    },
  );
