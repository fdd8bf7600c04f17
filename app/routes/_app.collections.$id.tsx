import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useNavigate } from "@remix-run/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { CollectionShareDialog } from "../components/collections/collection-share-dialog";
import { CollectionMap } from "../components/map/collection-map";
import { Icon } from "../components/icons";
import { MemberGrid, MemberList } from "../components/member-views";
import { BulkFieldButton, BulkFieldDialog } from "../components/metadata/bulk-field-dialog";
import { MetadataCsvActions } from "../components/metadata/metadata-csv-actions";
import { ZipDownloadButton } from "../components/zip-download-button";
import { ConfirmDialog, NameDialog } from "../components/modal";
import { MoveDialog } from "../components/move-dialog";
import { RouteErrorPage } from "../components/route-error-page";
import { TagDialog } from "../components/tag-dialog";
import { UnavailablePage } from "../components/unavailable-page";
import { ru } from "../i18n/ru";
import * as api from "../lib/collections-api";
import { isTypingTarget, overlayOpen } from "../lib/keyboard";
import * as lib from "../lib/library-api";
import { selectRange, toggleOne } from "../lib/selection";
import { requireActor } from "../lib/session.server";
import { showToast } from "../lib/toast";
import { usePersistentState } from "../lib/use-persistent-state";
import { ID_PATTERN } from "../../workers/lib/ids";

export const meta: MetaFunction = () => [{ title: `${ru.collections.title} — ${ru.app.name}` }];

export async function loader({ params, request, context }: LoaderFunctionArgs) {
  if (!ID_PATTERN.test(params.id ?? "")) throw new Response(ru.collections.notFound, { status: 404 });
  await requireActor(request, context);
  return { collectionId: params.id! };
}

const PAGE = 100;

/** A collection item in the shape the folder grid and list draw (a file member). */
function asMember(item: api.ItemsPage["items"][number]): lib.GroupMember {
  return {
    el_id: item.asset_id,
    el_type: "asset",
    el_info: {
      name: item.name,
      mimetype: item.mimetype,
      ctime: item.ctime,
      mtime: item.mtime,
      ver: item.ver,
      var: item.var,
      var_size: item.var_size,
      var_hash: null,
      owner: item.owner,
      owner_name: item.owner_name,
      preview: item.preview,
      tags: [],
      review_status: item.review_status,
      comments: item.comments,
    },
  };
}

type Dialog =
  | { kind: "rename" }
  | { kind: "delete" }
  | { kind: "share" }
  | { kind: "tags"; ids: string[] }
  | { kind: "fields"; ids: string[] }
  | { kind: "copy"; ids: string[] }
  | { kind: "move"; ids: string[] }
  | { kind: "remove"; ids: string[] };

/** The items of a collection: the same grid, list, selection and keyboard as a folder, in the collection's order. */
export default function CollectionRoute() {
  const { collectionId } = useLoaderData<typeof loader>();
  const [info, setInfo] = useState<api.CollectionInfo | null | "missing">(null);
  useEffect(() => {
    let current = true;
    setInfo(null);
    api.getCollection(collectionId).then(
      (c) => current && setInfo(c),
      () => current && setInfo("missing"),
    );
    return () => {
      current = false;
    };
  }, [collectionId]);
  if (info === null) return <div className="muted">{ru.common.loading}</div>;
  if (info === "missing") return <UnavailablePage title={ru.collections.notFound} hint={ru.collections.notFoundHint} />;
  return <CollectionContents key={collectionId} initial={info} />;
}

