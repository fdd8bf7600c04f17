import { describe, expect, it } from "vitest";
import { uploadState, type UploadProgress } from "../../workers/services/library/pure";

/** The state GET /api/asset/versions lists for a version create-version made (issue 29). */
describe("uploadState", () => {
  const single: UploadProgress = { status: "pending", uploadId: null, partSize: null, progressAt: null };
  const multipart: UploadProgress = { status: "pending", uploadId: null, partSize: 16 * 1024 * 1024, progressAt: 1 };

  it.each([
    ["a single-form upload nobody started", single, "empty"],
    ["a single PUT streaming its bytes", { ...single, progressAt: 1 }, "uploading"],
    ["a multipart form not begun at the storage (its progress time is the creation's)", multipart, "empty"],
    ["a multipart upload begun (parts may be stored)", { ...multipart, uploadId: "u" }, "uploading"],
    ["a stored object being hashed", { ...multipart, uploadId: "u", status: "saving" }, "uploading"],
    ["a committed variant", { ...single, status: "ready" }, "ready"],
  ] as const)("%s: %s", (_name, progress, state) => {
    expect(uploadState(progress)).toBe(state);
  });
});
