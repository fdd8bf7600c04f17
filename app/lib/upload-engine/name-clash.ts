import { apiRequest } from "../api-client";
import { keepBothCandidates } from "./keep-both-name";
import type { PickedFile } from "./pick";

/**
 * The same-name rule of an upload batch: before anything is created, the batch's loose files (those going straight
 * into the target folder) are checked against the folder's files on the server in one call per 500 names
 * (`POST /api/group/existing-names/{id}`: an index lookup, never a listing of a big folder). For every clash the
 * user chooses a new version of the existing file, keeping both (the new one numbered: `nameKeptBoth`), or skipping the file; a choice may apply to the
 * rest of the batch. Files of dropped sub-folders are not checked: their folders are new or reused as a whole.
 */

export type ClashChoice = "version" | "both" | "skip";

/** A file of the folder that an uploaded file's name clashes with (the server's answer). */
export interface NameMatch {
  name: string;
  asset_id: string;
  asset_name: string;
  ver: number;
}

/** What the user answered for one clash; `all` applies it to every clash of the batch still unanswered. */
export interface ClashAnswer {
  choice: ClashChoice;
  all: boolean;
}

/** Asks about one clash (`name`), showing every clash still open (`pending`, `name` first). */
export type AskClash = (name: string, pending: string[]) => Promise<ClashAnswer | null>;

/** Names the server checks per call. */
export const NAMES_PER_CHECK = 500;

/** The loose files of a batch: those whose name can clash with a file of the target folder itself. */
export const isLoose = (p: PickedFile) => p.folders.length === 0 && !p.versionOf;

const keyOf = (name: string) => name.toLowerCase();

/** Which of `names` the folder already holds, by lower-cased name (one call per 500 names). */
async function existingNames(groupId: string, names: readonly string[]): Promise<Map<string, NameMatch>> {
  const found = new Map<string, NameMatch>();
  for (let i = 0; i < names.length; i += NAMES_PER_CHECK) {
    const { matches } = await apiRequest<{ matches: NameMatch[] }>(`/api/group/existing-names/${groupId}`, {
      method: "POST",
      body: { names: names.slice(i, i + NAMES_PER_CHECK) },
    });
    for (const m of matches) found.set(keyOf(m.name), m);
  }
  return found;
}

/** Which names of the batch's loose files the folder already holds, by lower-cased name. */
export function findClashes(groupId: string, picked: readonly PickedFile[]): Promise<Map<string, NameMatch>> {
  return existingNames(groupId, [...new Set(picked.filter(isLoose).map((p) => p.file.name))]);
}

/** Numbered names asked of the folder at a time for each kept-both file. */
const CANDIDATES_PER_ROUND = 10;

/**
 * «Оставить оба» (issue 28): every file kept beside a same-named one gets the first free numbered name —
 * «diagram_1 (2).png», then (3), … — free both in the folder (asked of the server, `taken`) and in the batch itself.
 * The other files are answered as they are.
 */
export async function nameKeptBoth(
  picked: readonly PickedFile[],
  taken: (names: readonly string[]) => Promise<ReadonlySet<string>>,
): Promise<PickedFile[]> {
  const used = new Set(picked.filter(isLoose).map((p) => keyOf(p.file.name)));
  const out: PickedFile[] = [];
  for (const p of picked) {
    if (!p.keepBoth) {
      out.push(p);
      continue;
    }
    let name: string | undefined;
    for (let from = 2; !name; from += CANDIDATES_PER_ROUND) {
      const candidates = keepBothCandidates(p.file.name, from, CANDIDATES_PER_ROUND).filter((c) => !used.has(keyOf(c)));
      const inFolder = candidates.length ? await taken(candidates) : new Set<string>();
      name = candidates.find((c) => !inFolder.has(keyOf(c)));
    }
    used.add(keyOf(name));
    const file = new File([p.file], name, { type: p.file.type, lastModified: p.file.lastModified });
    out.push({ file, folders: p.folders });
  }
  return out;
}

/** `nameKeptBoth` against a folder on the server. */
export const nameKeptBothIn = (groupId: string, picked: readonly PickedFile[]) =>
  nameKeptBoth(picked, async (names) => new Set((await existingNames(groupId, names)).keys()));

/**
 * Applies the user's choices to a batch, asking once per clash until an answer says `all` (then that choice is
 * remembered for the rest of the batch). Answers the files to queue, in the order given: a new version carries
 * `versionOf`, a skipped file is left out. A dismissed question (null) skips that file and asks about the next.
 */
export async function resolveClashes(picked: readonly PickedFile[], clashes: ReadonlyMap<string, NameMatch>, ask: AskClash): Promise<PickedFile[]> {
  const clashing = picked.filter((p) => isLoose(p) && clashes.has(keyOf(p.file.name)));
  const decided = new Map<PickedFile, ClashChoice>();
  let remembered: ClashChoice | null = null;
  for (let i = 0; i < clashing.length; i += 1) {
    const p = clashing[i];
    if (remembered) {
      decided.set(p, remembered);
      continue;
    }
    const answer = await ask(
      p.file.name,
      clashing.slice(i).map((c) => c.file.name),
    );
    const choice = answer?.choice ?? "skip";
    decided.set(p, choice);
    if (answer?.all) remembered = choice;
  }
  return picked.flatMap((p) => {
    const choice = decided.get(p);
    if (choice === "skip") return [];
    if (choice === "version") return [{ ...p, versionOf: clashes.get(keyOf(p.file.name))!.asset_id }];
    if (choice === "both") return [{ ...p, keepBoth: true }];
    return [p];
  });
}
