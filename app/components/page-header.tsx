/** Title row of a screen, with an optional subtitle and actions. */
export function PageHeader({
  title,
  subtitle,
  actions,
  crumbs,
}: {
  title: string;
  subtitle?: string;
  actions?: React.ReactNode;
  crumbs?: React.ReactNode;
}) {
  return (
    <div className="page-header">
      <div>
        {crumbs && <div className="breadcrumbs">{crumbs}</div>}
        <h1 className="page-title">{title}</h1>
        {subtitle && <div className="page-subtitle">{subtitle}</div>}
      </div>
      {actions}
    </div>
  );
}
