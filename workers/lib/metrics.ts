/** Upper bounds (seconds) of the request latency histogram. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A gauge's value; the series of one metric (same name) are given one after another. */
export interface Gauge {
  name: string;
  help: string;
  value: number;
  labels?: Record<string, string>;
}

interface Series {
  labels: Record<string, string>;
  count: number;
  sum: number;
  buckets: number[];
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function formatLabels(labels: Record<string, string>, extra?: [string, string]): string {
  const entries = Object.entries(labels);
  if (extra) entries.push(extra);
  return entries.length ? `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}` : "";
}

/**
 * Request counts and latency by route template, method and status, kept per isolate (Workers run many isolates;
 * Prometheus sums the scrapes). Route templates, not raw paths, keep the label set small.
 */
export class RequestMetrics {
  private series = new Map<string, Series>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    const key = `${method} ${route} ${status}`;
    let s = this.series.get(key);
    if (!s) {
      s = { labels, count: 0, sum: 0, buckets: LATENCY_BUCKETS.map(() => 0) };
      this.series.set(key, s);
    }
    s.count += 1;
    s.sum += seconds;
    LATENCY_BUCKETS.forEach((le, i) => {
      if (seconds <= le) s.buckets[i] += 1;
    });
  }

  /** Prometheus text exposition (format 0.0.4) of the counters, the histogram and the given gauges. */
  render(gauges: Gauge[] = []): string {
    const lines: string[] = [];
    lines.push("# HELP mam_http_requests_total HTTP requests by method, route template and status.");
    lines.push("# TYPE mam_http_requests_total counter");
    for (const s of this.series.values()) lines.push(`mam_http_requests_total${formatLabels(s.labels)} ${s.count}`);
    lines.push("# HELP mam_http_request_duration_seconds Request latency by method, route template and status.");
    lines.push("# TYPE mam_http_request_duration_seconds histogram");
    for (const s of this.series.values()) {
      LATENCY_BUCKETS.forEach((le, i) => {
        lines.push(`mam_http_request_duration_seconds_bucket${formatLabels(s.labels, ["le", String(le)])} ${s.buckets[i]}`);
      });
      lines.push(`mam_http_request_duration_seconds_bucket${formatLabels(s.labels, ["le", "+Inf"])} ${s.count}`);
      lines.push(`mam_http_request_duration_seconds_sum${formatLabels(s.labels)} ${s.sum}`);
      lines.push(`mam_http_request_duration_seconds_count${formatLabels(s.labels)} ${s.count}`);
    }
    const named = new Set<string>();
    for (const g of gauges) {
      // One HELP and TYPE per metric, however many labelled series it has.
      if (!named.has(g.name)) {
        named.add(g.name);
        lines.push(`# HELP ${g.name} ${g.help}`);
        lines.push(`# TYPE ${g.name} gauge`);
      }
      lines.push(`${g.name}${formatLabels(g.labels ?? {})} ${g.value}`);
    }
    return lines.join("\n") + "\n";
  }
}

/** The isolate's metrics; holds numbers only, never bindings. */
export const requestMetrics = new RequestMetrics();
