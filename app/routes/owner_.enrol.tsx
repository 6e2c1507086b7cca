// /owner/enrol#TOKEN: registers a passkey with a one-time link from `outbox owner-link` (decision 054).
import { data, type HeadersFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { notReadyFor, OWNER_HEADERS } from "~/owner/page.server";
import { EnrolView } from "~/owner/enrol-view";

export const loader = ({ request }: LoaderFunctionArgs) =>
  data({ notReady: notReadyFor(request) }, { headers: OWNER_HEADERS });

export const meta: MetaFunction = () => [
  { title: "Register a passkey" },
  { name: "robots", content: "noindex, nofollow" },
];

export const headers: HeadersFunction = () => OWNER_HEADERS;

export default function EnrolRoute() {
  return <EnrolView notReady={useLoaderData<typeof loader>().notReady} />;
}
