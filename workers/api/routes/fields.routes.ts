import { createRouter } from "../router";

/** Field templates and entity field values (SPEC §7 Fields). */
export const fieldsRoutes = createRouter();
