import type { ReactNode } from "react";
import { cn } from "~/lib/cn";

export function Section({
  id,
  eyebrow,
  title,
  description,
  className,
  children,
}: {
  id: string;
  eyebrow: string;
  title: string;
  description?: string;
  className?: string;
  children: ReactNode;
}) {
  const headingId = `${id}-heading`;
  return (
    <section
      id={id}
      aria-labelledby={headingId}
      className={cn("py-20 sm:py-24 print:break-inside-avoid print:py-4", className)}
    >
      <div className="container">
        <header className="mb-10 max-w-2xl sm:mb-12">
          <p className="text-sm font-semibold tracking-wider text-primary uppercase">{eyebrow}</p>
          <h2 id={headingId} className="mt-2 text-3xl font-bold tracking-tight sm:text-4xl">
            {title}
          </h2>
          {description ? (
            <p className="mt-4 text-base leading-7 text-muted-foreground">{description}</p>
          ) : null}
        </header>
        {children}
      </div>
    </section>
  );
}
