import {
  aclAccess,
  bookmarkNames,
  callerAccess,
  getInheritance,
  getRule,
  onShard,
  rulesOfSubjectsPage,
  rulesOnEntity,
  userAccess,
  type Actor,
  type BookmarkItem,
  type RequestContext,
} from "./access";
import { commentListText } from "./comments";
import {
  contentSize,
  getGroup,
  groupLocations,
  groupSizes,
  groupStorage,
  healState,
  listDirectory,
  listPreviews,
  listVariants,
  listVersions,
  linkedDownload,
  linkedVariant,
  memberOf,
  playAsset,
  playLink,
  proxyDoc,
  requireAsset,
  resolveDownload,
  searchGroupsPage,
  subtreeText,
  topEntries,
  techFields,
  textRendition,
  trashedAssetsPage,
  trashedGroupsPage,
  variantDownload,
  variantTechFields,
  variantTechProps,
  confinedRoots,
  type TopQuery,
} from "./library";
import { findPreview, readWaveform, type PreviewKindName } from "./media";
import type { WopiClient, WopiRight } from "../lib/wopi-token";
import { callerOnFile, editorFile, fileInfoOf, fileToServe, type WopiCredential } from "./wopi";
import {
  entitiesByFieldPage,
  tagCounts,
  tagsCarriedBy,
  taxaOfEntity,
  taxonCounts,
  taxonMembersPage,
  tagsForEntity,
  valuesForEntity,
  type FieldQuery,
} from "./metadata";
import { getReview } from "./reviews";
import { uploadStatus } from "./uploads";
import { linksForEntity, sharedMediaTarget, sharedZipPlan, type MediaKind } from "./sharing";
import { planZip, withVariants, ZIP_REQUEST_MAX_FILES, type ZipSelection } from "./archive";
import { storageForEntity } from "./storage";
import { taskEntityChecks } from "./tasks";
import { readableFiles } from "./collections";
import type { TaskEntityRef } from "../db/schema/index";
import type { LibraryScope } from "../db/repositories/library-scope";
import type { EntityFilter } from "../db/repositories/tag.repository";
import type { NamedSubject } from "../db/repositories/access.repository";

/**
 * The reads of one folder or file answered where its library lives (decision 051, step 1): in the Worker over the
 * catalog, or inside the library's shard with its own database — the same service either way, by name, as the routed
 * writes are. Each reads rows of that one library and the global rows a shard keeps copies of (people, tags,
 * classifications, field templates); what the caller may see is decided there by the same access check. A file
 * listed in another library too, and a folder listing one, are answered from the catalog's copy (decision 047). Each
 * names its folder or file first, which places it: never a variant or a version alone (a variant minted in a shard
 * keeps that shard's number when its file moves to another library, and would not say whether its file is shared).
 */
