import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useNavigate } from "@remix-run/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { AccessButton } from "../components/access/access-dialog";
import { AccessModal } from "../components/access/access-modal";
import { Breadcrumbs } from "../components/breadcrumbs";
import { ContextMenu, type MenuAt } from "../components/context-menu";
import { DiskHelperDialog } from "../components/disk-helper-dialog";
import { FavouriteStar } from "../components/favourite-star";
import { GuardedButton } from "../components/guarded-button";
import { FolderHistoryButton } from "../components/folder-history-dialog";
import { GroupToolbar } from "../components/group-toolbar";
import { FolderMap, FolderViewBar } from "../components/map/folder-view-bar";
import { Icon } from "../components/icons";
import { menuItems } from "../components/member-menu";
import { ConfirmDialog, NameDialog } from "../components/modal";
import { MemberGrid, MemberList } from "../components/member-views";
import { BulkFieldButton, BulkFieldDialog } from "../components/metadata/bulk-field-dialog";
import { AddToCollectionButton } from "../components/collections/add-to-collection-dialog";
import { MoveDialog } from "../components/move-dialog";
import { canShare, ShareButton, ShareDialog } from "../components/share-dialog";
import { SellButton, SellDialog } from "../components/shop/sell-dialog";
import { MetadataCsvActions } from "../components/metadata/metadata-csv-actions";
import { opensInEditor } from "../lib/editor-kind";
import { ROOT_GROUP_ID } from "../lib/root-group";
import { useCurrentUser } from "../lib/use-current-user";
import { TagDialog } from "../components/tag-dialog";
import { RouteErrorPage } from "../components/route-error-page";
import { UnavailablePage } from "../components/unavailable-page";
import { ru } from "../i18n/ru";
import { ID_PATTERN } from "../../workers/lib/ids";
import { canDo, denial, denialForAll, memberLevels, moveDenial, type Action } from "../lib/abilities";
import { isTypingTarget, overlayOpen } from "../lib/keyboard";
import * as lib from "../lib/library-api";
import { selectRange, toggleOne } from "../lib/selection";
import { requireActor } from "../lib/session.server";
import { showToast } from "../lib/toast";
import { useMemberLevels } from "../lib/use-member-levels";
import { levelsOrNone } from "../lib/levels.server";
import { loadFailure, type LoadFailure } from "../lib/load-failure";
import { pickedFromDrop, pickedFromFiles, uploadController, useUploadEvents } from "../lib/upload-engine/index";
import { landedMember } from "../lib/upload-engine/landed-member";
import { queueNewVersion, queueUploads } from "../lib/upload-file";
import { useDiskHelperUrl } from "../lib/disk-helper";
import { useIsDesktop } from "../lib/helper-platform";
import { useGroupMembers } from "../lib/use-group-members";
import { usePersistentState } from "../lib/use-persistent-state";
import { ZipDownloadButton } from "../components/zip-download-button";

export const meta: MetaFunction = () => [{ title: `${ru.mam.group} — ${ru.app.name}` }];

/** The folder's id and the caller's levels on it, decided on the server so the first paint offers only what is allowed. */
export async function loader({ params, request, context }: LoaderFunctionArgs) {
  if (!ID_PATTERN.test(params.idGroup ?? "")) throw new Response(ru.groups.notFound, { status: 404 });
  const actor = await requireActor(request, context);
  return { groupId: params.idGroup!, levels: await levelsOrNone(context.rc, actor, params.idGroup!, "group") };
}

/** The folder's most recently changed files, enough to hold `ids` (just-finished uploads); answers those found. */
async function findRecentAssets(groupId: string, ids: ReadonlySet<string>): Promise<lib.GroupMember[]> {
  const page = await lib.fetchMembers(groupId, { type: "asset", sort: "mtime", order: "desc", take: Math.min(500, ids.size + 20) });
  return page.items.filter((m) => ids.has(m.el_id));
}

/**
 * A finished upload's tile is shown at once from the commit's answer (issue 28); the files that finish within this
 * pause are then re-read in one request (thumbnail, owner), which replaces their tiles in place — the grid is never
 * reloaded for them. The pause keeps a batch of small files, finishing dozens per second, from spending the browser's
 * six connections on listings instead of uploads.
 */
