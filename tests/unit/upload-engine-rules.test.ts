import { describe, expect, it } from "vitest";
import {
  cancelPlan,
  foldersToCreate,
  isQueueFinished,
  matchPickedFile,
  LARGE_UPLOAD_BYTES,
  MAX_PARALLEL_UPLOADS,
  needsFile,
  nextToStart,
  isBatchable,
  BATCH_FILE_MAX_BYTES,
  BATCH_MAX_FILES,
  percentOf,
  PROGRESS_REPORT_INTERVAL_MS,
  shouldReportProgress,
  shownProgress,
  SpeedMeter,
  splitRelativePath,
  summarize,
} from "../../app/lib/upload-engine/queue-rules";
import type { UploadItem, UploadStatus } from "../../app/lib/upload-engine/types";

// The browser's upload queue rules (SPEC §4), pure: what starts next, when the queue is finished, what cancel does,
// which items wait for their file after a reload, progress and speed figures, folder plans for dropped folders.

let seq = 0;
function item(status: UploadStatus, over: Partial<UploadItem> = {}): UploadItem {
  seq += 1;
  return {
    id: `item-${seq}`,
    fileName: `file-${seq}.mp4`,
    size: 100,
    groupId: "a".repeat(32),
    assetId: null,
    variantId: null,
    uploadId: null,
    status,
    progress: 0,
    speed: 0,
    error: null,
    cancelled: false,
    ctime: seq,
    mtime: seq,
    lastSeen: seq,
    ...over,
  };
}

const all = () => true;

describe("isQueueFinished", () => {
  it("is finished when every item is completed or error, and when empty", () => {
    expect(isQueueFinished([])).toBe(true);
    expect(isQueueFinished([item("completed"), item("error")])).toBe(true);
  });

  it.each(["waiting", "busy", "uploading", "uploaded", "saving"] as const)("is not finished while an item is %s", (status) => {
    expect(isQueueFinished([item("completed"), item(status)])).toBe(false);
  });
});

describe("nextToStart", () => {
  it("starts the oldest waiting items, six files at a time", () => {
    const [a, b, c] = [item("waiting", { ctime: 3 }), item("waiting", { ctime: 1 }), item("waiting", { ctime: 2 })];
    expect(nextToStart([a, b, c], { running: new Set(), hasFile: all }).map((i) => i.id)).toEqual([b.id, c.id, a.id]);
    const many = Array.from({ length: 10 }, () => item("waiting", { size: BATCH_FILE_MAX_BYTES + 1 }));
    expect(nextToStart(many, { running: new Set(), hasFile: all }).map((i) => i.id)).toEqual(many.slice(0, 6).map((i) => i.id));
    expect(MAX_PARALLEL_UPLOADS).toBe(6);
  });

  it("starts up to 16 batchable files per request slot: new small files into a folder, not versions", () => {
    const small = Array.from({ length: 100 }, () => item("waiting", { size: BATCH_FILE_MAX_BYTES }));
    expect(nextToStart(small, { running: new Set(), hasFile: all })).toHaveLength(MAX_PARALLEL_UPLOADS * BATCH_MAX_FILES);
    // One ordinary upload running takes a whole slot: five slots of 16 are left.
    const other = item("uploading", { size: BATCH_FILE_MAX_BYTES + 1 });
    expect(nextToStart([other, ...small], { running: new Set([other.id]), hasFile: all })).toHaveLength(5 * BATCH_MAX_FILES);
    const versions = Array.from({ length: 10 }, () => item("waiting", { versionOf: "b".repeat(32), assetId: "b".repeat(32) }));
    expect(nextToStart(versions, { running: new Set(), hasFile: all })).toHaveLength(6);
    expect(isBatchable(item("waiting", { groupId: null }))).toBe(false);
    // A file that does not fit the slots left holds back the small ones after it.
    const running = small.slice(0, 90);
    const [big, after] = [item("waiting", { size: BATCH_FILE_MAX_BYTES + 1, ctime: 1e9 }), item("waiting", { ctime: 1e9 + 1 })];
    expect(nextToStart([...running, big, after], { running: new Set(running.map((i) => i.id)), hasFile: all })).toEqual([]);
  });

  it("runs at most two large files at once, and a large file that must wait holds back the ones after it", () => {
    const big = (over: Partial<UploadItem> = {}) => item("waiting", { size: LARGE_UPLOAD_BYTES, ...over });
    const [l1, l2, l3, s1] = [big(), big(), big(), item("waiting", { size: 10 })];
    expect(nextToStart([l1, l2, l3, s1], { running: new Set(), hasFile: all }).map((i) => i.id)).toEqual([l1.id, l2.id]);
    const running = item("uploading", { size: LARGE_UPLOAD_BYTES });
    const [s2, l4, s3] = [item("waiting", { size: 10 }), big(), item("waiting", { size: 10 })];
    expect(nextToStart([running, s2, l4, s3], { running: new Set([running.id]), hasFile: all }).map((i) => i.id)).toEqual([s2.id, l4.id, s3.id]);
    const two = [item("uploading", { size: LARGE_UPLOAD_BYTES }), item("uploading", { size: LARGE_UPLOAD_BYTES })];
    const ids = new Set(two.map((i) => i.id));
    expect(nextToStart([...two, s2, l4, s3], { running: ids, hasFile: all }).map((i) => i.id)).toEqual([s2.id]);
  });

  it("fills only the free slots", () => {
    const mib = { size: 1024 * 1024 };
    const busy = item("uploading", mib);
    const [a, b] = [item("waiting", mib), item("waiting", mib)];
    expect(nextToStart([busy, a, b], { running: new Set([busy.id]), hasFile: all, limit: 2 }).map((i) => i.id)).toEqual([a.id]);
    expect(nextToStart([busy, a, b], { running: new Set([busy.id, "other"]), hasFile: all, limit: 2 })).toEqual([]);
    expect(nextToStart([a, b], { running: new Set(), hasFile: all, limit: 1 }).map((i) => i.id)).toEqual([a.id]);
  });

  it("starts a batch added in one millisecond in the order it was added, whatever its ids", () => {
    const batch = ["z", "a", "m", "b"].map((id) => item("waiting", { id: `${id}-item`, ctime: 42 }));
    expect(nextToStart(batch, { running: new Set(), hasFile: all }).map((i) => i.id)).toEqual(["z-item", "a-item", "m-item", "b-item"]);
  });

  it("skips items whose file this tab does not hold, and items already running", () => {
    const [a, b, c] = [item("waiting"), item("waiting"), item("waiting")];
    const started = nextToStart([a, b, c], { running: new Set([a.id]), hasFile: (id) => id !== b.id, limit: 3 });
    expect(started.map((i) => i.id)).toEqual([c.id]);
  });

  it("starts nothing when the queue is finished", () => {
    expect(nextToStart([item("completed"), item("error")], { running: new Set(), hasFile: all })).toEqual([]);
  });
});

