import { createRouter } from "../router";

/** Access rules and access reads (SPEC §6, §7 Auth entity-access calls and Users acl calls). */
export const accessRoutes = createRouter();
