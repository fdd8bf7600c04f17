import { API_VERSION, type RequestOptions } from "../api-client";
import { ApiError, errorMessage } from "../api-error";
import { encodeBody } from "../request-body";
import type { EngineCredentials } from "./engine";

/** How long a call refused with 401 waits for a tab to send a refreshed token (the tabs forward one every 3 s). */
const TOKEN_WAIT_MS = 20_000;

/**
 * The API client of the upload Service Worker. A worker has no localStorage and must not refresh the token itself
 * (two refreshes of one refresh token look like theft and end the session), so it sends what the tabs told it
 * (`init`, `token`, `idServer`) and, on a 401, waits for the next `token` message and tries once more.
 */
export class WorkerApi {
  #credentials: EngineCredentials = { bearer: null, serverId: null };
  readonly #tokenWaiters = new Set<() => void>();

  constructor(private readonly origin: string, private readonly tokenWaitMs = TOKEN_WAIT_MS) {}

  get credentials(): EngineCredentials {
    return this.#credentials;
  }

  setCredentials(next: Partial<EngineCredentials>): void {
    const changed = next.bearer !== undefined && next.bearer !== this.#credentials.bearer;
    this.#credentials = { ...this.#credentials, ...next };
    if (changed) for (const wake of [...this.#tokenWaiters]) wake();
  }

  async request<T>(path: string, options: RequestOptions = {}, credentials: EngineCredentials = this.#credentials): Promise<T> {
    const sentBearer = credentials.bearer;
    let response = await this.#send(path, options, credentials);
    if (response.status === 401 && (await this.#newToken(sentBearer))) response = await this.#send(path, options, this.#credentials);
    const body = await parseBody(response);
    if (!response.ok) throw new ApiError(response.status, body, errorMessage(response.status, body, response.statusText), response.headers);
    return body as T;
  }

  /** Resolves true once a token other than `stale` is known (maybe already), false after the wait. */
  #newToken(stale: string | null): Promise<boolean> {
    if (this.#credentials.bearer && this.#credentials.bearer !== stale) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#tokenWaiters.delete(wake);
        resolve(ok);
      };
      const wake = () => this.#credentials.bearer && this.#credentials.bearer !== stale && done(true);
      const timer = setTimeout(() => done(false), this.tokenWaitMs);
      this.#tokenWaiters.add(wake);
    });
  }

  #send(path: string, options: RequestOptions, credentials: EngineCredentials): Promise<Response> {
    const url = new URL(path, this.origin);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers = new Headers({ "x-api-version": API_VERSION, accept: "application/json" });
    if (credentials.bearer) headers.set("authorization", `Bearer ${credentials.bearer}`);
    if (credentials.serverId) headers.set("prefer-uldl-server", credentials.serverId);
    const { body, contentType } = encodeBody(options.body);
    if (contentType) headers.set("content-type", contentType);
    return fetch(url, {
      method: options.method ?? "GET",
      headers,
      body,
      credentials: "same-origin",
      signal: options.signal,
    });
  }
}

async function parseBody(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").includes("json")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
