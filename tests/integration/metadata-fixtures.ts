import { expect } from "vitest";
import { newId } from "../../workers/lib/ids";
import { call } from "./factories";

/** Helpers of the metadata tests (fields, taxonomies, lists): JSON calls that must succeed, and templates. */

export async function ok<T>(path: string, bearer: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const res = await call(path, { method: init.method ?? (init.json === undefined ? "GET" : "POST"), bearer, json: init.json });
  const body = await res.json();
  expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(200);
  return body as T;
}

export interface Template {
  field_def_id: string;
  field_type: string;
  field_setup: Record<string, unknown>;
  field_def_name: string;
  field_priority: number;
  field_def_extsys: string | null;
  field_def_extsys_key: string | null;
}

export interface Value {
  field_id: string;
  entity_id: string;
  entity_type: string;
  def_id: string;
  asset_version: number | null;
  asset_version_id: string | null;
  pts: [number, number] | null;
  field_data: unknown;
}

/** Creates a template as the administrator; the name is unique per call. */
export function createTemplate(
  adminBearer: string,
  field_type: string,
  field_setup: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<Template> {
  return ok<Template>("/api/fields/template", adminBearer, {
    json: { field_def_name: `Поле ${field_type} ${newId().slice(-8)}`, field_type, field_setup, ...extra },
  });
}

export function createValue(bearer: string, entityId: string, json: Record<string, unknown>): Promise<Value> {
  return ok<Value>(`/api/fields/create/${entityId}`, bearer, { json: { asset_version_id: null, ...json } });
}
