import { createRouter } from "../router";

/** Upload capability: upload-sign calls. */
export const uploadSignRoutes = createRouter();