const REREAD_FINISHED_AFTER_MS = 600;
/** Files that had no thumbnail yet at the re-read are read again after this. */
const REREAD_BARE_AFTER_MS = 3_000;
/** Finished files' tiles are put in together after this pause (one render for a batch's files). */
const SHOW_LANDED_AFTER_MS = 60;

type Dialog =
  | { kind: "create" }
  | { kind: "rename"; member: lib.GroupMember }
  | { kind: "move"; ids: string[] }
  | { kind: "delete"; members: lib.GroupMember[] }
  | { kind: "tags"; members: lib.GroupMember[] }
  | { kind: "fields"; members: lib.GroupMember[] }
  | { kind: "share"; member: lib.GroupMember }
  | { kind: "sell"; member: lib.GroupMember }
  | { kind: "access"; member: lib.GroupMember }
  | { kind: "disk"; groupId: string; name: string };

/**
 * MamGroup: the folder is loaded first; a folder that does not exist or that the caller may not see answers with
 * the not-found page instead of an empty folder whose actions would all fail.
 */
export default function MamGroupRoute() {
  const { groupId, levels } = useLoaderData<typeof loader>();
  const [loaded, setLoaded] = useState<{ id: string; group: lib.GroupInfo | null; failure: LoadFailure | null } | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    setLoaded(null);
    lib.getGroup(groupId, { toast: false }).then(
      (group) => current && setLoaded({ id: groupId, group, failure: null }),
      (error) => current && setLoaded({ id: groupId, group: null, failure: loadFailure(error) }),
    );
    return () => {
      current = false;
    };
  }, [groupId, attempt]);
  if (!loaded || loaded.id !== groupId) return <div className="muted">{ru.common.loading}</div>;
  if (loaded.failure === "unavailable") return <UnavailablePage title={ru.screens.folderUnavailable} hint={ru.screens.folderUnavailableHint} />;
  if (!loaded.group) {
    return <UnavailablePage title={ru.screens.loadFailed} hint={ru.screens.crashedHint} icon="folder" onRetry={() => setAttempt((n) => n + 1)} />;
  }
  return <FolderContents key={groupId} groupId={groupId} initialGroup={loaded.group} levels={levels} />;
}

