export * from "./users";
export * from "./sessions";
export * from "./one-time-tokens";
export * from "./groups";
export * from "./group-closure";
export * from "./group-members";