export const ROUTED_READS = {
  listVersions: (rc: RequestContext, actor: Actor, id: string) => listVersions(rc, actor, id),
  listVariants: (rc: RequestContext, actor: Actor, id: string, version: number) => listVariants(rc, actor, id, version),
  contentSize: (rc: RequestContext, actor: Actor, id: string) => contentSize(rc, actor, id),
  memberOf: (rc: RequestContext, actor: Actor, id: string) => memberOf(rc, actor, id),
  techFields: (rc: RequestContext, actor: Actor, id: string, variantId: string) => techFields(rc, actor, id, variantId),
  getInheritance: (rc: RequestContext, actor: Actor, id: string) => getInheritance(rc, actor, id),
  getReview: (rc: RequestContext, actor: Actor, id: string) => getReview(rc, actor, id),
  valuesForEntity: (rc: RequestContext, actor: Actor, id: string, filter: Parameters<typeof valuesForEntity>[3]) =>
    valuesForEntity(rc, actor, id, filter),
  tagsForEntity: (rc: RequestContext, actor: Actor, id: string) => tagsForEntity(rc, actor, id),
  taxaOfEntity: (rc: RequestContext, actor: Actor, id: string) => taxaOfEntity(rc, actor, id),
  getGroup: (rc: RequestContext, actor: Actor, id: string) => getGroup(rc, actor, id),
  groupStorage: (rc: RequestContext, actor: Actor, id: string) => groupStorage(rc, actor, id),
  groupLocations: (rc: RequestContext, actor: Actor, id: string, o: Parameters<typeof groupLocations>[3]) =>
    groupLocations(rc, actor, id, o),
  listDirectory: (rc: RequestContext, actor: Actor, id: string, paging: Parameters<typeof listDirectory>[3]) =>
    listDirectory(rc, actor, id, paging),
  storageForEntity: (rc: RequestContext, actor: Actor, id: string) => storageForEntity(rc, actor, id),
  linksForEntity: (rc: RequestContext, actor: Actor, id: string, origin: string) => linksForEntity(rc, actor, id, origin),
  rulesOnEntity: (rc: RequestContext, actor: Actor, id: string) => rulesOnEntity(rc, actor, id),
  callerAccess: (rc: RequestContext, actor: Actor, id: string) => callerAccess(rc, actor, id),
  aclAccess: (rc: RequestContext, actor: Actor, id: string) => aclAccess(rc, actor, id),
  /** a rule by its id, named by the folder or file it is on */
  getRule: (rc: RequestContext, actor: Actor, _on: string, id: string) => getRule(rc, actor, id),
  // Reads of several folders or files of one library (`readEachRouted`), their ids first; one answer per item, in order.
  userAccess: (rc: RequestContext, actor: Actor, _ids: string[], pairs: { entity: string; user?: string }[]) =>
    userAccess(rc, actor, pairs),
  groupSizes: async (rc: RequestContext, actor: Actor, ids: string[]) => {
    const sizes = new Map((await groupSizes(rc, actor, ids)).map((size) => [size.group_id, size]));
    return ids.map((id) => sizes.get(id)!);
  },
  // Reads whose answer is bytes: what to serve is decided here, the bytes are read from storage by the Worker.
  resolveDownload: (rc: RequestContext, actor: Actor, id: string, version: Parameters<typeof resolveDownload>[3], selector: string) =>
    resolveDownload(rc, actor, id, version, selector),
  findPreview: (rc: RequestContext, actor: Actor, id: string, version: number, size: PreviewKindName, variantId: string | null) =>
    findPreview(rc, actor, { assetId: id, version, size, variantId }),
  linkedDownload: (
    rc: RequestContext,
    actor: Actor,
    id: string,
    version: Parameters<typeof linkedDownload>[3],
    selector: string,
    link: Parameters<typeof linkedDownload>[5],
  ) => linkedDownload(rc, actor, id, version, selector, link),
  linkedVariant: (rc: RequestContext, actor: Actor, id: string, variantId: string, purpose: "download" | "play") =>
    linkedVariant(rc, actor, variantId, purpose, id),
  playAsset: (rc: RequestContext, actor: Actor, id: string, opts: Parameters<typeof playAsset>[3]) => playAsset(rc, actor, id, opts),

  // Reads of a variant named with its file (`a`), which places them; a variant of another file is not found. Without
  // the file (an older client), the variant's catalog row names it (`readOfVariant`).
  variantDownload: (rc: RequestContext, actor: Actor, id: string, variantId: string) => variantDownload(rc, actor, id, variantId),
  playVariant: (rc: RequestContext, actor: Actor, id: string | undefined, variantId: string, disposition?: "attachment" | "inline") =>
    playLink(rc, actor, variantId, disposition, id),
  variantTechFields: (rc: RequestContext, actor: Actor, id: string | undefined, variantId: string) =>
    variantTechFields(rc, actor, variantId, id),
  variantTechProps: (rc: RequestContext, actor: Actor, id: string | undefined, variantId: string) =>
    variantTechProps(rc, actor, variantId, id),
  uploadStatus: (rc: RequestContext, actor: Actor, id: string | undefined, variantId: string) => uploadStatus(rc, actor, variantId, id),
  proxyDoc: (rc: RequestContext, actor: Actor, id: string, version: Parameters<typeof proxyDoc>[3]) => proxyDoc(rc, actor, id, version),
  textRendition: (rc: RequestContext, actor: Actor, id: string, version: Parameters<typeof textRendition>[3]) =>
    textRendition(rc, actor, id, version),
  readWaveform: (rc: RequestContext, actor: Actor, id: string, version: number) => readWaveform(rc, actor, id, version),
  healState: (rc: RequestContext, actor: Actor, id: string, version: number) => healState(rc, actor, id, version),
  commentListText: (rc: RequestContext, actor: Actor, id: string, query: Parameters<typeof commentListText>[3]) =>
    commentListText(rc, actor, id, query),
  listPreviews: (rc: RequestContext, actor: Actor, id: string, paging: Parameters<typeof listPreviews>[3], origin: string) =>
    listPreviews(rc, actor, id, paging, origin),
  subtreeText: (rc: RequestContext, actor: Actor, id: string, withAssets: boolean) => subtreeText(rc, actor, id, withAssets),
  // The current names of the caller's favourites he may still read (null for the others), one answer each.
  bookmarkNames: (rc: RequestContext, actor: Actor, _ids: string[], items: BookmarkItem[]) => bookmarkNames(rc, actor, items),
  // The folders and files a task is asked for, as the caller finds them (`enqueueTask`'s check), one answer each.
  taskEntities: (rc: RequestContext, actor: Actor, _ids: string[], entities: TaskEntityRef[]) => taskEntityChecks(rc, actor, entities),
  // Whether each file is live and readable by the caller (a collection's add), one answer each.
  readableFiles: (rc: RequestContext, actor: Actor, _ids: string[], files: string[]) => readableFiles(rc, actor, files),
  /** whether the caller may read file `id` (404 otherwise): what the Worker then answers is global (a lock) */
  fileReadable: async (rc: RequestContext, actor: Actor, id: string) => Boolean(await requireAsset(rc, actor, id, "read")),
  editorFile: (rc: RequestContext, actor: Actor, id: string, wanted: WopiRight, client: WopiClient) =>
    editorFile(rc, actor, id, wanted, client),
  // An office editor's reads (WOPI): the token's credential was checked in the Worker; its actor is `actor`.
  wopiFileInfo: (rc: RequestContext, _actor: Actor, id: string, credential: WopiCredential, origin: string) =>
    fileInfoOf(rc, credential, id, origin),
  wopiFile: (rc: RequestContext, _actor: Actor, id: string, credential: WopiCredential) => fileToServe(rc, credential, id),
  wopiCaller: (rc: RequestContext, _actor: Actor, id: string, credential: WopiCredential) => callerOnFile(rc, credential, id),
  // What a shared link's media URL serves, placed by its file; the actor is the link's maker, whose copy rides along
  // (his rights are read there again, with the link's row).
  sharedMedia: (rc: RequestContext, _creator: Actor, id: string, linkId: string, kind: MediaKind, cookie: string | undefined) =>
    sharedMediaTarget(rc, linkId, id, kind, cookie),
  // What a shared link's ZIP of a folder holds, placed by the folder, planned as the link's maker (as its media).
  sharedZip: (rc: RequestContext, _creator: Actor, id: string, linkId: string, cookie: string | undefined) =>
    sharedZipPlan(rc, linkId, id, cookie),
  // A selection's archive in the app, every chosen file and folder of this one library (the route checked), planned
  // with its files' variants in a shard.
  zipPlan: async (rc: RequestContext, actor: Actor, _ids: string[], selection: ZipSelection) => {
    const plan = await planZip(rc, actor, selection, ZIP_REQUEST_MAX_FILES);
    return onShard(rc) ? withVariants(rc, plan) : plan;
  },
  // A page of the trash's files or folders across libraries (`trashWhereItLives`): each library's own, named by no id.
  trashedAssets: (rc: RequestContext, actor: Actor, _ids: string[], paging: { skip: number; take: number }, scope: LibraryScope) =>
    trashedAssetsPage(rc, actor, paging, scope),
  trashedGroups: (rc: RequestContext, actor: Actor, _ids: string[], paging: { skip: number; take: number }, scope: LibraryScope) =>
    trashedGroupsPage(rc, actor, paging, scope),
  // A list's counts across libraries (`countsInShards`): how many files and folders of each library carry each tag,
  // or are direct members of each taxon, that the caller may read.
  tagCounts: (rc: RequestContext, actor: Actor, _ids: string[], tags: string[], scope: LibraryScope) => tagCounts(rc, actor, tags, scope),
  taxonCounts: (rc: RequestContext, actor: Actor, _ids: string[], taxa: string[], scope: LibraryScope) =>
    taxonCounts(rc, actor, taxa, scope),
  // The tags a tag list's entity filter finds in each library (`carriedInShards`), `limit` at most.
  tagsCarried: (rc: RequestContext, actor: Actor, _ids: string[], filter: EntityFilter, scope: LibraryScope, limit: number) =>
    tagsCarriedBy(rc, actor, filter, scope, limit),
  // A page of taxa's members across libraries (`pageWhereItLives`), by name.
  taxonMembers: (
    rc: RequestContext,
    actor: Actor,
    _ids: string[],
    taxa: string[],
    page: { skip: number; take: number },
    scope: LibraryScope,
  ) => taxonMembersPage(rc, actor, taxa, page, scope),
  // A page of the rules naming some subjects across libraries (`pageWhereItLives`), newest first; the route checked
  // the caller and named the subjects, each object is named if he may read it.
  rulesOfSubjects: (
    rc: RequestContext,
    actor: Actor,
    _ids: string[],
    subjects: NamedSubject[],
    page: { skip: number; take: number },
    scope: LibraryScope,
  ) => rulesOfSubjectsPage(rc, actor, subjects, page, scope),
  // A page of the folders whose name contains a text across libraries (`pageWhereItLives`), by name.
  foundGroups: (rc: RequestContext, actor: Actor, _ids: string[], q: string, page: { skip: number; take: number }, scope: LibraryScope) =>
    searchGroupsPage(rc, actor, q, page, scope),
  // A page of «Доступные Файлы» of a caller listing the top-most folders and files he reads (`pageWhereItLives`).
  topEntries: (
    rc: RequestContext,
    actor: Actor,
    _ids: string[],
    query: TopQuery,
    page: { skip: number; take: number },
    scope: LibraryScope,
  ) => topEntries(rc, actor, query, page, scope),
  // A confined caller's roots (his chroot or token scope groups), one answer each.
  confinedRoots: (rc: RequestContext, actor: Actor, _ids: string[], roots: string[]) => confinedRoots(rc, actor, roots),
  // A page of the files and folders whose value matches a field query (`pageWhereItLives`), by id; `timing` gets the
  // catalog's own query time (a shard's copy of it is dropped).
  entitiesByField: (
    rc: RequestContext,
    actor: Actor,
    _ids: string[],
    query: FieldQuery,
    page: { skip: number; take: number },
    scope: LibraryScope,
    timing?: { ms: number },
  ) => entitiesByFieldPage(rc, actor, query, page, scope, timing),
};

