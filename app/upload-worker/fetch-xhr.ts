/**
 * The part of `XMLHttpRequest` that Uppy's `fetcher` (@uppy/core/utils, used by @uppy/aws-s3 for every S3 call)
 * needs, made of `fetch`: a Service Worker has no XMLHttpRequest. A request's body cannot report upload progress
 * through `fetch` (streaming request bodies need HTTP/2), so `upload.onprogress` fires once when the request has
 * been sent: the engine's progress moves per part (16 MiB) instead of per chunk.
 */
type Handler = ((event: ProgressEvent | Event) => void) | null;

const progressEvent = (loaded: number, total: number) =>
  ({ type: "progress", lengthComputable: total > 0, loaded, total } as unknown as ProgressEvent);

const bodySize = (body: unknown): number => {
  if (body instanceof Blob) return body.size;
  if (body instanceof ArrayBuffer) return body.byteLength;
  if (ArrayBuffer.isView(body)) return body.byteLength;
  if (typeof body === "string") return new TextEncoder().encode(body).byteLength;
  return 0;
};

export class FetchXMLHttpRequest {
  static readonly UNSENT = 0;
  static readonly OPENED = 1;
  static readonly HEADERS_RECEIVED = 2;
  static readonly LOADING = 3;
  static readonly DONE = 4;

  readyState = 0;
  status = 0;
  statusText = "";
  responseType: XMLHttpRequestResponseType = "";
  response: unknown = null;
  responseText = "";
  responseURL = "";
  withCredentials = false;
  timeout = 0;
  onload: Handler = null;
  onerror: Handler = null;
  onabort: Handler = null;
  onreadystatechange: Handler = null;
  readonly upload: { onprogress: Handler; addEventListener(type: string, listener: Handler): void } = {
    onprogress: null,
    addEventListener: (type, listener) => {
      if (type === "progress") this.upload.onprogress = listener;
    },
  };
  #method = "GET";
  #url = "";
  readonly #headers = new Headers();
  #responseHeaders = new Headers();
  #controller: AbortController | null = null;

  open(method: string, url: string): void {
    this.#method = method;
    this.#url = url;
    this.readyState = 1;
  }

  setRequestHeader(name: string, value: string): void {
    this.#headers.append(name, value);
  }

  getResponseHeader(name: string): string | null {
    return this.#responseHeaders.get(name);
  }

  getAllResponseHeaders(): string {
    return [...this.#responseHeaders].map(([name, value]) => `${name}: ${value}\r\n`).join("");
  }

  abort(): void {
    const controller = this.#controller;
    this.#controller = null;
    if (!controller) return;
    controller.abort();
    this.readyState = 4;
    this.status = 0;
    this.onabort?.(new Event("abort"));
  }

  send(body: BodyInit | null = null): void {
    const controller = new AbortController();
    this.#controller = controller;
    const total = bodySize(body);
    void fetch(this.#url, {
      method: this.#method,
      headers: this.#headers,
      body: this.#method === "GET" || this.#method === "HEAD" ? undefined : body,
      credentials: this.withCredentials ? "include" : "same-origin",
      signal: controller.signal,
    })
      .then(async (response) => {
        if (total > 0) this.upload.onprogress?.(progressEvent(total, total));
        this.#responseHeaders = response.headers;
        this.status = response.status;
        this.statusText = response.statusText;
        this.responseURL = response.url;
        this.responseText = await response.text();
        this.response = this.responseType === "json" ? safeJson(this.responseText) : this.responseText;
        if (this.#controller !== controller) return;
        this.#controller = null;
        this.readyState = 4;
        this.onreadystatechange?.(new Event("readystatechange"));
        this.onload?.(new Event("load"));
      })
      .catch(() => {
        if (this.#controller !== controller) return;
        this.#controller = null;
        this.readyState = 4;
        this.status = 0;
        this.onerror?.(new Event("error"));
      });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
