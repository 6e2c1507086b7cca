import type { SiteContent } from "~/content/site";

export function personJsonLd(site: SiteContent) {
  const person = {
    "@context": "https://schema.org",
    "@type": "Person",
    name: site.name,
    jobTitle: site.role,
    url: site.siteUrl,
    email: `mailto:${site.contact.email}`,
    telephone: site.contact.phone,
    sameAs: [site.contact.linkedinUrl, site.contact.githubUrl],
    alumniOf: { "@type": "CollegeOrUniversity", name: site.education.school },
    knowsAbout: site.skillGroups.find((group) => group.title === "Specialties")?.skills ?? [],
  };
  // "<" escaped so the content can never close the script element.
  return JSON.stringify(person).replace(/</g, "\\u003c");
}
