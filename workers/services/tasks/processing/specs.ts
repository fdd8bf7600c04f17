import { copyOperation } from "./copy.operation";
import { exportOperation } from "./export.operation";
import { libraryMoveOperation } from "./library-move.operation";
import { metadataCsvOperation } from "./metadata-csv.operation";
import { OPERATION_CLASSES, type OperationClass, type OperationSpec } from "./operation";
import { previewSpec } from "./preview.spec";
import { purgeOperation } from "./purge.operation";
import { reindexOperation } from "./reindex.operation";
import { techFieldsSpec } from "./tech-fields.spec";

/**
 * Every operation class as creating and listing tasks needs it (the API Worker). The classes whose steps decode files
 * enter by their spec alone; their steps are registry.ts, which only the task runner (the media Worker) imports.
 */
const OPERATION_SPECS: Record<OperationClass, OperationSpec<never>> = {
  preview: previewSpec as unknown as OperationSpec<never>,
  "tech-fields": techFieldsSpec as unknown as OperationSpec<never>,
  copy: copyOperation as unknown as OperationSpec<never>,
  purge: purgeOperation as unknown as OperationSpec<never>,
  export: exportOperation as unknown as OperationSpec<never>,
  reindex: reindexOperation as unknown as OperationSpec<never>,
  "metadata-csv": metadataCsvOperation as unknown as OperationSpec<never>,
  "library-move": libraryMoveOperation as unknown as OperationSpec<never>,
};

export function isOperationClass(value: string): value is OperationClass {
  return (OPERATION_CLASSES as readonly string[]).includes(value);
}

/** The spec of a class, typed loosely for task creation (options are JSON it validates and passes through). */
export function specOf(name: string): OperationSpec<Record<string, unknown>> | null {
  return isOperationClass(name) ? (OPERATION_SPECS[name] as unknown as OperationSpec<Record<string, unknown>>) : null;
}
