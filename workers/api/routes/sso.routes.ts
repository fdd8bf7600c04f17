import { createRouter } from "../router";

/** OpenID Connect sign-in (SPEC §7 Auth sso, sso-cb). */
export const ssoRoutes = createRouter();
