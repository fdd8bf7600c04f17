import { useSearchParams } from "@remix-run/react";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { ru } from "../../i18n/ru";
import * as api from "../../lib/comments-api";
import { formatDateTime } from "../../lib/format";
import { isTypingTarget, overlayOpen } from "../../lib/keyboard";
import { mediaKind } from "../../lib/media-kind";
import { useCurrentUser } from "../../lib/use-current-user";
import { RegionLayer } from "./region-layer";
import { TimeMarkers } from "./time-markers";

type Tab = "info" | "comments";

/**
 * The viewer's side panel as two tabs, «Сведения» (the file's info, given as children) and «Комментарии (n)»: the
 * threads of the file with their regions drawn on the picture, their moments on the timeline and their pages; a
 * composer that pins a comment to a dragged region, the current moment (C) or a page; «Следить».
 */
export function CommentsAside({ assetId, mime, media, children }: { assetId: string; mime: string; media: HTMLMediaElement | null; children: ReactNode }) {
  const [params] = useSearchParams();
  const linked = params.get("comment");
  const [tab, setTab] = useState<Tab>(linked ? "comments" : "info");
  const [list, setList] = useState<api.CommentList | null>(null);
  const load = useCallback(() => void api.listComments(assetId).then(setList, () => setList({ total: 0, following: false, latest_version: 0, items: [] })), [assetId]);
  useEffect(load, [load]);
  const count = list?.total ?? 0;
  return (
    <>
      <div className="aside-tabs" role="tablist" aria-label={ru.commentsUi.tabInfo}>
        <button type="button" role="tab" id="tab-info" aria-selected={tab === "info"} aria-controls="tabpanel-info" onClick={() => setTab("info")}>
          {ru.commentsUi.tabInfo}
        </button>
        <button
          type="button"
          role="tab"
          id="tab-comments"
          aria-selected={tab === "comments"}
          aria-controls="tabpanel-comments"
          onClick={() => setTab("comments")}
          data-testid="comments-tab"
        >
          {ru.commentsUi.tabComments(count)}
        </button>
      </div>
      <div role="tabpanel" id="tabpanel-info" aria-labelledby="tab-info" hidden={tab !== "info"}>
        {children}
      </div>
      <div role="tabpanel" id="tabpanel-comments" aria-labelledby="tab-comments" hidden={tab !== "comments"}>
        <CommentsPanel
          assetId={assetId}
          mime={mime}
          media={media}
          list={list}
          reload={load}
          active={tab === "comments"}
          linked={linked}
          linkedTime={params.get("t")}
          onWantComments={() => setTab("comments")}
        />
      </div>
    </>
  );
}