function CollectionContents({ initial }: { initial: api.CollectionInfo }) {
  const navigate = useNavigate();
  const [info, setInfo] = useState(initial);
  const id = info.collection_id;
  const [view, setView] = usePersistentState<"grid" | "list">("mamView", "grid");
  const [mapOn, setMapOn] = useState(false);
  const [items, setItems] = useState<lib.GroupMember[]>([]);
  const [hidden, setHidden] = useState(0);
  const [total, setTotal] = useState(0);
  const [complete, setComplete] = useState(false);
  const [loading, setLoading] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const anchor = useRef<string | null>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  const loaded = useRef(0);
  const mayEdit = info.role === "owner" || info.role === "admin" || info.role === "edit";
  const mayManage = info.role === "owner" || info.role === "admin";

  const loadMore = useCallback(
    async (reset = false) => {
      if (loading && !reset) return;
      setLoading(true);
      try {
        const skip = reset ? 0 : loaded.current;
        const page = await api.collectionItems(id, skip, PAGE);
        const members = page.items.map(asMember);
        loaded.current = skip + members.length;
        setItems((old) => (reset ? members : [...old, ...members]));
        setHidden(page.hidden);
        setTotal(page.total);
        setComplete(loaded.current >= page.total || members.length < PAGE);
      } catch {
        setComplete(true);
      } finally {
        setLoading(false);
      }
    },
    [id, loading],
  );
  const reload = useCallback(() => {
    setSelected(new Set());
    void loadMore(true);
    api.getCollection(id).then(setInfo, () => undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id]);
  useEffect(reload, [reload]);

  useEffect(() => {
    const el = sentinel.current;
    if (!el || complete) return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && void loadMore());
    observer.observe(el);
    return () => observer.disconnect();
  }, [loadMore, complete]);

  const ids = useMemo(() => items.map((m) => m.el_id), [items]);
  useEffect(() => {
    // Ctrl+A (⌘A) selects every loaded item, Esc clears the selection, as in a folder.
    const onKey = (e: KeyboardEvent) => {
      if (dialog || overlayOpen() || isTypingTarget(e.target)) return;
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "a") {
        e.preventDefault();
        setSelected(new Set(ids));
      } else if (e.key === "Escape" && selected.size > 0) {
        setSelected(new Set());
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [dialog, ids, selected.size]);

  /** Copies or moves each file with the caller's own rights on it; refusals are counted, the rest goes on. */
  async function perFile(list: string[], target: string, move: boolean) {
    let done = 0;
    let refused = 0;
    for (const assetId of list) {
      try {
        if (move) {
          const groups = await lib.assetGroups(assetId);
          const from = groups[0]?.group_id;
          if (!from) throw new Error("unfiled");
          if (from !== target) await lib.moveMembers(from, target, [assetId]);
        } else {
          await lib.copyAsset(assetId, target);
        }
        done += 1;
      } catch {
        refused += 1;
      }
    }
    showToast({
      title: move ? ru.collections.moveTo : ru.collections.copyTo,
      message: refused ? ru.collections.partly(done, refused) : move ? ru.collections.moved(done) : ru.collections.copied(done),
    });
  }

  const reorder = (dragged: string[], beforeId: string) => {
    if (!mayEdit) return;
    const rest = ids.filter((x) => !dragged.includes(x));
    const at = rest.indexOf(beforeId);
    const order = [...rest.slice(0, at), ...dragged, ...rest.slice(at)];
    setItems((old) => order.map((x) => old.find((m) => m.el_id === x)!).filter(Boolean));
    // The loaded items in their new order, before the rest (at most the API's maximum per call).
    void api.reorderCollection(id, order.slice(0, api.MAX_IDS_PER_CALL)).catch(reload);
  };

  const editRefusal = mayEdit ? null : ru.collections.editOnly;
  const viewProps = {
    groupId: id,
    items,
    selected,
    onToggle: (x: string) => setSelected((s) => toggleOne(s, x)),
    onPick: (x: string, range: boolean) => {
      if (range && anchor.current) setSelected((s) => selectRange(ids, s, anchor.current, x));
      else {
        anchor.current = x;
        setSelected((s) => toggleOne(s, x));
      }
    },
    refusal: (_m: lib.GroupMember, action: string) => (action === "delete" ? editRefusal : action === "rename" ? ru.collections.readOnly : null),
    hrefOf: (m: lib.GroupMember) => `/asset/${m.el_id}?collection=${id}`,
    onRename: () => undefined,
    onMove: (m: lib.GroupMember) => setDialog({ kind: "move", ids: [m.el_id] }),
    onDelete: (m: lib.GroupMember) => setDialog({ kind: "remove", ids: [m.el_id] }),
    onDropInto: () => undefined,
    onReorder: mayEdit ? reorder : undefined,
  };
  const chosen = [...selected];

  return (
    <div className="group-page collection-page" data-testid="collection-page">
      <div className="access-entry">
        <div className="coll-view-switch">
          <button
            type="button"
            className={`icon-btn${!mapOn && view === "grid" ? " active" : ""}`}
            aria-label={ru.library.gridView}
            onClick={() => {
              setMapOn(false);
              setView("grid");
            }}
          >
            <Icon name="grid" size={16} />
          </button>
          <button
            type="button"
            className={`icon-btn${!mapOn && view === "list" ? " active" : ""}`}
            aria-label={ru.library.listView}
            onClick={() => {
              setMapOn(false);
              setView("list");
            }}
          >
            <Icon name="list" size={16} />
          </button>
          <button
            type="button"
            className={`icon-btn${mapOn ? " active" : ""}`}
            aria-label={ru.mapView.tab}
            aria-pressed={mapOn}
            title={ru.mapView.tab}
            onClick={() => setMapOn(true)}
            data-testid="collection-map-toggle"
          >
            <Icon name="map" size={16} />
          </button>
        </div>
        <span className="chip">{ru.collections.roleOf[info.role]}</span>
        {info.owner_name && info.role !== "owner" && <span className="muted">{ru.collections.owner(info.owner_name)}</span>}
        <button type="button" className="btn btn-ghost" onClick={() => setDialog({ kind: "share" })} data-testid="collection-share">
          <Icon name="share" size={16} />
          {ru.collections.share}
        </button>
        {mayEdit && (
          <button type="button" className="btn btn-ghost" onClick={() => setDialog({ kind: "rename" })}>
            <Icon name="edit" size={16} />
            {ru.collections.rename}
          </button>
        )}
        {total > 0 && (
          <>
            <ZipDownloadButton assetIds={[]} groupIds={[]} collectionId={id} className="btn btn-ghost" testId="collection-zip" />
            <MetadataCsvActions source={{ collection_id: id }} name={info.name} />
          </>
        )}
        {mayManage && (
          <button type="button" className="btn btn-danger-outline" onClick={() => setDialog({ kind: "delete" })}>
            <Icon name="trash" size={16} />
            {ru.collections.delete}
          </button>
        )}
      </div>
      <div className="group-toolbar coll-toolbar">
        <div>
          <h1 className="page-title" data-testid="collection-title">
            {info.name}
          </h1>
          {info.description && <p className="muted">{info.description}</p>}
          <p className="muted" data-testid="collection-count">
            {ru.collections.count(total)}
            {mayEdit && items.length > 1 && !mapOn ? ` · ${ru.collections.reorderHint}` : ""}
          </p>
        </div>
      </div>
      {selected.size > 0 && (
        <div className="bulk-bar coll-bulk" role="toolbar" aria-label={ru.library.selected(selected.size)}>
          <span>{ru.library.selected(selected.size)}</span>
          <button type="button" className="btn" onClick={() => setDialog({ kind: "tags", ids: chosen })}>
            <Icon name="tag" size={16} />
            {ru.library.tags}
          </button>
          <BulkFieldButton onClick={() => setDialog({ kind: "fields", ids: chosen })} />
          <ZipDownloadButton assetIds={chosen} groupIds={[]} collectionId={id} testId="collection-zip-selected" />
          <button type="button" className="btn" onClick={() => setDialog({ kind: "copy", ids: chosen })}>
            <Icon name="copy" size={16} />
            {ru.collections.copyTo}
          </button>
          <button type="button" className="btn" onClick={() => setDialog({ kind: "move", ids: chosen })}>
            <Icon name="move" size={16} />
            {ru.collections.moveTo}
          </button>
          {mayEdit && (
            <button type="button" className="btn btn-danger-outline" onClick={() => setDialog({ kind: "remove", ids: chosen })} data-testid="collection-remove">
              <Icon name="trash" size={16} />
              {ru.collections.remove}
            </button>
          )}
          <button type="button" className="btn btn-ghost" onClick={() => setSelected(new Set())}>
            {ru.common.cancel}
          </button>
        </div>
      )}
      {items.length === 0 && complete ? (
        <section className="panel empty">
          <span className="empty-icon">
            <Icon name="grid" size={26} />
          </span>
          <div className="empty-title">{ru.collections.emptyCollection}</div>
          <div>{ru.collections.emptyHint}</div>
        </section>
      ) : mapOn ? (
        <CollectionMap collectionId={id} />
      ) : view === "grid" ? (
        <MemberGrid {...viewProps} />
      ) : (
        <section className="panel">
          <MemberList {...viewProps} />
        </section>
      )}
      {hidden > 0 && complete && (
        <p className="muted coll-hidden" data-testid="collection-hidden">
          <Icon name="lock" size={14} /> {ru.collections.hidden(hidden)}
        </p>
      )}
      <div ref={sentinel} className="scroll-sentinel">
        {loading && <span className="muted">{ru.common.loading}</span>}
      </div>

      {dialog?.kind === "share" && <CollectionShareDialog collectionId={id} name={info.name} manage={mayManage} onClose={() => setDialog(null)} />}
      {dialog?.kind === "rename" && (
        <NameDialog
          title={ru.collections.rename}
          label={ru.library.newName}
          initial={info.name}
          submit={ru.common.save}
          onSubmit={(name) => api.updateCollection(id, { name }).then((c) => (setInfo(c), api.collectionsChanged()))}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={ru.collections.delete}
          text={ru.collections.deleteText}
          confirm={ru.library.delete}
          onConfirm={async () => {
            await api.deleteCollection(id);
            api.collectionsChanged();
            navigate("/mam");
          }}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "remove" && (
        <ConfirmDialog
          title={ru.collections.remove}
          text={ru.collections.removed(dialog.ids.length)}
          confirm={ru.collections.remove}
          onConfirm={async () => {
            await api.removeFromCollection(id, dialog.ids);
            api.collectionsChanged();
            reload();
          }}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "tags" && (
        <TagDialog entities={dialog.ids.map((x) => ({ id: x, type: "asset" as const }))} onDone={reload} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "fields" && <BulkFieldDialog assetIds={dialog.ids} skippedGroups={false} onClose={() => setDialog(null)} />}
      {(dialog?.kind === "copy" || dialog?.kind === "move") && (
        <MoveDialog
          title={dialog.kind === "copy" ? ru.collections.copyTo : ru.collections.moveTo}
          submit={dialog.kind === "copy" ? ru.collections.copyTo : ru.library.moveHere}
          onMove={(target) => perFile(dialog.ids, target, dialog.kind === "move").then(() => setSelected(new Set()))}
          onClose={() => setDialog(null)}
        />
      )}
    </div>
  );
}

export function ErrorBoundary() {
  return <RouteErrorPage notFound={{ title: ru.collections.notFound, hint: ru.collections.notFoundHint }} />;
}
