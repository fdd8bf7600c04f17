import type { CommentRow } from "../../db/repositories/comment.repository";

const text = (value: string) => JSON.stringify(value);

/**
 * A listed comment as JSON text: exactly `JSON.stringify` of the service's `CommentView` of the row (same keys, order
 * and values), written straight from the row. A file's list is up to thousands of comments: this skips an object per
 * comment, parsing its anchor and mentioned logins only to serialise them again, and the generic serialiser's walk.
 * `anchor` is the JSON the service stored after validating it, `mention_logins` the JSON array SQLite built in the
 * same statement; both go out as they are. The work stays in the Worker rather than in the database, which serves
 * every request of the product one query at a time.
 */
export function commentJson(row: CommentRow): string {
  return (
    `{"comment_id":${text(row.id)},"asset_id":${text(row.asset_id)},"version":${row.version},"author_id":${text(row.author_id)},` +
    `"author_name":${text(row.author_name ?? "")},"text":${text(row.text)},"anchor":${row.anchor ?? "null"},` +
    `"parent_id":${row.parent_id === null ? "null" : text(row.parent_id)},"resolved":${row.resolved === 1},` +
    `"mentions":${row.mention_logins},"ctime":"${new Date(row.ctime).toISOString()}","mtime":"${new Date(row.mtime).toISOString()}"}`
  );
}
