// /owner: the owner's page, signed in with a passkey (app/owner/, decision 054).
import type { HeadersFunction, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { OWNER_HEADERS } from "~/owner/page.server";
import { OwnerDashboard } from "~/owner/dashboard";
import { SignInView } from "~/owner/sign-in-view";

export { ownerLoader as loader, ownerAction as action } from "~/owner/page.server";

export const meta: MetaFunction = () => [
  { title: "Owner" },
  { name: "robots", content: "noindex, nofollow" },
];

export const headers: HeadersFunction = () => OWNER_HEADERS;

export default function OwnerRoute() {
  const page = useLoaderData<typeof import("~/owner/page.server").ownerLoader>();
  const refused = useActionData<{ error: string }>();
  if (!page.signedIn) return <SignInView notReady={page.notReady} refused={refused?.error ?? null} />;
  return (
    <OwnerDashboard
      flash={page.flash}
      status={page.status}
      messages={page.messages}
      passkeys={page.passkeys}
    />
  );
}
