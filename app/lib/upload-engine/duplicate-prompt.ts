import type { DuplicateChoice, DuplicateMatch } from "./duplicate-check";

/**
 * The one open «Такой файл уже есть» question of the page, between the upload code that asks (`askDuplicate`) and
 * the dialog the signed-in shell renders (`DuplicateHost`). Questions asked while one is open wait their turn.
 */
export interface DuplicateQuestion {
  name: string;
  matches: readonly DuplicateMatch[];
  answer: (choice: DuplicateChoice | null) => void;
}

let current: DuplicateQuestion | null = null;
const waiting: DuplicateQuestion[] = [];
const listeners = new Set<() => void>();

function show(next: DuplicateQuestion | null) {
  current = next;
  for (const listener of listeners) listener();
}

/** Asks the user about one duplicate; resolves with the choice (null: the dialog was closed). */
export function askDuplicate(name: string, matches: readonly DuplicateMatch[]): Promise<DuplicateChoice | null> {
  return new Promise((resolve) => {
    const question: DuplicateQuestion = {
      name,
      matches,
      answer: (choice) => {
        resolve(choice);
        show(waiting.shift() ?? null);
      },
    };
    if (current) waiting.push(question);
    else show(question);
  });
}

export const duplicatePrompt = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
  get: () => current,
  getServer: () => null,
};
