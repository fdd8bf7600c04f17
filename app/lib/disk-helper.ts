import { useRouteLoaderData } from "@remix-run/react";
import type { HelperStatus, MountStatus } from "../../helper/schemas";
import type { loader as rootLoader } from "../root";
import { ru } from "../i18n/ru";
import { ensureFreshAccessToken } from "./api-client";
import { rememberDiskHelper } from "./disk-helper-token";
import { readTokens } from "./tokens";

/**
 * The page's side of the local disk helper (helper/, decision 023): it runs on the user's computer at
 * DISK_HELPER_URL (SPEC §9: http://127.0.0.1:18981) and answers only this app's origin. The page hands it the user's
 * token (POST /token), then asks for a mount (POST /mount); the access token lives 15 minutes, so every refreshed
 * token is handed over again while a helper has been used from this browser.
 */


/** A refusal of the helper, or the helper not answering at all (`unreachable`). */
export class DiskHelperError extends Error {
  readonly unreachable: boolean;
  constructor(message: string, unreachable: boolean) {
    super(message);
    this.name = "DiskHelperError";
    this.unreachable = unreachable;
  }
}

async function call<T>(base: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? undefined : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      // A stopped helper must not leave the dialog waiting.
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new DiskHelperError(ru.diskHelper.unreachable, true);
  }
  const json = (await res.json().catch(() => null)) as (T & { message?: string }) | null;
  if (!res.ok) throw new DiskHelperError(json?.message ?? ru.errors.http(res.status, res.statusText), false);
  return json as T;
}

/** GET /status: the helper's version, user and mounts. */
export function helperStatus(base: string): Promise<HelperStatus> {
  return call<HelperStatus>(base, "/status");
}

/** Hands the current token over, then mounts the folder as `name` under the helper's root. */
export async function mountOnDisk(base: string, groupId: string, name: string): Promise<MountStatus> {
  await ensureFreshAccessToken();
  const bearer = readTokens().bearer;
  if (!bearer) throw new DiskHelperError(ru.errors.unknown, false);
  await call<HelperStatus>(base, "/token", { token: bearer });
  rememberDiskHelper(base);
  return call<MountStatus>(base, "/mount", { group_id: groupId, name });
}

/** Where the helper listens (DISK_HELPER_URL from the root loader; SPEC §9's port by default). */
export function useDiskHelperUrl(): string {
  return useRouteLoaderData<typeof rootLoader>("root")?.diskHelperUrl ?? "http://127.0.0.1:18981";
}
