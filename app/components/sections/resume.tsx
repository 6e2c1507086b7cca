import { Section } from "~/components/section";
import { ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { IconTile } from "~/components/ui/icon-tile";
import { DownloadIcon, ExternalLinkIcon, FileTextIcon } from "~/components/ui/icons";
import type { SectionCopy, SiteContent } from "~/content/site";

export function Resume({ resume, copy }: { resume: SiteContent["resume"]; copy: SectionCopy }) {
  return (
    <Section id="resume" eyebrow="Resume" {...copy}>
      <Card className="flex flex-col gap-6 p-5 sm:flex-row sm:items-center sm:justify-between sm:p-6 print:flex-col print:items-start print:gap-3">
        <div className="flex items-center gap-3 sm:gap-4">
          <IconTile size="xl">
            <FileTextIcon />
          </IconTile>
          <div className="min-w-0">
            <h3 className="text-sm font-semibold wrap-anywhere sm:text-base">{resume.fileLabel}</h3>
            <p className="text-sm text-muted-foreground">PDF · Updated {resume.date}</p>
          </div>
        </div>
        <div className="flex flex-col gap-2 sm:flex-row">
          {/* Both buttons lead to one address; paper prints it once. */}
          <ButtonLink href={resume.url} external className="print:hidden">
            <DownloadIcon /> Download Resume
          </ButtonLink>
          <ButtonLink href={resume.url} external variant="outline">
            <ExternalLinkIcon /> View Online
          </ButtonLink>
        </div>
      </Card>
    </Section>
  );
}
