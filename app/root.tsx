import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { StatusPage } from "~/components/status-page";
import { TooltipProvider } from "~/components/ui/tooltip";
import { useNonce } from "~/lib/nonce";
import { THEME_STORAGE_KEY } from "~/lib/theme";
import { getStoredTheme } from "~/theme.server";
import stylesheet from "~/tailwind.css?url";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

// Pages name themselves; this only titles the error page, which has no route of its own.
export const meta: MetaFunction = ({ error }) => {
  if (!error) return [];
  return [{ title: isNotFound(error) ? "Page not found" : "Unexpected Application Error!" }];
};

function isNotFound(error: unknown) {
  return isRouteErrorResponse(error) && error.status === 404;
}

export async function loader({ request }: LoaderFunctionArgs) {
  return { theme: await getStoredTheme(request) };
}

// Runs before paint when no theme cookie exists yet: the choice is also kept
// in localStorage, so a returning visitor without the cookie still gets it.
const storedThemeScript = `try{var t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});if(t==="light"||t==="dark"){var c=document.documentElement.classList;c.remove("light","dark");c.add(t)}}catch(e){}`;

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const nonce = useNonce();
  // Dark unless the visitor chose otherwise (the site's default, not the OS's: docs/product.md).
  const theme = data?.theme ?? "dark";
  return (
    <html lang="en" className={theme} suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" media="(prefers-color-scheme: dark)" content="#09090b" />
        <meta name="theme-color" media="(prefers-color-scheme: light)" content="#ffffff" />
        {data?.theme ? null : (
          <script
            nonce={nonce}
            dangerouslySetInnerHTML={{ __html: storedThemeScript }}
            suppressHydrationWarning
          />
        )}
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen">
        {children}
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return (
    <TooltipProvider delayDuration={700} skipDelayDuration={300}>
      <Outlet />
    </TooltipProvider>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isNotFound(error)) {
    return <StatusPage code="404" title="Oops! Page not found" />;
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
