import { Section } from "~/components/section";
import { Badge } from "~/components/ui/badge";
import { ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { ExternalLinkIcon, GithubIcon } from "~/components/ui/icons";
import type { Project, SectionCopy } from "~/content/site";

export function Projects({
  projects,
  profileUrl,
  copy,
}: {
  projects: readonly Project[];
  profileUrl: string;
  copy: SectionCopy;
}) {
  return (
    <Section id="projects" eyebrow="Projects" {...copy} className="bg-muted/40">
      <ul className="grid grid-cols-1 gap-4 md:grid-cols-2 lg:grid-cols-3">
        {projects.map((project) => (
          <li key={project.title} className="md:last:odd:col-span-2 lg:last:odd:col-span-1">
            <Card className="flex h-full flex-col p-6">
              <h3 className="text-lg font-semibold">{project.title}</h3>
              <p className="mt-2 flex-1 leading-7 text-muted-foreground">{project.description}</p>
              <ul className="mt-5 flex flex-wrap gap-2" aria-label={`${project.title} technologies`}>
                {project.technologies.map((tech) => (
                  <li key={tech}>
                    <Badge>{tech}</Badge>
                  </li>
                ))}
              </ul>
              <div className="mt-6 flex flex-wrap gap-2">
                <ButtonLink
                  href={project.githubUrl}
                  external
                  variant="outline"
                  size="sm"
                  aria-label={`${project.title} on GitHub`}
                >
                  <GithubIcon /> GitHub
                </ButtonLink>
                {project.demoUrl ? (
                  <ButtonLink
                    href={project.demoUrl}
                    external
                    size="sm"
                    aria-label={`${project.title} live demo`}
                  >
                    <ExternalLinkIcon /> Live Demo
                  </ButtonLink>
                ) : null}
              </div>
            </Card>
          </li>
        ))}
      </ul>
      <div className="mt-10 text-center">
        <ButtonLink href={profileUrl} external variant="outline">
          <GithubIcon /> View All Projects on GitHub
        </ButtonLink>
      </div>
    </Section>
  );
}
