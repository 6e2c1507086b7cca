import { Section } from "~/components/section";
import { ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { DownloadIcon, ExternalLinkIcon, FileTextIcon } from "~/components/ui/icons";
import type { SiteContent } from "~/content/site";

export function Resume({ resume }: { resume: SiteContent["resume"] }) {
  return (
    <Section id="resume" eyebrow="Resume" title="Resume" description="Everything above on one page, ready to share.">
      <Card className="flex flex-col gap-6 p-6 sm:flex-row sm:items-center sm:justify-between">
        <div className="flex items-center gap-4">
          <span className="grid size-12 shrink-0 place-items-center rounded-md bg-primary/10 text-primary">
            <FileTextIcon className="size-6" />
          </span>
          <div className="min-w-0">
            <h3 className="break-all font-semibold sm:break-normal">{resume.fileLabel}</h3>
            <p className="text-sm text-muted-foreground">PDF · Updated {resume.date}</p>
          </div>
        </div>
        <div className="flex flex-wrap gap-2">
          <ButtonLink href={resume.url} external>
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
