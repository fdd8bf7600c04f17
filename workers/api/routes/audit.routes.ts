import { createRouter } from "../router";

/** The audit log for administrators. */
export const auditRoutes = createRouter();
