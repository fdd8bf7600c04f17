import { fetcher } from "@uppy/core/utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FetchXMLHttpRequest } from "../../app/upload-worker/fetch-xhr";

// The upload Service Worker's stand-in for XMLHttpRequest (workers have none): driven here by Uppy's own `fetcher`,
// which is what @uppy/aws-s3 sends every S3 call through.

afterEach(() => vi.unstubAllGlobals());

function fakeFetch(answer: (url: string, init: RequestInit) => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return answer(url, init);
  });
  vi.stubGlobal("XMLHttpRequest", FetchXMLHttpRequest);
  return calls;
}

describe("fetch-based XMLHttpRequest", () => {
  it("sends a part with its headers and reports its bytes once, and the ETag is readable", async () => {
    const calls = fakeFetch(() => new Response("", { status: 200, headers: { ETag: '"abc"' } }));
    const progress: [number, number][] = [];
    const body = new Blob([new Uint8Array(1_000)]);
    const xhr = await fetcher("https://mam.example/api/s3/media/k?partNumber=2", {
      method: "PUT",
      body,
      headers: { "Content-Type": "video/mp4", "x-amz-date": "20261126T000000Z" },
      onUploadProgress: (e) => progress.push([e.loaded, e.total]),
    });
    expect(xhr.status).toBe(200);
    expect(xhr.getResponseHeader("etag")).toBe('"abc"');
    expect(calls).toHaveLength(1);
    expect(calls[0].init.method).toBe("PUT");
    expect(calls[0].init.body).toBe(body);
    expect(new Headers(calls[0].init.headers).get("content-type")).toBe("video/mp4");
    expect(progress).toEqual([[1_000, 1_000]]);
  });

  it("answers the body text (the S3 XML of ListParts) and does not send a body with GET", async () => {
    const calls = fakeFetch(() => new Response("<ListPartsResult/>", { status: 200, headers: { "content-type": "application/xml" } }));
    const xhr = await fetcher("https://mam.example/api/s3/media/k?uploadId=u", { method: "GET" });
    expect(xhr.responseText).toBe("<ListPartsResult/>");
    expect(calls[0].init.body).toBeUndefined();
  });

  it("a 4xx rejects without retrying when told so, a network failure rejects after the retries", async () => {
    fakeFetch(() => new Response("<Error><Code>SignatureDoesNotMatch</Code></Error>", { status: 403, statusText: "Forbidden" }));
    await expect(fetcher("https://mam.example/x", { method: "PUT", body: "x", shouldRetry: (x) => x.status >= 500 })).rejects.toMatchObject(
      {
        request: expect.objectContaining({ status: 403 }),
      },
    );
    const calls = fakeFetch(() => Promise.reject(new TypeError("Failed to fetch")));
    await expect(fetcher("https://mam.example/x", { method: "PUT", body: "x", retries: 1 })).rejects.toBeTruthy();
    expect(calls).toHaveLength(2);
  });

  it("an abort stops the request and rejects as AbortError, without a load", async () => {
    fakeFetch(
      (_url, init) =>
        new Promise((_, reject) => init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))),
    );
    const controller = new AbortController();
    const pending = fetcher("https://mam.example/x", { method: "PUT", body: "x", signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });
});
