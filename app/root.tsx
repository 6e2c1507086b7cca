import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { appleTouchIcon, themeColors } from "virtual:social-assets";
import { StatusPage } from "~/components/status-page";
import { TooltipProvider } from "~/components/ui/tooltip";
import { DeferredScripts } from "~/deferred-scripts";
import { getStoredTheme } from "~/theme/session.server";
import { StoredThemeScript } from "~/theme/stored-theme-script";
import { DEFAULT_THEME } from "~/theme/theme";
import stylesheet from "~/tailwind.css?url";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  // Neither is fetched by desktop browsers on a visit: iOS reads the first, installs the second.
  { rel: "apple-touch-icon", href: appleTouchIcon },
  { rel: "manifest", href: "/manifest.webmanifest" },
];

// Pages name themselves; this only titles the error page, which has no route of its own.
export const meta: MetaFunction = ({ error }) => {
  if (!error) return [];
  if (!isRouteErrorResponse(error)) return [{ title: "Unexpected Application Error!" }];
  return [{ title: error.status === 404 ? "Page not found" : `${error.status} ${error.statusText}` }];
};

export async function loader({ request }: LoaderFunctionArgs) {
  return { theme: await getStoredTheme(request) };
}

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const theme = data?.theme ?? DEFAULT_THEME;
  return (
    <html lang="en" className={theme} suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" media="(prefers-color-scheme: dark)" content={themeColors.dark} />
        <meta name="theme-color" media="(prefers-color-scheme: light)" content={themeColors.light} />
        {data?.theme ? null : <StoredThemeScript />}
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen">
        {children}
        <DeferredScripts />
      </body>
    </html>
  );
}

export default function App() {
  return (
    <TooltipProvider delayDuration={700} skipDelayDuration={300} disableHoverableContent>
      <Outlet />
    </TooltipProvider>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  // The visitor's own mistake (an address or a method this site does not have): said plainly, not logged.
  if (isRouteErrorResponse(error) && error.status === 404) {
    return <StatusPage code="404" title="Oops! Page not found" />;
  }
  if (isRouteErrorResponse(error) && error.status === 429) {
    return <StatusPage code="429" title="Too many attempts" detail={String(error.data)} />;
  }
  if (isRouteErrorResponse(error) && error.status < 500) {
    return (
      <StatusPage
        code={String(error.status)}
        title={error.statusText}
        detail="This address does not take that kind of request. Start again from the home page."
      />
    );
  }
  console.error(error);
  return (
    <StatusPage
      code="Error"
      title="Unexpected Application Error!"
      detail="Something went wrong on our side. Please try again in a moment."
    />
  );
}
