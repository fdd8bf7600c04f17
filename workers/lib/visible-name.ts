import { z } from "zod";
import { ru } from "../../shared/i18n/ru";
import { invisibleCharIn } from "../../shared/visible-name";

/**
 * Refuses a name holding an invisible or direction-changing character (`\p{Cf}` such as U+202E or U+200B, and the
 * blank letters; see shared/visible-name.ts). Every name schema uses it: files, folders, tags, fields, lists,
 * users and logins, robot tokens, asset classes, taxonomy, storages, automations. The 400 names the field and the
 * character: «Поле «group_name»: имя не может содержать невидимые символы … (U+202E)».
 * @example z.string().max(100).check(visibleName)
 */
export const visibleName = z.superRefine<string>((value, ctx) => {
  const char = invisibleCharIn(value);
  if (char) ctx.addIssue({ code: "custom", message: ru.errors.invisibleChars(char), input: value });
});
