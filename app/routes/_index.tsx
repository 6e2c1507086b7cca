import {
  data,
  type HeadersFunction,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { previewImage } from "virtual:social-assets";
import { SiteHeader } from "~/components/site-header";
import { About } from "~/components/sections/about";
import { Contact } from "~/components/sections/contact";
import { ContactForm } from "~/components/sections/contact-form";
import { Footer } from "~/components/sections/footer";
import { Hero } from "~/components/sections/hero";
import { Projects } from "~/components/sections/projects";
import { Resume } from "~/components/sections/resume";
import { Services } from "~/components/sections/services";
import { Skills } from "~/components/sections/skills";
import { contactFlash } from "~/services.server";
import type { ContactFailure, ContactOutcome } from "~/contact";
import { site } from "~/content/site";
import { personJsonLd } from "~/lib/json-ld";

export { contactAction as action } from "~/services.server";
export { contactClientAction as clientAction } from "~/contact";

export async function loader({ request }: LoaderFunctionArgs) {
  const { sent, headers } = await contactFlash.read(request);
  return data({ site, contactSent: sent }, { headers });
}

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [];
  const { name, role, description, siteUrl } = data.site;
  const title = `${name} — ${role}`;
  return [
    { title },
    { name: "description", content: description },
    { property: "og:type", content: "website" },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: siteUrl },
    { property: "og:site_name", content: name },
    // Drawn from the content at build time (social/); scrapers need an absolute URL.
    { property: "og:image", content: new URL(previewImage.url, siteUrl).href },
    { property: "og:image:type", content: "image/png" },
    { property: "og:image:width", content: String(previewImage.width) },
    { property: "og:image:height", content: String(previewImage.height) },
    { property: "og:image:alt", content: previewImage.alt },
    { name: "twitter:card", content: "summary_large_image" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
  ];
};

// The action's Retry-After and Cache-Control (typed text: no-store) go with the page or data.
export const headers: HeadersFunction = ({ actionHeaders }) => {
  const headers = new Headers();
  for (const name of ["Retry-After", "Cache-Control"]) {
    const value = actionHeaders.get(name);
    if (value) headers.set(name, value);
  }
  return headers;
};

export const links: LinksFunction = () => [{ rel: "canonical", href: site.siteUrl }];

export default function Index() {
  const { site, contactSent } = useLoaderData<typeof loader>();
  const refused = useActionData<ContactFailure>();
  const contactOutcome: ContactOutcome | null = refused ?? (contactSent ? { ok: true } : null);
  return (
    <>
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:top-4 focus:left-4 focus:z-50 focus:rounded-md focus:bg-primary focus:px-4 focus:py-2 focus:text-primary-foreground"
      >
        Skip to content
      </a>
      <SiteHeader name={site.name} nav={site.nav} />
      <main id="main">
        <Hero site={site} />
        <About site={site} />
        <Skills groups={site.skillGroups} copy={site.sections.skills} />
        <Services services={site.services} copy={site.sections.services} />
        <Projects projects={site.projects} profileUrl={site.githubProfileUrl} copy={site.sections.projects} />
        <Resume resume={site.resume} copy={site.sections.resume} />
        <Contact
          contact={site.contact}
          copy={site.sections.contact}
          form={<ContactForm serverOutcome={contactOutcome} />}
        />
      </main>
      <Footer site={site} />
      <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: personJsonLd(site) }} />
    </>
  );
}
