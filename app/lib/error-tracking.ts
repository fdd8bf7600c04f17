import {
  DATA_COLLECTION,
  REPLAYS_ON_ERROR_SAMPLE_RATE,
  REPLAYS_SESSION_SAMPLE_RATE,
  TRACES_SAMPLE_RATE,
  scrubBreadcrumb,
  scrubEvent,
  scrubValue,
} from "../../workers/lib/error-tracking-policy";
import { loadSentrySdk } from "./sentry-sdk.client";

/** What the root loader hands the browser when SENTRY_DSN is set (nothing at all when it is not). */
export interface ErrorTrackingConfig {
  dsn: string;
  release: string;
}

type SentrySdk = typeof import("@sentry/react");

let sdk: Promise<SentrySdk | null> | null = null;
/** Errors reported before the SDK finished loading (an error boundary renders before the layout's effects run). */
const early: unknown[] = [];
const EARLY_MAX = 10;

/**
 * Loads and starts the browser SDK (decision 015): only when the server configured a DSN, so a page without one
 * downloads no Sentry code and sends nothing. SPEC §9's rates: traces 1, session replay 0.1, replay on error 1.
 * Idempotent: later calls keep the first configuration.
 */
export function startErrorTracking(config: ErrorTrackingConfig): void {
  // `loadSentrySdk` is undefined on the server (a `.client` module), where nothing is tracked from the page.
  if (!loadSentrySdk) return;
  sdk ??= loadSentrySdk().then(
    (Sentry) => {
      Sentry.init({
        dsn: config.dsn,
        release: config.release,
        integrations: [Sentry.browserTracingIntegration(), Sentry.replayIntegration()],
        tracesSampleRate: TRACES_SAMPLE_RATE,
        replaysSessionSampleRate: REPLAYS_SESSION_SAMPLE_RATE,
        replaysOnErrorSampleRate: REPLAYS_ON_ERROR_SAMPLE_RATE,
        // our own API only: the trace headers must not go to upload servers or the office editor
        tracePropagationTargets: [/^\/(?!\/)/],
        dataCollection: DATA_COLLECTION,
        beforeSend: (event) => scrubEvent(event),
        // spans are streamed (SDK 11 default): their names, URLs and attributes go through the same scrubber
        beforeSendSpan: (span) => scrubValue(span),
        beforeBreadcrumb: (breadcrumb) => scrubBreadcrumb(breadcrumb),
      });
      for (const error of early.splice(0)) Sentry.captureException(error);
      return Sentry;
    },
    (error: unknown) => {
      // A failed chunk load must not break the page: error tracking is a bystander.
      console.warn("error tracking could not start", error);
      return null;
    },
  );
}

/**
 * Reports an error a React error boundary caught (React keeps those from the global handlers). Before the SDK is
 * loaded it is kept, up to EARLY_MAX, and sent once it starts; without a DSN it is simply dropped.
 */
export function reportRenderError(error: unknown): void {
  if (sdk) {
    void sdk.then((Sentry) => Sentry?.captureException(error));
  } else if (early.length < EARLY_MAX) {
    early.push(error);
  }
}
