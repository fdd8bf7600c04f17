import { and, asc, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../client";
import { assets } from "../schema/assets";
import { groups } from "../schema/groups";

/** What one user owns, for the administrator's user page: live (untrashed) folders by name and files newest first. */

export function ownedGroups(db: Database, opts: { ownerId: string; skip: number; take: number }) {
  return db
    .select({ id: groups.id, name: groups.name, mtime: groups.mtime })
    .from(groups)
    .where(and(eq(groups.ownerId, opts.ownerId), isNull(groups.deletedAt)))
    .orderBy(asc(groups.name), asc(groups.id))
    .limit(opts.take)
    .offset(opts.skip);
}

export function ownedAssets(db: Database, opts: { ownerId: string; skip: number; take: number }) {
  return db
    .select({ id: assets.id, name: assets.name, mime: assets.mime, mtime: assets.mtime, version: assets.latestVersion })
    .from(assets)
    .where(and(eq(assets.ownerId, opts.ownerId), isNull(assets.deletedAt)))
    .orderBy(desc(assets.mtime), desc(assets.id))
    .limit(opts.take)
    .offset(opts.skip);
}
