import { createRouter } from "../router";

/** Taxonomies (SPEC §7 Taxonomy). */
export const taxonomyRoutes = createRouter();
