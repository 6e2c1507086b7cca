import { Section } from "~/components/section";
import { Card } from "~/components/ui/card";
import { IconTile } from "~/components/ui/icon-tile";
import { BriefcaseIcon, GraduationCapIcon } from "~/components/ui/icons";
import type { SiteContent } from "~/content/site";
import type { ReactNode } from "react";

export function About({ site }: { site: SiteContent }) {
  const { education, experience, stat } = site;
  return (
    <Section id="about" eyebrow="About" {...site.sections.about}>
      <div className="grid grid-cols-1 gap-10 lg:grid-cols-5">
        <div className="space-y-5 text-lg leading-8 text-muted-foreground lg:col-span-3">
          {site.about.intro.map((paragraph) => (
            <p key={paragraph}>{paragraph}</p>
          ))}
          <div className="inline-flex items-baseline gap-3 rounded-lg border border-border bg-card px-5 py-4">
            <span className="text-4xl font-bold text-primary">{stat.value}</span>
            <span className="text-base font-medium text-foreground">{stat.label}</span>
          </div>
        </div>
        <div className="grid grid-cols-1 gap-4 lg:col-span-2">
          <FactCard icon={<GraduationCapIcon />} title="Education" headline={education.degree}>
            <p className="text-sm text-muted-foreground">{education.school}</p>
            <p className="mt-2 text-sm text-muted-foreground">
              {education.graduation} · {education.cgpa}
            </p>
          </FactCard>
          <FactCard icon={<BriefcaseIcon />} title="Experience" headline={experience.title}>
            <p className="text-sm text-muted-foreground">
              {experience.company} ·{" "}
              <span className="whitespace-nowrap">
                {experience.start} – {experience.end}
              </span>
            </p>
            <p className="mt-2 text-sm leading-6 text-muted-foreground">{experience.summary}</p>
          </FactCard>
        </div>
      </div>
    </Section>
  );
}

function FactCard({
  icon,
  title,
  headline,
  children,
}: {
  icon: ReactNode;
  title: string;
  headline: string;
  children: ReactNode;
}) {
  return (
    <Card className="p-6">
      <div className="flex items-center gap-3">
        <IconTile>{icon}</IconTile>
        <h3 className="text-lg font-semibold">{title}</h3>
      </div>
      <p className="mt-4 font-medium">{headline}</p>
      {children}
    </Card>
  );
}
