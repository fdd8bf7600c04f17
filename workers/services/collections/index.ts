/**
 * Collections: named, ordered sets of files shared at a role, never wider than the files' own rights
 * (decision record 034).
 *
 * The domain's public face (decision record 025): code outside workers/services/collections/ imports only this file.
 */
export { MAX_LISTED_COLLECTIONS, createCollection, deleteCollection, getCollection, listCollections, updateCollection } from "./collection.service";
export type { CollectionInfo, ListedCollection } from "./collection.service";
export { MAX_COLLECTION_IDS, MAX_COLLECTION_ITEMS, addItems, listItems, readableFiles, removeItems, reorderItems } from "./collection-items.service";
export type { CollectionItem, ItemsPage, ReadableFiles } from "./collection-items.service";
export { MAX_COLLECTION_MEMBERS, deleteMember, listMembers, putMember } from "./collection-members.service";
export { requireCollection } from "./collection-role";
export type { CollectionRole } from "./collection-role";
export { collectionHoldsReadable, collectionItemPages, readableCollectionItems } from "./collection-link.service";
export { collectionLocations } from "./collection-locations.service";
