import { describe, expect, it } from "vitest";
import { cancelPlan } from "../../app/lib/upload-engine/queue-rules";

/** Cancelling a queued new version must never delete the file it is a version of. */

const ASSET = "a".repeat(32);

describe("cancelPlan of a new-version item", () => {
  it("cancels the transfer but keeps the existing asset", () => {
    expect(cancelPlan({ status: "uploading", assetId: ASSET, versionOf: ASSET }, true)).toEqual({ cancelInEngine: true, deleteAsset: false });
    expect(cancelPlan({ status: "error", assetId: ASSET, versionOf: ASSET }, false)).toEqual({ cancelInEngine: false, deleteAsset: false });
  });

  it("still deletes the asset an ordinary upload created", () => {
    expect(cancelPlan({ status: "uploading", assetId: ASSET }, true)).toEqual({ cancelInEngine: true, deleteAsset: true });
  });
});
