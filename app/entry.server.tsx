import { randomBytes } from "node:crypto";
import type { AppLoadContext, EntryContext, HandleDataRequestFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { htmlCache } from "~/lib/html-cache.server";
import { NonceProvider } from "~/lib/nonce";
import { applyPageCaching } from "~/lib/page-cache.server";
import { config } from "~/config.server";
import { contentSecurityPolicy } from "~/lib/security-headers.server";
import { endTagsLast } from "~/lib/end-tags-last.server";

const ABORT_DELAY = 5_000;

/** What the production server (server/index.ts) takes from the configuration the app read. */
export type ServerOptions = Pick<typeof config, "port" | "trustProxyHops">;
export const serverOptions: ServerOptions = { port: config.port, trustProxyHops: config.trustProxyHops };

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  // The server makes the nonce; under the Vite dev server there is none yet.
  const nonce = loadContext.cspNonce ?? randomBytes(16).toString("base64");
  responseHeaders.set("Content-Security-Policy", contentSecurityPolicy(nonce));
  applyPageCaching(responseHeaders);
  // Same URL and loader data, same page: it is rendered once and served again
  // with this response's nonce (html-cache.server.ts).
  const cache = htmlCache(request, responseStatusCode, responseHeaders, remixContext, nonce);
  if (cache.hit) return cache.hit;
  // Bots, and pages to keep, get the whole document at once; browsers get it streamed.
  const whole = cache.cacheable || isbot(request.headers.get("user-agent") ?? "");
  const readyEvent = whole ? "onAllReady" : "onShellReady";

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        [readyEvent]() {
          shellRendered = true;
          const body = endTagsLast();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          resolve(
            cache.keep(
              new Response(createReadableStreamFromReadable(body), {
                headers: responseHeaders,
                status: responseStatusCode,
              }),
            ),
          );
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors after the shell are logged here; earlier ones reach onShellError.
          if (shellRendered) console.error(error);
        },
      },
    );
    // unref'd: it cuts a stuck render, and must not hold a shutting-down process.
    setTimeout(abort, ABORT_DELAY).unref();
  });
}

export const handleDataRequest: HandleDataRequestFunction = (response) => {
  applyPageCaching(response.headers);
  return response;
};
