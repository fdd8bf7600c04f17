import type { MetaFunction } from "@remix-run/cloudflare";
import { useSearchParams } from "@remix-run/react";
import { ClassesSection } from "../components/metadata/classes-section";
import { ListsSection } from "../components/metadata/lists-section";
import { TaxonomySection } from "../components/metadata/taxonomy-section";
import { TemplatesSection } from "../components/metadata/templates-section";
import { ru } from "../i18n/ru";

export const meta: MetaFunction = () => [{ title: `${ru.screens.metadata} — ${ru.app.name}` }];

const SECTIONS = ["templates", "classes", "taxonomies", "lists"] as const;
type Section = (typeof SECTIONS)[number];

/** /admin/metadata: field templates, asset classes, taxonomies and lists, one section at a time (?section=). */
export default function MetadataAdminRoute() {
  const [params, setParams] = useSearchParams();
  const wanted = params.get("section");
  const section: Section = SECTIONS.includes(wanted as Section) ? (wanted as Section) : "templates";
  return (
    <div className="md-admin">
      <div className="segmented md-sections" role="tablist" aria-label={ru.screens.metadata}>
        {SECTIONS.map((s) => (
          <button
            key={s}
            type="button"
            role="tab"
            aria-selected={s === section}
            className={`md-section-tab${s === section ? " active" : ""}`}
            onClick={() => setParams(s === "templates" ? {} : { section: s }, { replace: true })}
          >
            {ru.metadataAdmin.sections[s]}
          </button>
        ))}
      </div>
      {section === "templates" && <TemplatesSection />}
      {section === "classes" && <ClassesSection />}
      {section === "taxonomies" && <TaxonomySection />}
      {section === "lists" && <ListsSection />}
    </div>
  );
}
