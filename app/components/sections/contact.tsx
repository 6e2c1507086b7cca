import { Section } from "~/components/section";
import { Card } from "~/components/ui/card";
import { IconTile } from "~/components/ui/icon-tile";
import { GithubIcon, LinkedinIcon, MailIcon, PhoneIcon } from "~/components/ui/icons";
import type { SectionCopy, SiteContent } from "~/content/site";
import type { ReactNode } from "react";

export function Contact({
  contact,
  copy,
  form,
}: {
  contact: SiteContent["contact"];
  copy: SectionCopy;
  form: ReactNode;
}) {
  const items = [
    {
      label: "Email",
      value: contact.email,
      href: `mailto:${contact.email}`,
      Icon: MailIcon,
      external: false,
    },
    {
      label: "Phone",
      value: contact.phone,
      href: `tel:${contact.phone.replace(/[^\d+]/g, "")}`,
      Icon: PhoneIcon,
      external: false,
    },
    {
      label: "LinkedIn",
      value: displayUrl(contact.linkedinUrl),
      href: contact.linkedinUrl,
      Icon: LinkedinIcon,
      external: true,
    },
    {
      label: "GitHub",
      value: displayUrl(contact.githubUrl),
      href: contact.githubUrl,
      Icon: GithubIcon,
      external: true,
    },
  ];
  return (
    <Section id="contact" eyebrow="Contact" {...copy} className="bg-muted/40">
      <div className="grid grid-cols-1 gap-8 lg:grid-cols-5">
        <ul className="space-y-3 lg:col-span-2">
          {items.map(({ label, value, href, Icon, external }) => (
            <li key={label}>
              <a
                href={href}
                {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}
                className="flex items-center gap-4 rounded-lg border border-border bg-card p-4 transition-colors hover:border-primary/50 print:break-inside-avoid print:after:content-none"
              >
                <IconTile>
                  <Icon />
                </IconTile>
                <span className="min-w-0">
                  <span className="block text-sm text-muted-foreground">{label}</span>
                  <span className="block font-medium wrap-anywhere">{value}</span>
                </span>
              </a>
            </li>
          ))}
        </ul>
        <Card className="p-6 sm:p-8 lg:col-span-3 print:hidden">{form}</Card>
      </div>
    </Section>
  );
}

function displayUrl(url: string) {
  return url.replace(/^https?:\/\/(www\.)?/, "");
}
