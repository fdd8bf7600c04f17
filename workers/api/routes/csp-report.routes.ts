import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import { CSP_REPORT_PATH } from "../../lib/security-headers";
import { rateLimit } from "../middleware/rate-limit";
import { createRouter, errorResponses } from "../router";

const MAX_REPORT_BYTES = 16 * 1024;

const Directive = z.string().max(2048).optional();
/** `report-uri` form (application/csp-report). */
const LegacyReportSchema = z.object({
  "csp-report": z
    .object({
      "document-uri": Directive,
      "blocked-uri": Directive,
      "violated-directive": Directive,
      "effective-directive": Directive,
      "source-file": Directive,
      "line-number": z.number().optional(),
    })
    .passthrough(),
});
/** Reporting API form (application/reports+json): a list of reports. */
const ReportingApiSchema = z
  .array(
    z.object({
      type: z.string().max(64),
      url: Directive,
      body: z
        .object({ documentURL: Directive, blockedURL: Directive, effectiveDirective: Directive, sourceFile: Directive, lineNumber: z.number().optional() })
        .passthrough(),
    }),
  )
  .max(50);
const CspReportSchema = z.union([LegacyReportSchema, ReportingApiSchema]);

/** One log line per violation, in the shape Workers Logs can filter by. */
function logViolations(report: z.infer<typeof CspReportSchema>, requestId: string) {
  const items = Array.isArray(report)
    ? report.map((r) => ({ document: r.body.documentURL ?? r.url, blocked: r.body.blockedURL, directive: r.body.effectiveDirective }))
    : [{ document: report["csp-report"]["document-uri"], blocked: report["csp-report"]["blocked-uri"], directive: report["csp-report"]["effective-directive"] ?? report["csp-report"]["violated-directive"] }];
  for (const item of items) console.warn(JSON.stringify({ level: "warn", event: "csp.violation", requestId, ...item }));
}

/**
 * POST /api/csp-report: browsers send Content-Security-Policy violations here (the pages' `report-uri` and
 * `report-to`). Each one is logged; the call needs no sign-in, so it is limited per IP and by size.
 */
export const cspReportRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: CSP_REPORT_PATH.replace(/^\/api/, ""),
    tags: ["Misc"],
    summary: "Content-Security-Policy violation report (sent by browsers)",
    description: "Accepts `application/csp-report` and `application/reports+json` bodies of up to 16 KiB; each violation is written to the Worker's log.",
    middleware: [rateLimit("csp-report")] as const,
    // not `required`: a required JSON body would be checked as JSON whatever the content type
    request: { body: { content: { "application/csp-report": { schema: LegacyReportSchema }, "application/reports+json": { schema: ReportingApiSchema } } } },
    responses: { 204: { description: "Logged" }, ...errorResponses(400, 429) },
  }),
  async (c) => {
    // the report content types are JSON that workerd does not know as text: decode the bytes ourselves
    const bytes = await c.req.arrayBuffer();
    if (bytes.byteLength > MAX_REPORT_BYTES) throw new AppError("BAD_REQUEST", ru.errors.cspReport);
    const text = new TextDecoder().decode(bytes);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppError("BAD_REQUEST", ru.errors.cspReport);
    }
    const report = CspReportSchema.safeParse(parsed);
    if (!report.success) throw new AppError("BAD_REQUEST", ru.errors.cspReport);
    logViolations(report.data, c.get("requestId"));
    return c.body(null, 204);
  },
);