/** Reads of a folder's whole subtree: answered from the catalog's copy when a folder anywhere below lists a shared file. */
export const SUBTREE_READS: ReadonlySet<RoutedRead> = new Set<RoutedRead>(["subtreeText", "sharedZip", "zipPlan"]);

export type RoutedRead = keyof typeof ROUTED_READS;
type Read<K extends RoutedRead> = (typeof ROUTED_READS)[K];
/** A routed read's arguments after the request context and the actor (the entity's id first). */
export type RoutedReadArgs<K extends RoutedRead> = Read<K> extends (rc: RequestContext, actor: Actor, ...args: infer A) => unknown
  ? A
  : never;
export type RoutedReadValue<K extends RoutedRead> = Awaited<ReturnType<Read<K>>>;

/** Runs the routed read `name` against `rc`'s database. */
export function runRoutedRead<K extends RoutedRead>(
  rc: RequestContext,
  actor: Actor,
  name: K,
  args: RoutedReadArgs<K>,
): Promise<RoutedReadValue<K>> {
  if (!Object.hasOwn(ROUTED_READS, name)) throw new Error(`not a routed read: ${String(name)}`);
  const read = ROUTED_READS[name] as (rc: RequestContext, actor: Actor, ...args: unknown[]) => Promise<RoutedReadValue<K>>;
  return read(rc, actor, ...(args as unknown[]));
}
