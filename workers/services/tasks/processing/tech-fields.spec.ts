import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import type { OperationSpec } from "./operation";
import { titleOf } from "./title";

const TechFieldsOptionsSchema = z.object({});
export type TechFieldsOptions = z.infer<typeof TechFieldsOptionsSchema>;

/** What the API Worker knows of `tech-fields` to create its tasks; the parsing half is tech-fields.operation.ts (media Worker). */
export const techFieldsSpec: OperationSpec<TechFieldsOptions> = {
  name: "tech-fields",
  entityTypes: ["asset"],
  options: TechFieldsOptionsSchema,
  title: (entities, names) => `${ru.tasks.operations["tech-fields"]}: ${titleOf(entities, names)}`,
};
