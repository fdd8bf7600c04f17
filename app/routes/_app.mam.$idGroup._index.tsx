import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { AccessButton } from "../components/access/access-dialog";
import { Breadcrumbs } from "../components/breadcrumbs";
import { GroupToolbar } from "../components/group-toolbar";
import { Icon } from "../components/icons";
import { ConfirmDialog, NameDialog } from "../components/modal";
import { MemberGrid, MemberList } from "../components/member-views";
import { BulkFieldButton, BulkFieldDialog } from "../components/metadata/bulk-field-dialog";
import { MoveDialog } from "../components/move-dialog";
import { canShare, ShareButton, ShareDialog, useLevels } from "../components/share-dialog";
import { TagDialog } from "../components/tag-dialog";
import { RouteErrorPage } from "../components/route-error-page";
import { UnavailablePage } from "../components/unavailable-page";
import { ru } from "../i18n/ru";
import { ID_PATTERN } from "../../workers/lib/ids";
import * as lib from "../lib/library-api";
import { loadFailure, type LoadFailure } from "../lib/load-failure";
import { pickedFromDrop, pickedFromFiles, useUploadEvents } from "../lib/upload-engine";
import { queueNewVersion, queueUploads } from "../lib/upload-file";
import { useGroupMembers } from "../lib/use-group-members";
import { usePersistentState } from "../lib/use-persistent-state";

export const meta: MetaFunction = () => [{ title: `${ru.mam.group} — ${ru.app.name}` }];

export function loader({ params }: LoaderFunctionArgs) {
  if (!ID_PATTERN.test(params.idGroup ?? "")) throw new Response(ru.groups.notFound, { status: 404 });
  return { groupId: params.idGroup! };
}

/** A just-uploaded asset as the folder lists it: among the most recently changed files of the folder. */
async function findRecentAsset(groupId: string, assetId: string): Promise<lib.GroupMember | null> {
  const page = await lib.fetchMembers(groupId, { type: "asset", sort: "mtime", order: "desc", take: 20 });
  return page.items.find((m) => m.el_id === assetId) ?? null;
}

type Dialog =
  | { kind: "create" }
  | { kind: "rename"; member: lib.GroupMember }
  | { kind: "move"; ids: string[] }
  | { kind: "delete"; members: lib.GroupMember[] }
  | { kind: "tags"; members: lib.GroupMember[] }
  | { kind: "fields"; members: lib.GroupMember[] }
  | { kind: "share"; member: lib.GroupMember };

/**
 * MamGroup: the folder is loaded first; a folder that does not exist or that the caller may not see answers with
 * the not-found page instead of an empty folder whose actions would all fail.
 */
export default function MamGroupRoute() {
  const { groupId } = useLoaderData<typeof loader>();
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
  return <FolderContents key={groupId} groupId={groupId} initialGroup={loaded.group} />;
}

/** The contents of one folder — grid or list, infinite scroll, sorting, selection, moves and uploads. */
function FolderContents({ groupId, initialGroup }: { groupId: string; initialGroup: lib.GroupInfo }) {
  const group: lib.GroupInfo | null = initialGroup;
  const [view, setView] = usePersistentState<"grid" | "list">("mamView", "grid");
  const [sort, setSort] = usePersistentState<lib.SortKey>("mamSort", "name");
  const [order, setOrder] = usePersistentState<lib.SortOrder>("mamOrder", "asc");
  const members = useGroupMembers(groupId, sort, order);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog | null>(null);
  // Sharing is offered where the caller may share: members inherit the folder's levels (a member's own rule that
  // takes acl away is refused by the server with its message).
  const levels = useLevels(groupId);
  const sentinel = useRef<HTMLDivElement>(null);
  const [dropping, setDropping] = useState(false);
  const dragDepth = useRef(0);
  // «Загрузить новую версию» from a file's actions: the picked file goes to the queue as that file's next version.
  const versionInput = useRef<HTMLInputElement>(null);
  const versionOf = useRef<lib.GroupMember | null>(null);
  // Queued files start in order; folders they came from are created first and show up here at once.
  const upload = (picked: Parameters<typeof queueUploads>[1]) =>
    queueUploads(groupId, picked, group?.group_name).then(() => picked.some((p) => p.folders.length > 0) && members.reload());

  // A finished upload into this folder shows up at once (SPEC §4), in its sorted place, with its thumbnail.
  useUploadEvents((event) => {
    if (event.type !== "uploadCompleted" || event.groupId !== groupId) return;
    findRecentAsset(groupId, event.assetId).then(
      (member) => (member ? members.upsert(member) : members.reload()),
      () => undefined,
    );
  });

  const refresh = useCallback(() => {
    setSelected(new Set());
    members.reload();
  }, [members]);

  useEffect(() => {
    const el = sentinel.current;
    if (!el) return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && void members.loadMore());
    observer.observe(el);
    return () => observer.disconnect();
  }, [members.loadMore]);

  const byIds = (ids: Iterable<string>) => members.items.filter((m) => new Set(ids).has(m.el_id));
  const moveInto = (target: string, ids: string[]) => lib.moveMembers(groupId, target, ids).then(() => members.remove(ids));
  const viewProps = {
    groupId,
    items: members.items,
    selected,
    onToggle: (id: string) =>
      setSelected((s) => {
        const next = new Set(s);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    onRename: (member: lib.GroupMember) => setDialog({ kind: "rename", member }),
    onMove: (member: lib.GroupMember) => setDialog({ kind: "move", ids: [member.el_id] }),
    onDelete: (member: lib.GroupMember) => setDialog({ kind: "delete", members: [member] }),
    onShare: canShare(levels) ? (member: lib.GroupMember) => setDialog({ kind: "share", member }) : undefined,
    // Offered where the folder's levels allow adding versions (files inherit them; the server decides per file).
    onNewVersion:
      levels && (levels.includes("create") || levels.includes("superuser"))
        ? (member: lib.GroupMember) => {
            versionOf.current = member;
            versionInput.current?.click();
          }
        : undefined,
    onDropInto: (target: string, ids: string[]) => void moveInto(target, ids).catch(() => undefined),
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
        <ShareButton entityId={groupId} name={group?.group_name} className="btn btn-ghost" levels={levels} />
        <AccessButton entityId={groupId} name={group?.group_name} className="btn btn-ghost" />
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
        extraBulk={
          <>
            {selected.size === 1 && viewProps.onShare && (
              <button type="button" className="btn" onClick={() => byIds(selected).forEach((member) => setDialog({ kind: "share", member }))}>
                <Icon name="share" size={16} />
                {ru.sharing.share}
              </button>
            )}
            {byIds(selected).some((m) => m.el_type === "asset") && <BulkFieldButton onClick={() => setDialog({ kind: "fields", members: byIds(selected) })} />}
          </>
        }
      />
      {members.items.length === 0 && members.complete ? (
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
