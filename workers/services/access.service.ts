import { ru } from "../../app/i18n/ru";
import { AppError } from "../lib/errors";
import type { Actor, RequestContext } from "./context";

/** The ten access levels of SPEC §6, in the order the admin screens list them. */
export const ACCESS_LEVELS = ["deny", "read", "update", "create", "delete", "acl", "group", "superuser", "download", "execute"] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export const ACCESS_LEVEL_TITLES: Record<AccessLevel, string> = {
  deny: "Запрет доступа",
  read: "Просмотр",
  update: "Изменение",
  create: "Создание",
  delete: "Удаление",
  acl: "Управление правами",
  group: "Управление группами",
  superuser: "Полный доступ",
  download: "Скачивание",
  execute: "Запуск задач",
};

/** What an access decision needs to know about the entity. */
export interface AccessTarget {
  ownerId: string | null;
}

/**
 * The one access decision of the product. Admins may do everything, owners everything on what they own; rules for
 * users and their groups (with inheritance and `deny`) are added by the access-control capability.
 */
export function can(actor: Actor, target: AccessTarget, _level: AccessLevel): boolean {
  return actor.isAdmin || (target.ownerId != null && target.ownerId === actor.id);
}

/**
 * Throws unless the actor holds `level` on the target: 404 when the actor may not even read it (its existence must
 * not leak), 403 when it may read it but not do this. `notFound` is the 404 message (e.g. 'Группа не найдена').
 */
export function requireAccess(actor: Actor, target: AccessTarget, level: AccessLevel, notFound: string): void {
  if (can(actor, target, level)) return;
  if (level !== "read" && can(actor, target, "read")) throw new AppError("FORBIDDEN", ru.errors.forbidden);
  throw new AppError("NOT_FOUND", notFound);
}

/** An entity as access decisions see it. */
export interface AccessEntity {
  id: string;
  type: "asset" | "group" | "user" | "task" | "workflow";
  ownerId: string | null;
}

/**
 * The access decision for one entity, asynchronous because rules live in D1: new code calls this (and
 * `requireEntityAccess`), never `can` directly.
 */
export async function canAccess(_rc: RequestContext, actor: Actor, entity: AccessEntity, level: AccessLevel): Promise<boolean> {
  return can(actor, entity, level);
}

/** `requireAccess` for one entity: 404 when the actor may not read it, 403 when it may read but not do this. */
export async function requireEntityAccess(
  rc: RequestContext,
  actor: Actor,
  entity: AccessEntity,
  level: AccessLevel,
  notFound: string,
): Promise<void> {
  if (await canAccess(rc, actor, entity, level)) return;
  if (level !== "read" && (await canAccess(rc, actor, entity, "read"))) throw new AppError("FORBIDDEN", ru.errors.forbidden);
  throw new AppError("NOT_FOUND", notFound);
}

/**
 * The owner filter that list queries put into SQL so paging stays correct: null for administrators (everything),
 * otherwise the actor's id (their own entities). The access-control capability replaces this with rule-based SQL.
 */
export function visibleOwner(actor: Actor): string | null {
  return actor.isAdmin ? null : actor.id;
}

/** Abilities the UI uses to decide what to show; the API enforces each one independently. */
export function userAbilities(actor: Actor) {
  return {
    is_admin: actor.isAdmin,
    abilities: {
      browse: true,
      createGroups: !actor.isRobot,
      viewJobs: true,
      manageAutomations: actor.isAdmin,
      manageMetadata: actor.isAdmin,
      manageUsers: actor.isAdmin,
      manageAccess: actor.isAdmin,
    },
  };
}
