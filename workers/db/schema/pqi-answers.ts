import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";
import { users } from "./users";

/**
 * Answers of the satisfaction survey (SPEC §4 "Survey"): a rating of 1 to 10, or 0 when the user refused it, and an
 * optional comment. Only ever appended; an answer keeps counting in the summary after its author is deleted.
 */
export const pqiAnswers = sqliteTable(
  "pqi_answers",
  {
    id: idColumn(),
    /** who answered; null once that account is deleted */
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    /** 1..10, 0 = refused */
    rating: integer("rating", { mode: "number" }).notNull(),
    comment: text("comment"),
  },
  (t) => [
    index("pqi_answers_ctime_idx").on(t.ctime),
    index("pqi_answers_user_idx").on(t.userId, t.ctime),
    check("pqi_answers_rating_range", sql`${t.rating} BETWEEN 0 AND 10`),
  ],
);

export type PqiAnswerRow = typeof pqiAnswers.$inferSelect;
