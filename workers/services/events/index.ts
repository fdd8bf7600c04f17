/**
 * Events: recording global events into the outbox (decision 024) and what caused them; automations read the outbox,
 * nobody here calls them.
 *
 * The domain's public face (decision record 025): code outside workers/services/events/ imports only this file.
 */
export { MAX_CHAIN_DEPTH, causeOf, setCause } from "./cause";
export { EVENT_TRIGGERS, canTrigger } from "./event-triggers";
export type { TriggeringEventType } from "./event-triggers";
export { eventSql, eventStatement, listEvents } from "./events.service";
export type { GlobalEventInput } from "./events.service";
