import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { REVIEW_STATUSES } from "../../../shared/review-status";
import { CommentCountsSchema } from "./comment-counts.schemas";
import { createMiddleware } from "hono/factory";
import { askQuestion, autocomplete, prefetchSearchEpoch, searchQuery, vectorSearch, type SearchFilters } from "../../services/search";
import { wantRuleNodes } from "../../services/access";
import { rateLimit } from "../middleware/rate-limit";
import { requireAuth } from "../middleware/require-auth";
import type { AppEnv } from "../types";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema, NON_BLANK_PATTERN } from "../schemas";

/** Longest query text accepted (a longer one is a 400: nobody types it, and only the first words count anyway). */
export const MAX_QUERY_CHARS = 2000;
/** Longest RAG question accepted. */
export const MAX_QUESTION_CHARS = 2000;

/**
 * Reads the search epoch while the caller is authenticated, and the caller's rule nodes (decision 039) beside their
 * access row (only for calls that carry a credential).
 */
const epochAlongsideAuth = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("authorization")) {
    prefetchSearchEpoch(c.var.rc);
    wantRuleNodes(c.var.rc);
  }
  await next();
});

const FIELD_FILTER = /^field\.([0-9a-f]{32})$/;

/** The text path parameter `{x}`. */
const TextParamsSchema = z.object({
  x: z
    .string()
    .min(1)
    .max(MAX_QUERY_CHARS, ru.search.queryTooLong(MAX_QUERY_CHARS))
    .openapi({ param: { name: "x", in: "path" }, example: "фотографии пляжа" }),
});

/** A date filter: `YYYY-MM-DD`, an ISO date-time, or epoch milliseconds. */
const DateSchema = z.string().transform((v, ctx) => {
  const ms = /^\d{1,15}$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(ms)) {
    ctx.addIssue({ code: "custom", message: ru.search.badFilter(v) });
    return z.NEVER;
  }
  return ms;
});

/**
 * What the document promises DateSchema takes: epoch milliseconds, or an ISO date with an optional time and offset
 * (the product also takes other forms Date.parse reads; every value this matches parses).
 */
const DATE_PATTERN = String.raw`^(?:\d{1,15}|\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,3})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?)?)$`;

const KNOWN = ["skip", "take", "facets", "type", "mime", "tag", "class", "group", "owner", "from", "to", "review", "bbox"];

/**
 * A map's visible area: `west,south,east,north` in decimal degrees (latitude −90…90, longitude −180…180; east below
 * west crosses the antimeridian).
 */
/** Four decimal numbers separated by commas (the shape; the ranges are checked after). */
const BBOX_PATTERN = /^ *-?\d+(\.\d+)? *, *-?\d+(\.\d+)? *, *-?\d+(\.\d+)? *, *-?\d+(\.\d+)? *$/;

export const BboxSchema = z
  .string()
  .max(200)
  .regex(BBOX_PATTERN, { message: ru.mapSearch.bboxShape })
  .transform((value, ctx) => {
    const parts = value.split(",").map((p) => (p.trim() === "" ? Number.NaN : Number(p)));
    if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n))) {
      ctx.addIssue({ code: "custom", message: ru.mapSearch.bboxShape });
      return z.NEVER;
    }
    const [west, south, east, north] = parts;
    if ([west, east].some((lon) => lon < -180 || lon > 180)) ctx.addIssue({ code: "custom", message: ru.mapSearch.lonRange });
    else if ([south, north].some((lat) => lat < -90 || lat > 90)) ctx.addIssue({ code: "custom", message: ru.mapSearch.latRange });
    else if (south > north) ctx.addIssue({ code: "custom", message: ru.mapSearch.southAboveNorth });
    else return { west, south, east, north };
    return z.NEVER;
  })
  .openapi({
    type: "string",
    pattern: BBOX_PATTERN.source,
    example: "37.3,55.5,37.9,55.9",
    description: "west,south,east,north in degrees: only files taken inside (their GPS)",
  });

/**
 * Filters of `query` and `vector` (SPEC §7): known names plus `field.<template id>=value`; any other name is a 400
 * that names it.
 */