describe("cancelPlan", () => {
  it("only dequeues a waiting item", () => {
    expect(cancelPlan(item("waiting"), false)).toEqual({ cancelInEngine: false, deleteAsset: false });
  });

  it("cancels in the engine and deletes the asset of an item uploading here", () => {
    expect(cancelPlan(item("uploading", { assetId: "b".repeat(32) }), true)).toEqual({ cancelInEngine: true, deleteAsset: true });
  });

  it("deletes the asset without the engine when no engine here holds it", () => {
    expect(cancelPlan(item("busy", { assetId: "b".repeat(32) }), false)).toEqual({ cancelInEngine: false, deleteAsset: true });
  });

  it("keeps the file of a completed item and deletes nothing without an asset", () => {
    expect(cancelPlan(item("completed", { assetId: "b".repeat(32) }), false).deleteAsset).toBe(false);
    expect(cancelPlan(item("busy"), true)).toEqual({ cancelInEngine: true, deleteAsset: false });
    expect(cancelPlan(item("error", { assetId: "b".repeat(32) }), true)).toEqual({ cancelInEngine: false, deleteAsset: true });
  });
});

describe("needsFile", () => {
  it("asks for the file of an interrupted item nobody uploads", () => {
    for (const status of ["waiting", "busy", "uploading"] as const) {
      expect(needsFile(item(status), { hasFile: false, drivenElsewhere: false })).toBe(true);
    }
  });

  it("does not ask when the file is here, another tab uploads it, or no bytes are missing", () => {
    expect(needsFile(item("uploading"), { hasFile: true, drivenElsewhere: false })).toBe(false);
    expect(needsFile(item("uploading"), { hasFile: false, drivenElsewhere: true })).toBe(false);
    for (const status of ["uploaded", "saving", "completed", "error"] as const) {
      expect(needsFile(item(status), { hasFile: false, drivenElsewhere: false })).toBe(false);
    }
  });
});

describe("matchPickedFile", () => {
  it("matches by name and size, the oldest first", () => {
    const older = item("uploading", { fileName: "Интервью.mov", size: 42, ctime: 1 });
    const newer = item("uploading", { fileName: "Интервью.mov", size: 42, ctime: 5 });
    const other = item("uploading", { fileName: "Интервью.mov", size: 43 });
    expect(matchPickedFile([newer, other, older], { name: "Интервью.mov", size: 42 })?.id).toBe(older.id);
    expect(matchPickedFile([other], { name: "Интервью.mov", size: 42 })).toBeNull();
    expect(matchPickedFile([older], { name: "интервью.mov", size: 42 })).toBeNull();
  });
});

