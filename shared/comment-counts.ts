/**
 * How many comments a file has and how many of them are still open (not resolved), as a tile shows them: shared by
 * the listings (folder members, collection items, search hits) and the browser. Replies count like any comment,
 * exactly as the viewer's «Комментарии (n)» tab counts them.
 */
export interface CommentCounts {
  total: number;
  open: number;
}

/** The counts of a listing row's `comments_total` / `comments_open` columns (absent columns read as none). */
export function commentCountsOf(row: { comments_total?: number | null; comments_open?: number | null }): CommentCounts {
  return { total: row.comments_total ?? 0, open: row.comments_open ?? 0 };
}
