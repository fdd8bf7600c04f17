import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import { PREVIEW_SIZES, type PreviewSizeName } from "../../media";
import type { OperationSpec } from "./operation";
import { titleOf } from "./title";

const SIZE_NAMES = PREVIEW_SIZES.map((s) => s.name) as [PreviewSizeName, ...PreviewSizeName[]];

export const PreviewOptionsSchema = z.object({
  /** preview config entries to make */
  sizes: z.array(z.enum(SIZE_NAMES)).min(1).default(SIZE_NAMES),
});
export type PreviewOptions = z.infer<typeof PreviewOptionsSchema>;

/** What the API Worker knows of `preview` to create its tasks; the decoding half is preview.operation.ts (media Worker). */
export const previewSpec: OperationSpec<PreviewOptions> = {
  name: "preview",
  entityTypes: ["asset"],
  options: PreviewOptionsSchema,
  title: (entities, names) => `${ru.tasks.operations.preview}: ${titleOf(entities, names)}`,
};
