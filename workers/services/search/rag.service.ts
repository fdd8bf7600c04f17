import { ru } from "../../../shared/i18n/ru";
import * as repo from "../../db/repositories/search.repository";
import { visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { AI_ANSWER_MODEL, firstWindow, markedHtml, widening } from "./search.service";
import { caughtUp } from "./index-feed";
import { parseQuery } from "./query-parser";
import { contentWords, stemPrefix, words } from "./tokenize";

/**
 * POST /api/search/rag: an answer grounded only in documents the caller may read (decision 011). Retrieval is the
 * full-text index (any content word of the question, visible live assets with extracted text); the best passages
 * are cited by number. With Workers AI bound an LLM writes the answer from those passages only; without it the
 * answer is the passages themselves, quoted and labelled extractive. Nothing relevant visible → the refusal.
 */

export interface Citation {
  n: number;
  asset_id: string;
  version: number;
  name: string;
  /** the cited passage, HTML-escaped, question words in `<mark>` */
  snippet: string;
}

export interface RagAnswer {
  found: boolean;
  mode: "extractive" | "llm" | "none";
  answer: string;
  citations: Citation[];
}

/** Documents read for passages, passages cited, and the longest passage. */
const DOCUMENTS = 8;
const CITED = 3;
const PASSAGE_CHARS = 400;

/** Cuts a text into passages of whole sentences of up to about PASSAGE_CHARS characters. */
export function passagesOf(text: string): string[] {
  const sentences = text
    .split(/\n\s*\n|(?<=[.!?…])\s+|\n/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter(Boolean);
  const out: string[] = [];
  let current = "";
  for (const s of sentences) {
    if (current && current.length + s.length + 1 > PASSAGE_CHARS) {
      out.push(current);
      current = "";
    }
    current = current ? `${current} ${s}` : s;
    while (current.length > PASSAGE_CHARS * 2) {
      out.push(current.slice(0, PASSAGE_CHARS));
      current = current.slice(PASSAGE_CHARS);
    }
  }
  if (current) out.push(current);
  return out;
}

/** The question's word prefixes (stems) a passage word must start with to count. */
function keysOf(question: string): string[] {
  return [
    ...new Set(
      contentWords(question, 24)
        .map(stemPrefix)
        .filter((k) => k.length >= 2),
    ),
  ];
}

/** The number of distinct question keys a passage contains, and the passage with those words marked. */
export function scorePassage(passage: string, keys: string[]): { score: number; html: string } {
  const hit = new Set<string>();
  const html = passage.replace(/[\p{L}\p{N}]+/gu, (word) => {
    const [w] = words(word);
    const key = w ? keys.find((k) => w.startsWith(k) || (w.length >= 4 && k.startsWith(w))) : undefined;
    if (!key) return `\u0001${word}\u0001`;
    hit.add(key);
    return `\u0002${word}\u0003`;
  });
  return { score: hit.size, html: markedHtml(html.replaceAll("\u0001", "")) };
}

/** Answers a question from the caller's readable documents. */
export async function askQuestion(rc: RequestContext, actor: Actor, question: string): Promise<RagAnswer> {
  const refusal: RagAnswer = { found: false, mode: "none", answer: ru.search.refusal, citations: [] };
  const keys = keysOf(question);
  const { match } = parseQuery(question, "OR");
  if (!match || keys.length === 0) return refusal;
  const [vis] = await Promise.all([visibility(rc, actor), caughtUp(rc)]);
  const docs = await widening(firstWindow(DOCUMENTS, 0.1), DOCUMENTS, (candidates) =>
    repo.searchTexts(rc.db, rc.search, { match: `{content} : (${match})`, vis, filters: { type: "asset" }, limit: DOCUMENTS, contentChars: 0, candidates }),
  );
  if (docs.length === 0) return refusal;
  // Passages quote the extracted text itself (the index folds ё).
  const texts = new Map(
    (
      await repo.contentsOf(
        rc.db,
        docs.map((d) => d.id),
      )
    ).map((c) => [c.asset_id, c]),
  );
  const needed = Math.min(2, keys.length);
  const candidates = docs.flatMap((doc, rank) =>
    passagesOf(texts.get(doc.id)?.text ?? "").map((text) => ({ doc, rank, text, ...scorePassage(text, keys) })),
  );
  const best = candidates
    .filter((c) => c.score >= needed)
    .sort((a, b) => b.score - a.score || a.rank - b.rank)
    .slice(0, CITED);
  if (best.length === 0) return refusal;
  const citations: Citation[] = best.map((c, i) => ({
    n: i + 1,
    asset_id: c.doc.id,
    version: texts.get(c.doc.id)?.version ?? 1,
    name: c.doc.name,
    snippet: c.html,
  }));
  const generated = await llmAnswer(
    rc,
    question,
    best.map((c) => c.text),
  );
  if (generated) return { found: true, mode: "llm", answer: generated, citations };
  return { found: true, mode: "extractive", answer: best.map((c, i) => `«${c.text}» [${i + 1}]`).join("\n"), citations };
}

/** The LLM's answer from the numbered passages, when Workers AI is bound; null otherwise or when it fails. */
async function llmAnswer(rc: RequestContext, question: string, passages: string[]): Promise<string | null> {
  const ai = (rc.env as unknown as { AI?: { run(model: string, input: Record<string, unknown>): Promise<unknown> } }).AI;
  if (!ai) return null;
  try {
    const context = passages.map((p, i) => `[${i + 1}] ${p}`).join("\n");
    const out = (await ai.run(AI_ANSWER_MODEL, {
      messages: [
        {
          role: "system",
          content: `Answer only from the numbered passages, in the language of the question, citing them as [n]. If they do not contain the answer, reply exactly: ${ru.search.refusal}`,
        },
        { role: "user", content: `${context}\n\nQuestion: ${question}` },
      ],
    })) as { response?: string };
    return out.response?.trim() || null;
  } catch (error) {
    console.warn("rag: Workers AI answer failed, answering extractively", error);
    return null;
  }
}
