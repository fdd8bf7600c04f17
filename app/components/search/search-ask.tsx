import { Link } from "@remix-run/react";
import { useState } from "react";
import { ru } from "../../i18n/ru";
import { askQuestion, type RagAnswer } from "../../lib/search-api";
import { Highlighted } from "./highlighted";

/** The "Спросить" tab: a question answered from readable documents, with numbered citations that open the viewer. */
export function SearchAsk({ initial }: { initial: string }) {
  const [question, setQuestion] = useState(initial);
  const [answer, setAnswer] = useState<RagAnswer | null>(null);
  const [busy, setBusy] = useState(false);

  async function ask(e: React.FormEvent) {
    e.preventDefault();
    if (!question.trim()) return;
    setBusy(true);
    try {
      setAnswer(await askQuestion(question));
    } catch {
      setAnswer(null);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="search-ask">
      <form className="search-ask-form" onSubmit={ask}>
        <input
          className="input"
          aria-label={ru.search.askPlaceholder}
          placeholder={ru.search.askPlaceholder}
          value={question}
          maxLength={2000}
          onChange={(e) => setQuestion(e.target.value)}
        />
        <button className="btn btn-primary" type="submit" disabled={busy}>
          {busy ? ru.search.asking : ru.search.askButton}
        </button>
      </form>
      {answer && (
        <section className="panel search-answer" data-testid="rag-answer">
          {answer.found ? (
            <>
              <div className="search-answer-mode">{answer.mode === "llm" ? ru.search.generated : ru.search.extractive}</div>
              <p className="search-answer-text">{answer.answer}</p>
              <h3>{ru.search.citations}</h3>
              <ol className="search-citations">
                {answer.citations.map((c) => (
                  <li key={c.n} value={c.n}>
                    <Link to={`/asset/${c.asset_id}`} className="search-citation-link">
                      [{c.n}] {c.name} · {ru.search.version(c.version)}
                    </Link>
                    <Highlighted className="search-hit-snippet" html={c.snippet} />
                  </li>
                ))}
              </ol>
            </>
          ) : (
            <p className="search-answer-text muted">{answer.answer}</p>
          )}
        </section>
      )}
    </div>
  );
}
