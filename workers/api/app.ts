import { HTTPException } from "hono/http-exception";
import { ru } from "../../shared/i18n/ru";
import { AppError, errorBody, isLibraryHeld, isLibraryMoving } from "../lib/errors";
import { reportError } from "../lib/sentry";
import { protocolHeaders, requestLifecycle } from "./middleware/request-lifecycle";
import { openApiDocument, registerReferenceRoutes } from "./openapi-document";
import { addRequestExamples } from "./request-examples";
import { createRouter } from "./router";
import { authRoutes } from "./routes/auth.routes";
import { docsRoutes } from "./routes/docs.routes";
import { zipRoutes } from "./routes/zip.routes";
import { metricsRoutes } from "./routes/metrics.routes";
import { miscRoutes } from "./routes/misc.routes";
import { groupRoutes } from "./routes/group.routes";
import { assetContentRoutes } from "./routes/asset-content.routes";
import { assetRoutes } from "./routes/asset.routes";
import { assetCatalogRoutes } from "./routes/asset-catalog.routes";
import { assetVersionRoutes, groupNameRoutes } from "./routes/asset-versions.routes";
import { batchUploadRoutes, directUploadRoutes } from "./routes/direct-upload.routes";
import { tagsRoutes } from "./routes/tags.routes";
import { storageRoutes } from "./routes/storage.routes";
import { uploadSignRoutes } from "./routes/upload-sign.routes";
import { s3Routes } from "./routes/s3.routes";
import { uploadsRoutes } from "./routes/uploads.routes";
import { internalBenchRoutes } from "./routes/internal-bench.routes";
import { accessRoutes } from "./routes/access.routes";
import { userRoutes } from "./routes/user.routes";
import { ssoRoutes } from "./routes/sso.routes";
import { auditRoutes } from "./routes/audit.routes";
import { tasksRoutes } from "./routes/tasks.routes";
import { eventsRoutes } from "./routes/events.routes";
import { udwfRoutes } from "./routes/udwf.routes";
import { metadataCsvRoutes } from "./routes/metadata-csv.routes";
import { fieldsRoutes } from "./routes/fields.routes";
import { taxonomyRoutes } from "./routes/taxonomy.routes";
import { listsRoutes } from "./routes/lists.routes";
import { cspReportRoutes } from "./routes/csp-report.routes";
import { searchRoutes } from "./routes/search.routes";
import { slRoutes } from "./routes/sl.routes";
import { wopiRoutes } from "./routes/wopi.routes";
import { pqiRoutes } from "./routes/pqi.routes";
import { shopRoutes } from "./routes/shop.routes";
import { helperRoutes } from "./routes/helper.routes";
import { duplicatesRoutes } from "./routes/duplicates.routes";
import { collectionsRoutes } from "./routes/collections.routes";
import { commentRoutes } from "./routes/comments.routes";
import { reviewRoutes } from "./routes/review.routes";
import { mapRoutes } from "./routes/map.routes";
import { libraryShardsRoutes } from "./routes/library-shards.routes";

/** Messages for errors Hono raises itself (body parsing, content type), in the product's language. */
function frameworkMessage(error: HTTPException): string {
  if (error.status === 400 && /json/i.test(error.message)) return ru.errors.malformedJson;
  if (error.status === 415) return ru.errors.unsupportedMediaType;
  return error.message || ru.errors.unknown;
}

/**
 * The API application: `/api/*`, `/metrics` and `/internal/*`. One validation hook, one error model
 * (`{ statusCode, message, error, requestId }`), one request lifecycle; resource routers mount below.
 */
export function createApiApp() {
  const app = createRouter();
  app.use("*", requestLifecycle);
  app.use("*", protocolHeaders);

  app.route("/api", miscRoutes);
  // Fixed paths must be registered before the `/{id}` routes they would otherwise match (e.g. /api/user/acl).
  app.route("/api", accessRoutes);
  app.route("/api/auth", ssoRoutes);
  app.route("/api/auth", authRoutes);
  app.route("/api/user", userRoutes);
  app.route("/api/audit", auditRoutes);
  app.route("/api/group", groupNameRoutes);
  app.route("/api/group", mapRoutes);
  app.route("/api/group", groupRoutes);
  app.route("/api", duplicatesRoutes);
  app.route("/api/asset", assetVersionRoutes);
  app.route("/api/asset", reviewRoutes);
  app.route("/api/asset", directUploadRoutes);
  app.route("/api/asset", batchUploadRoutes);
  app.route("/api/asset", assetCatalogRoutes);
  app.route("/api/asset", assetContentRoutes);
  app.route("/api/asset", assetRoutes);
  // Comments and the inbox (decision 035): `/api/asset/{id}/comments` and `/follow` have more segments than any
  // asset path, so after the asset routers they match only their own URLs.
  app.route("/api", commentRoutes);
  app.route("/api/tags", tagsRoutes);
  app.route("/api/storage", storageRoutes);
  app.route("/api/upload", uploadSignRoutes);
  app.route("/api/s3", s3Routes);
  app.route("/api/uploads", uploadsRoutes);
  app.route("/api/tasklist/udwf", udwfRoutes);
  app.route("/api/tasklist", tasksRoutes);
  app.route("/api", eventsRoutes);
  app.route("/api/fields", fieldsRoutes);
  app.route("/api/metadata", metadataCsvRoutes);
  app.route("/api/taxonomy", taxonomyRoutes);
  app.route("/api/lists", listsRoutes);
  app.route("/api/search", searchRoutes);
  app.route("/api/sl", slRoutes);
  app.route("/api/wopi", wopiRoutes);
  app.route("/api/pqi", pqiRoutes);
  app.route("/api/shop", shopRoutes);
  app.route("/api/helper", helperRoutes);
  app.route("/api/collections", collectionsRoutes);
  app.route("/api/docs", docsRoutes);
  app.route("/api/zip", zipRoutes);
  app.route("/api/library-shards", libraryShardsRoutes);
  app.route("/api", cspReportRoutes);
  app.route("/metrics", metricsRoutes);
  app.route("/internal/bench", internalBenchRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
  addRequestExamples(app.openAPIRegistry);
  registerReferenceRoutes(app.openAPIRegistry);
  app.get("/api/openapi.json", (c) => c.json(openApiDocument(app)));

  app.notFound((c) => {
    const requestId = c.get("requestId");
    return c.json(errorBody(404, ru.errors.routeNotFound(c.req.method, new URL(c.req.url).pathname), requestId), 404);
  });

  app.onError((error, c) => {
    const requestId = c.get("requestId");
    if (error instanceof AppError) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.json(errorBody(error.status, error.message, requestId), error.status);
    }
    if (isLibraryMoving(error) || isLibraryHeld(error)) {
      c.header("Retry-After", "5");
      return c.json(errorBody(503, isLibraryHeld(error) ? ru.groups.libraryHeld : ru.groups.libraryMoving, requestId), 503);
    }
    if (error instanceof HTTPException && error.status < 500) {
      return c.json(errorBody(error.status, frameworkMessage(error), requestId), error.status);
    }
    console.error(
      JSON.stringify({
        level: "error",
        requestId,
        method: c.req.method,
        path: new URL(c.req.url).pathname,
        message: error.message,
        stack: error.stack,
      }),
    );
    // The answer is a clean 500, so the error never reaches Sentry's handler wrapper: report it here.
    reportError(error, { requestId, method: c.req.method, path: new URL(c.req.url).pathname });
    return c.json(errorBody(500, ru.errors.server, requestId), 500);
  });

  return app;
}

export type ApiApp = ReturnType<typeof createApiApp>;
