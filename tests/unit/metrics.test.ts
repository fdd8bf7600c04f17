import { describe, expect, it } from "vitest";
import { LATENCY_BUCKETS, RequestMetrics } from "../../workers/lib/metrics";

describe("RequestMetrics", () => {
  it("renders empty families with HELP and TYPE lines", () => {
    const text = new RequestMetrics().render();
    expect(text).toBe(
      [
        "# HELP mam_http_requests_total HTTP requests by method, route template and status.",
        "# TYPE mam_http_requests_total counter",
        "# HELP mam_http_request_duration_seconds Request latency by method, route template and status.",
        "# TYPE mam_http_request_duration_seconds histogram",
        "",
      ].join("\n"),
    );
  });

  it("counts requests per method, route and status", () => {
    const m = new RequestMetrics();
    m.observe("GET", "/api/ping", 200, 0.001);
    m.observe("GET", "/api/ping", 200, 0.002);
    m.observe("GET", "/api/ping", 500, 0.003);
    m.observe("POST", "/api/auth/login", 401, 0.05);
    const lines = m.render().split("\n");
    expect(lines).toContain('mam_http_requests_total{method="GET",route="/api/ping",status="200"} 2');
    expect(lines).toContain('mam_http_requests_total{method="GET",route="/api/ping",status="500"} 1');
    expect(lines).toContain('mam_http_requests_total{method="POST",route="/api/auth/login",status="401"} 1');
  });

  it("fills cumulative histogram buckets, +Inf, sum and count", () => {
    const m = new RequestMetrics();
    for (const seconds of [0.004, 0.02, 0.3, 7, 42]) m.observe("GET", "/r", 200, seconds);
    const text = m.render();
    const bucket = (le: string) =>
      Number(
        new RegExp(
          `^mam_http_request_duration_seconds_bucket\\{method="GET",route="/r",status="200",le="${le.replace(/[.+]/g, "\\$&")}"\\} (\\d+)$`,
          "m",
        ).exec(text)?.[1],
      );
    expect(LATENCY_BUCKETS.map((le) => bucket(String(le)))).toEqual([1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4]);
    expect(bucket("+Inf")).toBe(5);
    expect(text).toMatch(/^mam_http_request_duration_seconds_count\{method="GET",route="\/r",status="200"\} 5$/m);
    const sum = Number(/^mam_http_request_duration_seconds_sum\{[^}]*\} (\S+)$/m.exec(text)?.[1]);
    expect(sum).toBeCloseTo(49.324, 6);
  });

  it("counts a value equal to a bound in that bucket", () => {
    const m = new RequestMetrics();
    m.observe("GET", "/r", 200, 0.005);
    expect(m.render()).toContain('mam_http_request_duration_seconds_bucket{method="GET",route="/r",status="200",le="0.005"} 1');
  });

  it("escapes label values", () => {
    const m = new RequestMetrics();
    m.observe("GET", 'a"b\\c\nd', 200, 0);
    expect(m.render()).toContain('mam_http_requests_total{method="GET",route="a\\"b\\\\c\\nd",status="200"} 1');
  });

  it("renders gauges after the request families", () => {
    const text = new RequestMetrics().render([{ name: "mam_users_enabled", help: "Enabled user accounts.", value: 3 }]);
    expect(text.endsWith("# HELP mam_users_enabled Enabled user accounts.\n# TYPE mam_users_enabled gauge\nmam_users_enabled 3\n")).toBe(
      true,
    );
  });

  it("renders a labelled gauge's series under one HELP and TYPE", () => {
    const text = new RequestMetrics().render([
      { name: "mam_database_bytes", help: "Size of each D1 database in bytes.", value: 4096, labels: { database: "DB" } },
      { name: "mam_database_bytes", help: "Size of each D1 database in bytes.", value: 1024, labels: { database: "LOGS" } },
    ]);
    expect(
      text.endsWith(
        '# HELP mam_database_bytes Size of each D1 database in bytes.\n# TYPE mam_database_bytes gauge\nmam_database_bytes{database="DB"} 4096\nmam_database_bytes{database="LOGS"} 1024\n',
      ),
    ).toBe(true);
  });
});