/** The contents of one folder — grid or list, infinite scroll, sorting, selection, moves and uploads. */
function FolderContents({ groupId, initialGroup, levels }: { groupId: string; initialGroup: lib.GroupInfo; levels: string[] }) {
  const navigate = useNavigate();
  const user = useCurrentUser();
  const group: lib.GroupInfo | null = initialGroup;
  const [view, setView] = usePersistentState<"grid" | "list">("mamView", "grid");
  const [sort, setSort] = usePersistentState<lib.SortKey>("mamSort", "name");
  const [order, setOrder] = usePersistentState<lib.SortOrder>("mamOrder", "asc");
  const [reviewFilter, setReviewFilter] = useState<string | null>(null);
  const [mapOn, setMapOn] = useState(false);
  const members = useGroupMembers(groupId, sort, order, reviewFilter);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const diskHelperUrl = useDiskHelperUrl();
  const desktop = useIsDesktop();
  const [menu, setMenu] = useState<MenuAt | null>(null);
  /** the item of the last plain selection click: shift-click selects from here */
  const anchor = useRef<string | null>(null);
  // Members' own levels, asked in batches as pages arrive; until then the folder's levels stand for them.
  const ids = useMemo(() => members.items.map((m) => m.el_id), [members.items]);
  const own = useMemberLevels(groupId, ids);
  const levelsOf = (m: lib.GroupMember) => memberLevels(own, levels, m.el_id);
  /** Why `action` is refused on a member; moving is decided by the folder the member leaves (delete on it). */
  const refusal = (m: lib.GroupMember, action: Action) =>
    action === "move" ? moveDenial(levels, [{ levels: levelsOf(m), kind: m.el_type }]) : denial(levelsOf(m), action, m.el_type);
  const sentinel = useRef<HTMLDivElement>(null);
  const [dropping, setDropping] = useState(false);
  const dragDepth = useRef(0);
  // «Загрузить новую версию» from a file's actions: the picked file goes to the queue as that file's next version.
  const versionInput = useRef<HTMLInputElement>(null);
  const versionOf = useRef<lib.GroupMember | null>(null);
  // Queued files start in order; folders they came from are created first and show up here at once.
  const upload = (picked: Parameters<typeof queueUploads>[1]) =>
    queueUploads(groupId, picked, group?.group_name).then(() => picked.some((p) => p.folders.length > 0) && members.reload());

  // A finished upload into this folder shows up at once (SPEC §4), in its sorted place; its thumbnail follows with
  // the re-read of the files that finished within a moment of each other (one request).
  const finished = useRef<{ ids: Set<string>; timer: ReturnType<typeof setTimeout> | null }>({ ids: new Set(), timer: null });
  // Tiles of files that commit together (a batch request answers for many) are put in with one render.
  const landed = useRef<{ members: lib.GroupMember[]; timer: ReturnType<typeof setTimeout> | null }>({ members: [], timer: null });
  useEffect(
    () => () => {
      if (finished.current.timer) clearTimeout(finished.current.timer);
      if (landed.current.timer) clearTimeout(landed.current.timer);
    },
    [],
  );
  useUploadEvents((event) => {
    if (event.type !== "uploadCompleted" || event.groupId !== groupId) return;
    const item = uploadController().getSnapshot().views.find((v) => v.item.id === event.id)?.item;
    if (item && !item.versionOf && !members.items.some((m) => m.el_id === event.assetId)) {
      const shown = landed.current;
      shown.members.push(landedMember(item, event.assetId, event.variantId));
      shown.timer ??= setTimeout(() => {
        const batch = shown.members;
        shown.members = [];
        shown.timer = null;
        members.upsert(...batch);
      }, SHOW_LANDED_AFTER_MS);
    }
    const pending = finished.current;
    pending.ids.add(event.assetId);
    pending.timer ??= setTimeout(() => {
      const ids = pending.ids;
      pending.ids = new Set();
      pending.timer = null;
      findRecentAssets(groupId, ids).then((found) => {
        members.upsert(...found);
        // A thumbnail still being stored (or made on the server) is read once more a little later.
        const bare = new Set(found.filter((m) => m.el_type === "asset" && !m.el_info.preview).map((m) => m.el_id));
        if (bare.size) setTimeout(() => findRecentAssets(groupId, bare).then((again) => members.upsert(...again), () => undefined), REREAD_BARE_AFTER_MS);
      }, () => undefined);
    }, REREAD_FINISHED_AFTER_MS);
  });

  const refresh = useCallback(() => {
    setSelected(new Set());
    members.reload();
  }, [members]);

  useEffect(() => {
    // Ctrl+A (⌘A) selects every loaded item, Esc clears the selection — not while typing or while a dialog is open.
    const onKey = (e: KeyboardEvent) => {
      if (dialog || menu || overlayOpen() || isTypingTarget(e.target)) return;
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "a") {
        e.preventDefault();
        setSelected(new Set(ids));
      } else if (e.key === "Escape" && selected.size > 0) {
        setSelected(new Set());
      }
    };
    // Capture phase: decided before a dialog's own Esc handler closes it.
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [dialog, menu, ids, selected.size]);

  useEffect(() => {
    const el = sentinel.current;
    if (!el) return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && void members.loadMore());
    observer.observe(el);
    return () => observer.disconnect();
  }, [members.loadMore]);

  const byIds = (ids: Iterable<string>) => members.items.filter((m) => new Set(ids).has(m.el_id));
  const moveInto = (target: string, ids: string[]) => lib.moveMembers(groupId, target, ids).then(() => members.remove(ids));
  const selection = byIds(selected);
  const selectionRefusal = (action: Action) =>
    action === "move"
      ? moveDenial(levels, selection.map((m) => ({ levels: levelsOf(m), kind: m.el_type })))
      : denialForAll(selection.map((m) => ({ levels: levelsOf(m), kind: m.el_type })), action);
  const uploadRefused = denial(levels, "upload", "group");
  /** nothing here may change: said once in the header, next to the disabled buttons' own reasons */
  const readOnly = !(["upload", "rename", "delete"] as const).some((action) => canDo(levels, action));

  /** The context menu of a member; on a member of a larger selection it acts on the whole selection. */
  const openMenu = (m: lib.GroupMember, x: number, y: number) => {
    const many = selected.has(m.el_id) && selected.size > 1;
    const targets = many ? selection : [m];
    const single = many ? null : m;
    const why = (action: Action) =>
      action === "move"
        ? moveDenial(levels, targets.map((t) => ({ levels: levelsOf(t), kind: t.el_type })))
        : denialForAll(targets.map((t) => ({ levels: levelsOf(t), kind: t.el_type })), action);
    const items = menuItems(
      {
        open: single ? () => navigate(single.el_type === "group" ? `/mam/${single.el_id}` : `/mam/${groupId}/asset/${single.el_id}`) : undefined,
        openInEditor:
          single?.el_type === "asset" && opensInEditor(single.el_info.name, single.el_info.mimetype) ? () => navigate(`/editor/${single.el_id}`) : undefined,
        rename: single ? () => setDialog({ kind: "rename", member: single }) : undefined,
        move: () => setDialog({ kind: "move", ids: targets.map((t) => t.el_id) }),
        tags: () => setDialog({ kind: "tags", members: targets }),
        newVersion:
          single?.el_type === "asset"
            ? () => {
                versionOf.current = single;
                versionInput.current?.click();
              }
            : undefined,
        share: single ? () => setDialog({ kind: "share", member: single }) : undefined,
        access: single ? () => setDialog({ kind: "access", member: single }) : undefined,
        sell: single && user?.isAdmin ? () => setDialog({ kind: "sell", member: single }) : undefined,
        openOnDisk: desktop && single?.el_type === "group" ? () => setDialog({ kind: "disk", groupId: single.el_id, name: single.el_info.name }) : undefined,
        delete: () => setDialog({ kind: "delete", members: targets }),
      },
      why,
    );
    setMenu({ x, y, label: ru.rights.menu(many ? ru.library.selected(targets.length) : m.el_info.name), items });
  };

  const viewProps = {
    groupId,
    items: members.items,
    selected,
    onToggle: (id: string) => setSelected((s) => toggleOne(s, id)),
    onPick: (id: string, range: boolean) => {
      if (range && anchor.current) setSelected((s) => selectRange(ids, s, anchor.current, id));
      else {
        anchor.current = id;
        setSelected((s) => toggleOne(s, id));
      }
    },
    refusal,
    onMenu: openMenu,
    onRename: (member: lib.GroupMember) => setDialog({ kind: "rename", member }),
    onMove: (member: lib.GroupMember) => setDialog({ kind: "move", ids: [member.el_id] }),
    onDelete: (member: lib.GroupMember) => setDialog({ kind: "delete", members: [member] }),
    onShare: canShare(levels) ? (member: lib.GroupMember) => setDialog({ kind: "share", member }) : undefined,
    // Offered where the folder's levels allow adding versions (files inherit them; the server decides per file).
    onNewVersion:
      canDo(levels, "newVersion")
        ? (member: lib.GroupMember) => {
            versionOf.current = member;
            versionInput.current?.click();
          }
        : undefined,
    onDropInto: (target: string, ids: string[]) => {
      const refused = moveDenial(levels, byIds(ids).map((m) => ({ levels: levelsOf(m), kind: m.el_type })));
      if (refused) return showToast({ title: ru.library.move, message: refused });
      void moveInto(target, ids).catch(() => undefined);
    },
  };

  return (
    <div
      className={`group-page${dropping ? " dropping" : ""}`}
      onDragEnter={(e) => {
        if (!e.dataTransfer.types.includes("Files")) return;
        dragDepth.current += 1;
        setDropping(true);
      }}
      onDragLeave={() => {
        dragDepth.current = Math.max(0, dragDepth.current - 1);
        if (dragDepth.current === 0) setDropping(false);
      }}
      onDragOver={(e) => e.dataTransfer.types.includes("Files") && e.preventDefault()}
      onDrop={(e) => {
        dragDepth.current = 0;
        setDropping(false);
        if (!e.dataTransfer.types.includes("Files")) return;
        e.preventDefault();
        if (uploadRefused) return showToast({ title: ru.library.upload, message: uploadRefused });
        // Files and whole folders: a dropped folder recreates its sub-folders here.
        void pickedFromDrop(e.dataTransfer).then(upload);
      }}
    >
      <input
        ref={versionInput}
        type="file"
        hidden
        data-testid="member-version-input"
        onChange={(e) => {
          const file = e.target.files?.[0];
          const member = versionOf.current;
          e.target.value = "";
          if (file && member) void queueNewVersion(member.el_id, groupId, file, member.el_info.name);
        }}
      />
      {dropping && (
        <div className="drop-overlay" aria-hidden="true">
          <Icon name="upload" size={28} />
          <span>{ru.uploads.dropHere}</span>
        </div>
      )}
      {group && <Breadcrumbs path={group.path.slice(0, -1)} onDropInto={viewProps.onDropInto} />}
      <div className="access-entry">
        <Link to={`/search?group=${groupId}`} className="btn btn-ghost search-in-folder">
          <Icon name="search" size={16} />
          {ru.search.searchInFolder}
        </Link>
        {readOnly && (
          <span className="chip read-only-chip" title={ru.rights.readOnlyFolder}>
            <Icon name="lock" size={12} />
            {ru.rights.readOnly}
          </span>
        )}
        {desktop && (
          <GuardedButton
            className="btn btn-ghost"
            reason={denial(levels, "openOnDisk", "group")}
            onClick={() => setDialog({ kind: "disk", groupId, name: group?.group_name ?? ru.mam.group })}
          >
            <Icon name="download" size={16} />
            {ru.diskHelper.action}
          </GuardedButton>
        )}
        {groupId !== ROOT_GROUP_ID && group && <FavouriteStar id={groupId} type="group" name={group.group_name} />}
        <ShareButton entityId={groupId} name={group?.group_name} className="btn btn-ghost" levels={levels} />
        <AccessButton entityId={groupId} name={group?.group_name} className="btn btn-ghost" />
        {groupId !== ROOT_GROUP_ID && <FolderHistoryButton groupId={groupId} name={group?.group_name ?? ru.mam.group} levels={levels} />}
        {groupId !== ROOT_GROUP_ID && <SellButton entityId={groupId} name={group?.group_name} className="btn btn-ghost" />}
        {groupId !== ROOT_GROUP_ID && <MetadataCsvActions source={{ group_id: groupId }} name={group?.group_name ?? ru.mam.group} />}
      </div>
      <GroupToolbar
        title={group?.group_name ?? ru.mam.group}
        itemCount={members.complete || members.items.length > 0 ? ru.library.itemCount(members.items.length, members.complete) : undefined}
        view={view}
        sort={sort}
        order={order}
        selectedCount={selected.size}
        onView={setView}
        onSort={setSort}
        onOrder={setOrder}
        onCreate={() => setDialog({ kind: "create" })}
        onUpload={(files) => void upload(pickedFromFiles(files))}
        onBulkMove={() => setDialog({ kind: "move", ids: [...selected] })}
        onBulkTags={() => setDialog({ kind: "tags", members: byIds(selected) })}
        onBulkDelete={() => setDialog({ kind: "delete", members: byIds(selected) })}
        onClearSelection={() => setSelected(new Set())}
        refusals={{
          createFolder: denial(levels, "createFolder", "group"),
          upload: uploadRefused,
          move: selectionRefusal("move"),
          tags: selectionRefusal("tags"),
          delete: selectionRefusal("delete"),
        }}
        extraFolder={
          groupId !== ROOT_GROUP_ID && (
            <ZipDownloadButton assetIds={[]} groupIds={[groupId]} label={ru.zipDownload.downloadFolder} testId="folder-zip" />
          )
        }
        extraBulk={
          <>
            <ZipDownloadButton
              assetIds={selection.flatMap((m) => (m.el_type === "asset" ? [m.el_id] : []))}
              groupIds={selection.flatMap((m) => (m.el_type === "group" ? [m.el_id] : []))}
            />
            {selected.size === 1 && selection.every((m) => canShare(levelsOf(m) ?? null)) && (
              <button type="button" className="btn" onClick={() => byIds(selected).forEach((member) => setDialog({ kind: "share", member }))}>
                <Icon name="share" size={16} />
                {ru.sharing.share}
              </button>
            )}
            {selection.some((m) => m.el_type === "asset") && selection.every((m) => m.el_type === "group" || canDo(levelsOf(m), "fields")) && (
              <BulkFieldButton onClick={() => setDialog({ kind: "fields", members: selection })} />
            )}
            {selection.some((m) => m.el_type === "asset") && (
              <AddToCollectionButton
                assetIds={selection.filter((m) => m.el_type === "asset").map((m) => m.el_id)}
                skippedFolders={selection.some((m) => m.el_type === "group")}
              />
            )}
          </>
        }
      />
      <FolderViewBar review={reviewFilter} onReview={setReviewFilter} map={mapOn} onMap={setMapOn} />
      {mapOn ? (
        <FolderMap groupId={groupId} />
      ) : members.items.length === 0 && members.complete ? (
        <section className="panel empty">
          <span className="empty-icon">
            <Icon name="folder" size={26} />
          </span>
          <div className="empty-title">{ru.library.emptyGroup}</div>
          <div>{ru.library.emptyGroupHint}</div>
        </section>
      ) : view === "grid" ? (
        <MemberGrid {...viewProps} />
      ) : (
        <section className="panel">
          <MemberList {...viewProps} />
        </section>
      )}
      <div ref={sentinel} className="scroll-sentinel">
        {members.loading && <span className="muted">{ru.common.loading}</span>}
      </div>

      {menu && <ContextMenu menu={menu} onClose={() => setMenu(null)} />}
      {dialog?.kind === "access" && (
        <AccessModal entityId={dialog.member.el_id} name={dialog.member.el_info.name} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "sell" && (
        <SellDialog entityId={dialog.member.el_id} name={dialog.member.el_info.name} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "share" && (
        <ShareDialog entityId={dialog.member.el_id} name={dialog.member.el_info.name} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "create" && (
        <NameDialog
          title={ru.library.newFolder}
          label={ru.library.folderName}
          submit={ru.library.create}
          onSubmit={(name) => lib.createGroup(groupId, name).then(refresh)}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "rename" && (
        <NameDialog
          title={ru.library.rename}
          label={ru.library.newName}
          initial={dialog.member.el_info.name}
          submit={ru.common.save}
          onSubmit={(name) =>
            (dialog.member.el_type === "group"
              ? lib.renameGroup(dialog.member.el_id, name)
              : lib.renameAsset(dialog.member.el_id, name)
            ).then(() => members.rename(dialog.member.el_id, name))
          }
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "move" && (
        <MoveDialog
          title={ru.library.moveTitle(dialog.ids.length)}
          current={groupId}
          moving={byIds(dialog.ids)
            .filter((m) => m.el_type === "group")
            .map((m) => m.el_id)}
          onMove={(target) => moveInto(target, dialog.ids).then(() => setSelected(new Set()))}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={
            dialog.members.length === 1 ? ru.library.deleteNamed(dialog.members[0].el_info.name) : ru.library.deleteTitle(dialog.members.length)
          }
          text={ru.library.deleteText}
          confirm={ru.library.delete}
          onConfirm={async () => {
            await Promise.all(dialog.members.map((m) => (m.el_type === "group" ? lib.trashGroup(m.el_id) : lib.trashAsset(m.el_id))));
            members.remove(dialog.members.map((m) => m.el_id));
            setSelected(new Set());
          }}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "fields" && (
        <BulkFieldDialog
          assetIds={dialog.members.filter((m) => m.el_type === "asset").map((m) => m.el_id)}
          skippedGroups={dialog.members.some((m) => m.el_type === "group")}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "disk" && (
        <DiskHelperDialog helperUrl={diskHelperUrl} groupId={dialog.groupId} folderName={dialog.name} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "tags" && (
        <TagDialog
          entities={dialog.members.map((m) => ({ id: m.el_id, type: m.el_type }))}
          onDone={refresh}
          onClose={() => setDialog(null)}
        />
      )}
    </div>
  );
}

/** A malformed folder id (the loader's 404) or a crash still answers in the shell, with the way back. */
export function ErrorBoundary() {
  return <RouteErrorPage notFound={{ title: ru.screens.folderUnavailable, hint: ru.screens.folderUnavailableHint }} />;
}
