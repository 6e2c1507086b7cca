import type { SiteContent } from "~/content/site";

export function Footer({ site }: { site: SiteContent }) {
  return (
    <footer className="border-t border-border py-8">
      <div className="container flex flex-col items-center justify-between gap-2 text-sm text-muted-foreground sm:flex-row">
        <p>
          {site.footer} {site.name}
        </p>
        <p>{site.role}</p>
      </div>
    </footer>
  );
}