export const SearchQuerySchema = z
  .object({
    skip: z.coerce.number().int().min(0).max(10_000).default(0),
    take: z.coerce.number().int().min(1).max(200).default(50),
    facets: z.enum(["true", "false", "1", "0"]).optional().openapi({ description: "count facets (type, tag, class, owner)" }),
    type: z.enum(["asset", "group"]).optional(),
    mime: z
      .string()
      .max(255)
      .regex(/^[a-zA-Z0-9.+-]+(\/[a-zA-Z0-9.+-]+)?$/)
      .optional()
      .openapi({ description: "MIME family (image) or type (image/png)" }),
    tag: z.string().min(1).max(100).optional().openapi({ description: "tag name" }),
    class: IdSchema.optional(),
    group: IdSchema.optional().openapi({ description: "only inside this group's subtree" }),
    owner: IdSchema.optional(),
    from: DateSchema.optional().openapi({ type: "string", pattern: DATE_PATTERN, description: "created at or after (date or epoch ms)" }),
    to: DateSchema.optional().openapi({ type: "string", pattern: DATE_PATTERN, description: "created at or before (date or epoch ms)" }),
    review: z
      .enum([...REVIEW_STATUSES, "none"], { error: "ожидается in_review, approved, changes_requested, rejected или none" })
      .optional()
      .openapi({ description: "files whose latest version has this review status (none: no decision yet)" }),
    bbox: BboxSchema.optional(),
  })
  .catchall(z.string().max(500))
  .superRefine((q, ctx) => {
    const unknown = Object.keys(q).filter((k) => !KNOWN.includes(k) && !FIELD_FILTER.test(k));
    if (unknown.length) ctx.addIssue({ code: "custom", message: ru.search.unknownFilter(unknown.join(", ")), path: [unknown[0]] });
  });

type SearchQuery = z.infer<typeof SearchQuerySchema>;

function filtersOf(q: SearchQuery): SearchFilters {
  const fields = Object.entries(q)
    .map(([k, v]) => ({ m: FIELD_FILTER.exec(k), v }))
    .filter((e): e is { m: RegExpExecArray; v: string } => e.m !== null && typeof e.v === "string")
    .map((e) => ({ defId: e.m[1], value: e.v }));
  return {
    type: q.type,
    mime: q.mime,
    tag: q.tag,
    class: q.class,
    group: q.group,
    owner: q.owner,
    from: q.from as number | undefined,
    to: q.to as number | undefined,
    review: q.review,
    bbox: q.bbox as SearchFilters["bbox"],
    fields,
  };
}

const HitSchema = z
  .object({
    type: z.enum(["asset", "group"]),
    id: z.string(),
    name: z.string(),
    name_html: z.string(),
    snippet: z.string().openapi({ description: "HTML-escaped fragment, matches in <mark>" }),
    why: z.array(z.enum(["name", "meta", "content"])),
    group_id: z.string().nullable(),
    path: z.string(),
    mime: z.string().nullable(),
    version: z.number().nullable(),
    preview: z.string().nullable(),
    score: z.number(),
    mtime: z.number(),
    review_status: z.enum(REVIEW_STATUSES).nullable().openapi({ description: "a file's current review status" }),
    comments: CommentCountsSchema.nullable().openapi({ description: "a file's comment counts; null for folders" }),
    lat: z.number().nullable().openapi({ description: "latitude where a photo was taken (EXIF GPS)" }),
    lon: z.number().nullable().openapi({ description: "longitude where a photo was taken (EXIF GPS)" }),
  })
  .openapi("SearchHit");
const FacetSchema = z.array(z.object({ value: z.string(), label: z.string(), count: z.number() }));
const SearchResultSchema = z
  .object({
    total: z
      .number()
      .openapi({
        description:
          "the matches you may see: exact up to 1,000 (and at the end of the list); past that 1,000 (or what paging has shown) with total_exact false. Hidden matches are never counted",
      }),
    total_exact: z
      .boolean()
      .openapi({ description: "false when total is a lower bound (more than 1,000 visible matches, shown as «1 000+»)" }),
    skip: z.number(),
    take: z.number(),
    hits: z.array(HitSchema),
    facets: z.object({ type: FacetSchema, tag: FacetSchema, class: FacetSchema, owner: FacetSchema, review: FacetSchema }).optional(),
    facets_partial: z.boolean().optional().openapi({ description: "true when the facets count the best 1,000 matches, not all" }),
  })
  .openapi("SearchResult");

