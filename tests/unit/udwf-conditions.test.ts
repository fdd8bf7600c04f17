import { describe, expect, it } from "vitest";
import { type AssetFacts, evaluateConditions } from "../../workers/services/automations/udwf/conditions";
import { ConditionSchema, WorkflowSetupSchema, type Condition } from "../../workers/services/automations/udwf/setup";
import { outboundUrlProblem } from "../../workers/lib/outbound-url";

const G1 = "1".repeat(32);
const PARENT = "2".repeat(32);
const T1 = "3".repeat(32);
const T2 = "4".repeat(32);

const facts: AssetFacts = {
  id: "a".repeat(32),
  name: "photo.jpg",
  mime: "image/jpeg; charset=binary",
  size: 1000,
  groups: new Set([G1]),
  groupsWithAncestors: new Set([G1, PARENT]),
  tags: new Set([T1]),
};

const c = (raw: unknown): Condition => ConditionSchema.parse(raw);
const holds = (raw: unknown) => evaluateConditions([c(raw)], facts).ok;

describe("evaluateConditions", () => {
  it("judges mimetype by exact type, prefix and negation, ignoring parameters and case", () => {
    expect(holds({ kind: "mimetype", op: "is", value: "IMAGE/JPEG" })).toBe(true);
    expect(holds({ kind: "mimetype", op: "is", value: "image/png" })).toBe(false);
    expect(holds({ kind: "mimetype", op: "starts-with", value: "image/" })).toBe(true);
    expect(holds({ kind: "mimetype", op: "starts-with", value: "video/" })).toBe(false);
    expect(holds({ kind: "mimetype", op: "is-not", value: "video/mp4" })).toBe(true);
  });

  it("judges size at the boundaries", () => {
    expect(holds({ kind: "size", op: "gt", value: 999 })).toBe(true);
    expect(holds({ kind: "size", op: "gt", value: 1000 })).toBe(false);
    expect(holds({ kind: "size", op: "gte", value: 1000 })).toBe(true);
    expect(holds({ kind: "size", op: "lt", value: 1000 })).toBe(false);
    expect(holds({ kind: "size", op: "lte", value: 1000 })).toBe(true);
  });

  it("judges group membership directly or through ancestors", () => {
    expect(holds({ kind: "group", op: "in", group_id: G1, include_subgroups: false })).toBe(true);
    expect(holds({ kind: "group", op: "in", group_id: PARENT, include_subgroups: false })).toBe(false);
    expect(holds({ kind: "group", op: "in", group_id: PARENT })).toBe(true);
    expect(holds({ kind: "group", op: "not-in", group_id: PARENT })).toBe(false);
  });

  it("judges tags", () => {
    expect(holds({ kind: "tag", op: "has", tag_id: T1 })).toBe(true);
    expect(holds({ kind: "tag", op: "has", tag_id: T2 })).toBe(false);
    expect(holds({ kind: "tag", op: "has-not", tag_id: T2 })).toBe(true);
  });

  it("needs every condition and reports the first that fails", () => {
    const conditions = [c({ kind: "mimetype", op: "starts-with", value: "image/" }), c({ kind: "size", op: "gt", value: 5000 })];
    expect(evaluateConditions(conditions, facts)).toEqual({ ok: false, failed: conditions[1], index: 1 });
    expect(evaluateConditions([], facts)).toEqual({ ok: true });
  });

  it("lets a run without an asset pass only when there are no conditions", () => {
    expect(evaluateConditions([], null).ok).toBe(true);
    expect(evaluateConditions([c({ kind: "size", op: "gte", value: 0 })], null).ok).toBe(false);
  });
});

describe("WorkflowSetupSchema", () => {
  const base = { trigger: { type: "manual" }, actions: [{ type: "wait", seconds: 5 }] };

  it("accepts a complete setup and fills defaults", () => {
    const setup = WorkflowSetupSchema.parse({
      trigger: { type: "asset.uploaded", group_id: G1 },
      conditions: [{ kind: "mimetype", op: "starts-with", value: "image/" }],
      actions: [
        { type: "add-tag", tag_id: T1 },
        { type: "webhook", url: "https://hooks.example.com/mam" },
      ],
    });
    expect(setup.trigger).toEqual({ type: "asset.uploaded", group_id: G1, include_subgroups: false });
  });

  it.each([
    [{ ...base, trigger: { type: "schedule", cron: "61 * * * *" } }, "trigger.cron"],
    [{ ...base, actions: [] }, "actions"],
    [{ ...base, actions: [{ type: "add-tag" }] }, "actions.0.tag_id"],
    [{ ...base, actions: [{ type: "webhook", url: "ftp://example.com/" }] }, "actions.0.url"],
    [{ ...base, actions: [{ type: "webhook", url: "http://10.0.0.1/" }] }, "actions.0.url"],
    [{ ...base, actions: [{ type: "wait", seconds: 0 }] }, "actions.0.seconds"],
    [{ ...base, conditions: [{ kind: "size", op: "gt", value: -1 }] }, "conditions.0.value"],
  ])("refuses %j at %s", (input, path) => {
    const result = WorkflowSetupSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0].path.join(".")).toBe(path);
  });
});

describe("outboundUrlProblem", () => {
  const strict = { allowLoopback: false };
  it.each(["https://hooks.example.com/x", "http://example.org:8080/path?q=1", "http://8.8.8.8/", "http://[2001:4860:4860::8888]/"])(
    "allows %s",
    (url) => {
      expect(outboundUrlProblem(url, strict)).toBeNull();
    },
  );

  it.each([
    ["ftp://example.com/", "http"],
    ["javascript:alert(1)", "http"],
    ["file:///etc/passwd", "http"],
    ["not a url", "URL"],
    ["http://user:pw@example.com/", "логин"],
    ["http://10.1.2.3/", "частную"],
    ["http://172.16.0.1/", "частную"],
    ["http://172.31.255.255/", "частную"],
    ["http://192.168.1.1/", "частную"],
    ["http://169.254.169.254/latest/meta-data", "частную"],
    ["http://100.64.0.1/", "частную"],
    ["http://0.0.0.0/", "частную"],
    ["http://224.0.0.1/", "частную"],
    ["http://[fd00::1]/", "частную"],
    ["http://[fe80::1]/", "частную"],
    ["http://[::]/", "частную"],
    ["http://[::ffff:192.168.0.1]/", "частную"],
    ["http://[::ffff:10.0.0.1]/", "частную"],
    ["http://printer.local/", "частную"],
    ["http://metadata.google.internal/", "частную"],
    ["http://intranet/", "частную"],
    ["http://127.0.0.1/", "loopback"],
    ["http://127.1/", "loopback"],
    ["http://2130706433/", "loopback"],
    ["http://0x7f000001/", "loopback"],
    ["http://[::1]/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://localhost:8080/", "loopback"],
    ["http://api.localhost/", "loopback"],
  ])("refuses %s", (url, words) => {
    expect(outboundUrlProblem(url, strict)).toContain(words);
  });

  it("allows loopback, and only loopback, when the policy says so", () => {
    const loose = { allowLoopback: true };
    expect(outboundUrlProblem("http://127.0.0.1:8815/hook", loose)).toBeNull();
    expect(outboundUrlProblem("http://localhost/hook", loose)).toBeNull();
    expect(outboundUrlProblem("http://192.168.0.1/hook", loose)).toContain("частную");
  });
});