describe("progress and speed", () => {
  it("percentOf rounds down to a tenth and stays within 0–100", () => {
    expect(percentOf(0, 1000)).toBe(0);
    expect(percentOf(999, 1000)).toBe(99.9);
    expect(percentOf(1000, 1000)).toBe(100);
    expect(percentOf(2000, 1000)).toBe(100);
    expect(percentOf(0, 0)).toBe(0);
  });

  it("shows this tab's live numbers while uploading, the server's otherwise", () => {
    const up = item("uploading", { size: 1000, progress: 10, speed: 5 });
    expect(shownProgress(up, { loaded: 500, speed: 99 })).toEqual({ progress: 50, speed: 99 });
    expect(shownProgress(up)).toEqual({ progress: 10, speed: 5 });
    expect(shownProgress(item("completed", { progress: 40 }))).toEqual({ progress: 100, speed: null });
    expect(shownProgress(item("saving", { progress: 100, speed: 7 }))).toEqual({ progress: 100, speed: null });
    // Every byte sent, the commit still to come: no speed any more.
    expect(shownProgress(up, { loaded: 1000, speed: 99 })).toEqual({ progress: 100, speed: null });
    expect(shownProgress(item("uploading", { progress: 100, speed: 7 }))).toEqual({ progress: 100, speed: null });
  });

  it("reports progress to the server at most once a second, and always the last byte", () => {
    expect(shouldReportProgress(undefined, 0, 1)).toBe(true);
    const last = { at: 1_000, progress: 10 };
    expect(shouldReportProgress(last, 1_000 + PROGRESS_REPORT_INTERVAL_MS - 1, 20)).toBe(false);
    expect(shouldReportProgress(last, 1_000 + PROGRESS_REPORT_INTERVAL_MS, 20)).toBe(true);
    expect(shouldReportProgress(last, 1_001, 100)).toBe(true);
    expect(shouldReportProgress(last, 9_999, 10)).toBe(false);
  });

  it("measures speed over a sliding window", () => {
    const meter = new SpeedMeter(5_000);
    meter.add(0, 0);
    expect(meter.speed()).toBeNull();
    meter.add(1_000, 4_000_000);
    expect(meter.speed()).toBe(4_000_000);
    meter.add(10_000, 4_000_000 + 9_000_000);
    // the window keeps the last two samples at least: 9 MB in 9 s
    expect(meter.speed()).toBe(1_000_000);
    meter.add(11_000, 100); // a part sent again: start over
    expect(meter.speed()).toBeNull();
  });
});

describe("summarize", () => {
  it("counts items, adds the speeds of the uploading ones and the bytes sent", () => {
    const items = [
      item("completed", { size: 1000, progress: 100 }),
      item("uploading", { size: 1000, progress: 30, speed: 100 }),
      item("uploading", { size: 2000, progress: 0, speed: 0 }),
      item("waiting", { size: 500 }),
      item("error", { size: 500 }),
    ];
    const live = new Map([[items[2].id, { loaded: 1000, speed: 250 }]]);
    const summary = summarize(items, live);
    expect(summary).toMatchObject({ total: 5, completed: 1, errors: 1, active: 2, waiting: 1, speed: 350, bytes: 5000, finished: false });
    expect(summary.sentBytes).toBe(1000 + 300 + 1000);
  });

  it("has no speed when nothing uploads", () => {
    expect(summarize([item("completed"), item("waiting")]).speed).toBeNull();
    expect(summarize([]).finished).toBe(true);
  });
});

describe("folders of dropped files", () => {
  it("splits a relative path into its folders", () => {
    expect(splitRelativePath("Съёмка/День 1/a.mp4")).toEqual(["Съёмка", "День 1"]);
    expect(splitRelativePath("/docs/Прага/билет.pdf")).toEqual(["docs", "Прага"]);
    expect(splitRelativePath("a.mp4")).toEqual([]);
    expect(splitRelativePath("../x/./a.mp4")).toEqual(["x"]);
    expect(splitRelativePath(null)).toEqual([]);
  });

  it("plans each folder once, parents first", () => {
    expect(foldersToCreate([["A", "B"], ["A"], ["C"], [], ["A", "B", "D"]])).toEqual([["A"], ["C"], ["A", "B"], ["A", "B", "D"]]);
  });
});
