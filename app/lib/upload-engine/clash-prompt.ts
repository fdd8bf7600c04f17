import type { ClashAnswer } from "./name-clash";

/**
 * The one open same-name question of the page, between the upload code that asks (`askClash`) and the dialog that
 * the signed-in shell renders (`useClashPrompt`). Questions asked while one is open wait their turn.
 */
export interface ClashQuestion {
  /** the file asked about */
  name: string;
  /** every clash of the batch still unanswered, `name` first */
  pending: string[];
  /** the folder's name, when known */
  folder: string | null;
  answer: (answer: ClashAnswer | null) => void;
}

let current: ClashQuestion | null = null;
const waiting: ClashQuestion[] = [];
const listeners = new Set<() => void>();

function show(next: ClashQuestion | null) {
  current = next;
  for (const listener of listeners) listener();
}

/** Asks the user about one clash; resolves with the answer (null: the dialog was closed). */
export function askClash(name: string, pending: string[], folder: string | null): Promise<ClashAnswer | null> {
  return new Promise((resolve) => {
    const question: ClashQuestion = {
      name,
      pending,
      folder,
      answer: (answer) => {
        resolve(answer);
        show(waiting.shift() ?? null);
      },
    };
    if (current) waiting.push(question);
    else show(question);
  });
}

export const clashPrompt = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
  get: () => current,
  getServer: () => null,
};
