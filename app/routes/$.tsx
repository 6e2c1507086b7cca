import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { useLocation } from "@remix-run/react";
import { useEffect } from "react";
import { StatusPage } from "~/components/status-page";
import { site } from "~/content/site";

export const meta: MetaFunction = () => [
  { title: `Page not found · ${site.name}` },
  { name: "robots", content: "noindex" },
];

export function loader({ request }: LoaderFunctionArgs) {
  const { pathname } = new URL(request.url);
  console.warn(`404: ${JSON.stringify(pathname)}`);
  return data(null, { status: 404 });
}

export default function NotFound() {
  const { pathname } = useLocation();
  useEffect(() => {
    // The unknown path is logged in the browser console too (docs/product.md).
    console.error("404 Error: User attempted to access non-existent route:", pathname);
  }, [pathname]);
  return <StatusPage code="404" title="Oops! Page not found" />;
}
