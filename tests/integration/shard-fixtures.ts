import type { CallerCopy } from "../../workers/db/repositories/caller-copy.repository";
import type { Actor } from "../../workers/services/access/context";

/** The copy a request would read from the global database for `actor`, a member of `groups` (decision 043). */
export function callerCopyOf(actor: Actor, groups: string[] = []): CallerCopy {
  return {
    user: {
      id: actor.id,
      login: actor.login,
      name: actor.name,
      isAdmin: actor.isAdmin,
      isRobot: actor.isRobot,
      enabled: true,
      chrootGroups: [],
      ctime: 0,
      mtime: 0,
    },
    groups,
  };
}
