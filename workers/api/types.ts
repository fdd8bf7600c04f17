import type { Actor, RequestContext } from "../services/access";

/** Hono environment of the API: bindings plus what middleware puts on `c.var`. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    rc: RequestContext;
    actor: Actor;
  };
}
