import type { Context } from "hono";
import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import { ru } from "../../shared/i18n/ru";
import { knownPlaceOfId, openLibraryShard, placeOfId } from "../db/library-directory";
import { callShard, type ShardAnswer } from "../db/library-shard-call";
import { readCallerCopy, type CallerCopy } from "../db/repositories/caller-copy.repository";
import { AppError } from "../lib/errors";
import type { AppEnv } from "./types";

type Shard = Pick<LibraryShardDO, "asset" | "membersPage">;

/**
 * A read of one folder or file, answered where its library lives (decision 043): in the Worker over the catalog, or —
 * once its library is in a shard — by one call to that shard, which runs the same service against its own database
 * with the caller's row and groups riding along. What the caller may see is decided inside the shard by the same
 * access rules. The catalog's copy of a switched library stays until routing covers writes too, so both answer alike;
 * the shard's answer is the one that will stay.
 */
export async function readWhereItLives<T>(
  c: Context<AppEnv>,
  id: string,
  here: () => Promise<T>,
  there: (shard: Shard, caller: CallerCopy) => Promise<ShardAnswer<T>>,
): Promise<T> {
  const known = knownPlaceOfId(id);
  if (known && known.place !== "shard") return here();
  // Not known to this isolate: the catalog's read starts with the directory's lookup, so a library still in the
  // catalog (every one, until the first move) pays no extra round trip; the directory's answer picks which stands.
  const local = known ? null : here();
  local?.catch(() => undefined);
  const place = known ?? (await placeOfId(c.var.rc.db.$client, id));
  if (place.place !== "shard") return local ?? here();
  const [shard, caller] = await Promise.all([openLibraryShard(c.env, place), readCallerCopy(c.var.rc.db, c.var.actor.id)]);
  if (!caller) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  return callShard(place.name, () => there(shard as unknown as Shard, caller));
}