/** The comments with their replies right after them (any depth), in the list's oldest-first order. */
function threaded(items: api.CommentItem[]): { item: api.CommentItem; depth: number }[] {
  const byParent = new Map<string | null, api.CommentItem[]>();
  const ids = new Set(items.map((c) => c.comment_id));
  for (const c of items) {
    const parent = c.parent_id && ids.has(c.parent_id) ? c.parent_id : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), c]);
  }
  const out: { item: api.CommentItem; depth: number }[] = [];
  // Depth is bounded by the number of comments: each is visited once.
  const walk = (parent: string | null, depth: number) => {
    for (const c of byParent.get(parent) ?? []) {
      out.push({ item: c, depth });
      walk(c.comment_id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

function anchorLabel(a: api.Anchor | null, draft = false): string | null {
  if (!a) return null;
  const parts: string[] = [];
  if (a.time) parts.push(ru.commentsUi.atMoment(api.formatMoment(a.time.start) + (a.time.end !== undefined ? `–${api.formatMoment(a.time.end)}` : "")));
  if (a.page) parts.push(ru.commentsUi.atPage(a.page));
  if (a.region) parts.push(draft ? ru.commentsUi.regionSet.toLowerCase() : ru.commentsUi.regionMark);
  const label = parts.join(", ");
  return label ? label[0].toUpperCase() + label.slice(1) : null;
}

function CommentsPanel({
  assetId,
  mime,
  media,
  list,
  reload,
  active,
  linked,
  linkedTime,
  onWantComments,
}: {
  assetId: string;
  mime: string;
  media: HTMLMediaElement | null;
  list: api.CommentList | null;
  reload: () => void;
  active: boolean;
  linked: string | null;
  linkedTime: string | null;
  onWantComments: () => void;
}) {
  const me = useCurrentUser();
  const kind = mediaKind(mime);
  const timed = kind === "video" || kind === "audio";
  const paged = mime === "application/pdf";
  const drawable = kind === "image" || paged;
  const [text, setText] = useState("");
  const [anchor, setAnchor] = useState<api.Anchor | null>(null);
  const [drawing, setDrawing] = useState(false);
  const [replyTo, setReplyTo] = useState<api.CommentItem | null>(null);
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<string | null>(linked);
  const [following, setFollowing] = useState<boolean | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => setFollowing(list?.following ?? null), [list?.following]);
  const rows = useMemo(() => threaded(list?.items ?? []), [list]);
  // Pins are numbered in the order their comments were written.
  const pins = useMemo(() => {
    let n = 0;
    const out = new Map<string, number>();
    for (const c of list?.items ?? []) if (c.anchor?.region) out.set(c.comment_id, ++n);
    return out;
  }, [list]);

  // A link to one comment: show it, and go to its moment.
  useEffect(() => {
    if (!linked || !list) return;
    document.getElementById(`comment-${linked}`)?.scrollIntoView({ block: "nearest" });
    const c = list.items.find((i) => i.comment_id === linked);
    const t = c?.anchor?.time?.start ?? (linkedTime ? Number(linkedTime) : NaN);
    if (media && Number.isFinite(t)) media.currentTime = t;
  }, [linked, linkedTime, list, media]);

  // C: a comment at the current moment of the video or audio.
  useEffect(() => {
    if (!timed) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "c" && e.key !== "C" && e.key !== "с" && e.key !== "С") return;
      if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target) || overlayOpen() || !media) return;
      e.preventDefault();
      media.pause();
      setAnchor({ time: { start: Math.round(media.currentTime * 10) / 10 } });
      onWantComments();
      requestAnimationFrame(() => box.current?.focus());
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [timed, media, onWantComments]);

  const submit = async () => {
    if (!text.trim() || busy) return;
    setBusy(true);
    try {
      await api.postComment(assetId, { text, ...(anchor ? { anchor } : {}), ...(replyTo ? { parent_id: replyTo.comment_id } : {}) });
      setText("");
      setAnchor(null);
      setReplyTo(null);
      reload();
    } catch {
      // the API client has shown the reason
    } finally {
      setBusy(false);
    }
  };

  const seek = (c: api.CommentItem) => {
    setSelected(c.comment_id);
    if (media && c.anchor?.time) media.currentTime = c.anchor.time.start;
  };

  return (
    <div className="comments-panel">
      <div className="comments-head">
        <button
          type="button"
          className={following ? "btn btn-primary" : "btn"}
          aria-pressed={following ?? false}
          title={ru.commentsUi.followHint}
          disabled={following === null}
          onClick={() => {
            const next = !following;
            void api.setFollow(assetId, next).then(() => setFollowing(next), () => undefined);
          }}
        >
          {following ? ru.commentsUi.following : ru.commentsUi.follow}
        </button>
        {timed && <span className="muted small">{ru.commentsUi.momentKey}</span>}
      </div>
      {list === null ? (
        <div className="muted">{ru.commentsUi.loading}</div>
      ) : rows.length === 0 ? (
        <div className="muted">{ru.commentsUi.empty}</div>
      ) : (
        <ol className="comment-list" data-testid="comment-list">
          {rows.map(({ item: c, depth }) => (
            <li
              key={c.comment_id}
              id={`comment-${c.comment_id}`}
              className={`comment${c.resolved ? " resolved" : ""}${selected === c.comment_id ? " selected" : ""}`}
              style={{ marginLeft: Math.min(depth, 4) * 16 }}
            >
              <div className="comment-meta">
                {pins.has(c.comment_id) && (
                  <button type="button" className="pin-badge" aria-label={ru.commentsUi.showPin} onClick={() => setSelected(c.comment_id)}>
                    {pins.get(c.comment_id)}
                  </button>
                )}
                <strong>{c.author_name}</strong>
                <span className="muted small">{formatDateTime(c.ctime)}</span>
                {list.latest_version > 0 && c.version < list.latest_version && <span className="chip small">{ru.commentsUi.toVersion(c.version)}</span>}
                {c.resolved && <span className="chip small">{ru.commentsUi.resolved}</span>}
              </div>
              {anchorLabel(c.anchor) &&
                (c.anchor?.time ? (
                  <button type="button" className="link-btn small" onClick={() => seek(c)}>
                    {anchorLabel(c.anchor)}
                  </button>
                ) : (
                  <span className="muted small">{anchorLabel(c.anchor)}</span>
                ))}
              {/* Plain text: React escapes it, line breaks kept by CSS; never rendered as markup. */}
              <p className="comment-text">{c.text}</p>
              <div className="comment-actions">
                <button type="button" className="link-btn small" onClick={() => (setReplyTo(c), box.current?.focus())}>
                  {ru.commentsUi.reply}
                </button>
                <button
                  type="button"
                  className="link-btn small"
                  onClick={() => void api.resolveComment(c.comment_id, !c.resolved).then(reload, () => undefined)}
                >
                  {c.resolved ? ru.commentsUi.reopen : ru.commentsUi.resolve}
                </button>
                {me?.id === c.author_id && (
                  <button
                    type="button"
                    className="link-btn small danger"
                    onClick={() => window.confirm(ru.commentsUi.removeConfirm) && void api.deleteComment(c.comment_id).then(reload, () => undefined)}
                  >
                    {ru.commentsUi.remove}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ol>
      )}
      <form
        className="comment-composer"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {replyTo && (
          <div className="composer-chip">
            {ru.commentsUi.replyTo(replyTo.author_name)}
            <button type="button" className="link-btn small" onClick={() => setReplyTo(null)}>
              {ru.commentsUi.cancel}
            </button>
          </div>
        )}
        {anchor && (
          <div className="composer-chip" data-testid="composer-anchor">
            {anchorLabel(anchor, true)}
            <button type="button" className="link-btn small" onClick={() => setAnchor(null)}>
              {ru.commentsUi.clearAnchor}
            </button>
          </div>
        )}
        <textarea
          ref={box}
          className="input"
          rows={3}
          maxLength={10_000}
          placeholder={ru.commentsUi.placeholder}
          aria-label={ru.commentsUi.placeholder}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void submit();
          }}
          data-testid="comment-text"
        />
        <div className="composer-row">
          {drawable && (
            <button type="button" className={drawing ? "btn btn-primary" : "btn"} aria-pressed={drawing} onClick={() => setDrawing(!drawing)} data-testid="draw-region">
              {ru.commentsUi.drawRegion}
            </button>
          )}
          {paged && (
            <label className="small">
              {ru.commentsUi.pageLabel}{" "}
              <input
                className="input page-input"
                type="number"
                min={1}
                value={anchor?.page ?? ""}
                onChange={(e) => {
                  const n = Number(e.target.value);
                  setAnchor(n >= 1 ? { ...(anchor ?? {}), page: Math.floor(n) } : anchor?.region ? { region: anchor.region } : null);
                }}
              />
            </label>
          )}
          <button type="submit" className="btn btn-primary" disabled={busy || !text.trim()} data-testid="comment-send">
            {ru.commentsUi.send}
          </button>
        </div>
        {drawing && <div className="muted small">{ru.commentsUi.drawHint}</div>}
      </form>
      {drawable && (
        <RegionLayer
          active={active}
          drawing={drawing}
          pins={(list?.items ?? []).flatMap((c) => (c.anchor?.region && pins.has(c.comment_id) ? [{ id: c.comment_id, n: pins.get(c.comment_id)!, region: c.anchor.region }] : []))}
          draft={anchor?.region ?? null}
          selected={selected}
          onSelect={(id) => {
            setSelected(id);
            onWantComments();
            document.getElementById(`comment-${id}`)?.scrollIntoView({ block: "nearest" });
          }}
          onDrawn={(region) => {
            setDrawing(false);
            setAnchor({ ...(anchor?.page ? { page: anchor.page } : {}), region });
            onWantComments();
            requestAnimationFrame(() => box.current?.focus());
          }}
        />
      )}
      {timed && media && (
        <TimeMarkers
          media={media}
          marks={(list?.items ?? []).flatMap((c) => (c.anchor?.time ? [{ id: c.comment_id, start: c.anchor.time.start, text: c.text }] : []))}
          onSeek={(id, t) => {
            media.currentTime = t;
            setSelected(id);
            onWantComments();
            document.getElementById(`comment-${id}`)?.scrollIntoView({ block: "nearest" });
          }}
        />
      )}
    </div>
  );
}
