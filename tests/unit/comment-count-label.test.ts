import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";

// The tile badge's tooltip and accessible name (decision record 035): both numbers in words, with Russian plurals.
describe("ru.commentCounts.label", () => {
  it.each([
    [3, 1, "3 комментария, 1 открыт"],
    [2, 2, "2 комментария, 2 открыты"],
    [5, 5, "5 комментариев, 5 открыто"],
    [11, 11, "11 комментариев, 11 открыто"],
    [21, 21, "21 комментарий, 21 открыт"],
    [24, 22, "24 комментария, 22 открыты"],
    [112, 14, "112 комментариев, 14 открыто"],
    [1, 0, "1 комментарий, решён"],
    [7, 0, "7 комментариев, все решены"],
  ])("%i total, %i open: %s", (total, open, label) => {
    expect(ru.commentCounts.label(total, open)).toBe(label);
  });
});