export const RagBodySchema = z
  .object({
    question: z
      .string({ error: ru.search.questionRequired })
      .trim()
      .min(1, ru.search.questionRequired)
      .max(MAX_QUESTION_CHARS, ru.search.questionTooLong(MAX_QUESTION_CHARS))
      .openapi({ pattern: NON_BLANK_PATTERN }),
  })
  .openapi("RagQuestion");

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

/** SPEC §7 search calls (decision 011). */
export const searchRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/query/{x}",
      tags: ["Search"],
      summary: "Full-text search over visible assets and groups",
      description:
        "Every word must match (Russian and English stems, prefixes). Ranked by bm25 with names above metadata above document text. Filters: type, mime, tag, class, group (subtree), owner, from/to (creation), field.<template id>=value; `facets=true` adds counts over the visible matching set. Unknown filters are a 400.",
      security: bearerSecurity,
      middleware: [epochAlongsideAuth, requireAuth, rateLimit("search")] as const,
      request: { params: TextParamsSchema, query: SearchQuerySchema },
      responses: { 200: json(SearchResultSchema, "Hits"), ...errorResponses(400, 401, 404, 503) },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const facets = q.facets === "true" || q.facets === "1";
      return c.json(
        await searchQuery(c.var.rc, c.var.actor, c.req.valid("param").x, filtersOf(q), { skip: q.skip, take: q.take, facets }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/autocomplete/{x}",
      tags: ["Search"],
      summary: "Up to 10 suggestions (names, tags, field values) for what is being typed",
      security: bearerSecurity,
      middleware: [epochAlongsideAuth, requireAuth, rateLimit("search")] as const,
      request: { params: TextParamsSchema },
      responses: {
        200: json(
          z.object({
            suggestions: z.array(
              z.object({
                text: z.string(),
                kind: z.enum(["name", "tag", "field"]),
                id: z.string().optional(),
                type: z.enum(["asset", "group"]).optional(),
              }),
            ),
          }),
          "Suggestions",
        ),
        ...errorResponses(400, 401, 503),
      },
    }),
    async (c) => c.json(await autocomplete(c.var.rc, c.var.actor, c.req.valid("param").x), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/vector/{x}",
      tags: ["Search"],
      summary: "Semantic search over visible assets and groups",
      description:
        "With Workers AI and Vectorize bound: nearest vectors there. Otherwise the offline embedding (hashed stems and character trigrams, cosine in the Worker). Same filters as query; access-filtered.",
      security: bearerSecurity,
      middleware: [requireAuth, rateLimit("search")] as const,
      request: { params: TextParamsSchema, query: SearchQuerySchema },
      responses: {
        200: json(z.object({ engine: z.enum(["vectorize", "offline"]), hits: z.array(HitSchema) }), "Hits by similarity"),
        ...errorResponses(400, 401, 404, 503),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      return c.json(await vectorSearch(c.var.rc, c.var.actor, c.req.valid("param").x, filtersOf(q), { take: q.take }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/rag",
      tags: ["Search"],
      summary: "A grounded answer from the caller's readable documents, with numbered citations",
      description: `Extractive (quoted passages) without Workers AI; written by an LLM from the same passages when AI is bound. Refusal: «${ru.search.refusal}».`,
      security: bearerSecurity,
      middleware: [requireAuth, rateLimit("rag")] as const,
      request: { body: { required: true, content: { "application/json": { schema: RagBodySchema } } } },
      responses: {
        200: json(
          z.object({
            found: z.boolean(),
            mode: z.enum(["extractive", "llm", "none"]),
            answer: z.string(),
            citations: z.array(
              z.object({ n: z.number(), asset_id: z.string(), version: z.number(), name: z.string(), snippet: z.string() }),
            ),
          }),
          "Answer",
        ),
        ...errorResponses(400, 401, 415, 503),
      },
    }),
    async (c) => c.json(await askQuestion(c.var.rc, c.var.actor, c.req.valid("json").question), 200),
  );
