import { copyOperation } from "./copy.operation";
import { exportOperation } from "./export.operation";
import { libraryMoveOperation } from "./library-move.operation";
import { metadataCsvOperation } from "./metadata-csv.operation";
import type { OperationClass, TaskOperation } from "./operation";
import { previewOperation } from "./preview.operation";
import { purgeOperation } from "./purge.operation";
import { reindexOperation } from "./reindex.operation";
import { isOperationClass } from "./specs";
import { techFieldsOperation } from "./tech-fields.operation";

/** Every operation class the queue consumer runs, by name: the task runner's alone (it links the decoders). */
export const OPERATIONS: Record<OperationClass, TaskOperation<never, never>> = {
  preview: previewOperation as unknown as TaskOperation<never, never>,
  "tech-fields": techFieldsOperation as unknown as TaskOperation<never, never>,
  copy: copyOperation as unknown as TaskOperation<never, never>,
  purge: purgeOperation as unknown as TaskOperation<never, never>,
  export: exportOperation as unknown as TaskOperation<never, never>,
  reindex: reindexOperation as unknown as TaskOperation<never, never>,
  "metadata-csv": metadataCsvOperation as unknown as TaskOperation<never, never>,
  "library-move": libraryMoveOperation as unknown as TaskOperation<never, never>,
};

/** The operation of a class, typed loosely for the runner (options and state are JSON it passes through). */
export function operationOf(name: string): TaskOperation<Record<string, unknown>, Record<string, unknown>> | null {
  return isOperationClass(name) ? (OPERATIONS[name] as unknown as TaskOperation<Record<string, unknown>, Record<string, unknown>>) : null;
}
