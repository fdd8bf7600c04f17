/**
 * The default descriptive metadata set that migration 0048 seeds: the class files without a class show, so a fresh
 * install offers «Описание» and its siblings in the viewer at once. Pure constants (the browser imports them).
 */

/** The seeded class «Основные сведения»; the viewer shows its fields for a file without a class while it exists. */
export const DEFAULT_CLASS_ID = "000000000000000000000000000d0c01";
