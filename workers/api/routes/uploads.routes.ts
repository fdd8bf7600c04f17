import { createRouter } from "../router";

/** Upload capability: uploads calls. */
export const uploadsRoutes = createRouter();
