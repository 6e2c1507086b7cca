import { ButtonLink } from "~/components/ui/button";
import { ArrowRightIcon, GithubIcon, LinkedinIcon, MailIcon, MapPinIcon } from "~/components/ui/icons";
import { Tooltip } from "~/components/ui/tooltip";
import type { SiteContent } from "~/content/site";

export function Hero({ site }: { site: SiteContent }) {
  const socials = [
    { label: "GitHub profile", href: site.contact.githubUrl, Icon: GithubIcon, external: true },
    { label: "LinkedIn profile", href: site.contact.linkedinUrl, Icon: LinkedinIcon, external: true },
    {
      label: `Email ${site.contact.email}`,
      href: `mailto:${site.contact.email}`,
      Icon: MailIcon,
      external: false,
    },
  ];
  return (
    <section
      id="home"
      aria-labelledby="home-heading"
      className="relative overflow-hidden pt-32 pb-12 sm:pt-40 sm:pb-16 print:break-inside-avoid print:pt-0 print:pb-4"
    >
      <div
        aria-hidden="true"
        className="pointer-events-none absolute inset-x-0 top-0 -z-10 h-[36rem] bg-[radial-gradient(ellipse_at_top,hsl(var(--primary)/0.16),transparent_65%)]"
      />
      <div className="container">
        <div className="max-w-3xl">
          <p className="inline-flex items-center gap-2 rounded-2xl border border-border bg-card px-3 py-1 text-sm text-muted-foreground">
            <MapPinIcon className="size-4" /> {site.location} · {site.availability}
          </p>
          <h1 id="home-heading" className="mt-6 text-4xl font-bold tracking-tight text-balance sm:text-6xl">
            Hi, I'm <span className="text-primary">{site.name}</span>
          </h1>
          <p className="mt-4 text-xl font-medium text-foreground/90 sm:text-2xl">{site.role}</p>
          <p className="mt-6 max-w-2xl text-lg leading-8 text-muted-foreground">{site.tagline}</p>
          <div className="mt-10 flex flex-wrap items-center gap-3 print:hidden">
            <ButtonLink href="#projects" className="h-11 px-6">
              View My Work <ArrowRightIcon />
            </ButtonLink>
            <ButtonLink href="#contact" variant="outline" className="h-11 px-6">
              Get In Touch
            </ButtonLink>
            <ul className="-ml-3 flex items-center gap-1 sm:ml-1" aria-label="Profiles">
              {socials.map(({ label, href, Icon, external }) => (
                <li key={label}>
                  <Tooltip content={label}>
                    <ButtonLink
                      href={href}
                      variant="ghost"
                      size="icon"
                      external={external}
                      aria-label={label}
                    >
                      <Icon />
                    </ButtonLink>
                  </Tooltip>
                </li>
              ))}
            </ul>
          </div>
        </div>
      </div>
    </section>
  );
}
