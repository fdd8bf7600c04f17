/**
 * Metadata: field templates and values, field types and their validation, value lists, tags, taxonomies and asset
 * classes.
 *
 * The domain's public face (decision record 025): code outside workers/services/metadata/ imports only this file or
 * ./pure.
 */
export { changeClass, classesByIds, createClass, deleteClass, listClasses } from "./asset-class.service";
export type { AssetClassInfo } from "./asset-class.service";
export { changeTemplate, createTemplate, deleteTemplate, listTemplates, templatesByIds } from "./field-template.service";
export type { FieldTemplateInfo } from "./field-template.service";
export { MAX_BULK_ENTITIES, changeValue, createValue, deleteValue, requireClassFieldsFilled, valuesForEntity } from "./field-value.service";
export { applyFields, bulkSetField, entitiesByFieldPage, fieldQuery } from "./field-bulk.service";
export type { FieldQuery } from "./field-bulk.service";
export type { FieldValueInfo } from "./field-value.service";
export { createList, deleteList, deleteRecord, listLists, putRecord, recordsByIds, recordsOf, renameList } from "./list.service";
export type { ListInfo, ListRecord } from "./list.service";
export {
  attachTags,
  createTag,
  deleteTag,
  detachTags,
  listTags,
  listTagsByFilter,
  listTagsByIds,
  renameTag,
  tagCounts,
  tagsCarriedBy,
  tagsForEntity,
  CARRIED_ELSEWHERE_MAX,
} from "./tag.service";
export type { CarriedElsewhere } from "./tag.service";
export {
  addTaxonMember,
  changeTaxon,
  createTaxon,
  delTaxonMember,
  deleteTaxon,
  listedTaxa,
  taxaOfEntity,
  taxonCounts,
  taxonMembersPage,
  taxonomyTree,
  treeList,
} from "./taxonomy.service";
export type { TaxonNode, TreeInfo } from "./taxonomy.service";
export { importMappedFields } from "./field-import.service";
export { DEFAULT_CLASS_ID } from "./default-set";
export { exportMetadataCsv, metadataCsvStream, csvTemplates } from "./metadata-csv-export.service";
export type { AssetIdPages } from "./metadata-csv-export.service";
export { MAX_CSV_BYTES, MAX_CSV_ROWS, applyMetadataCsvRows, dryRunMetadataCsv, planMetadataCsv, readCsvBody } from "./metadata-csv-import.service";
export type { CsvRecord, CsvReport } from "./metadata-csv-import.service";
