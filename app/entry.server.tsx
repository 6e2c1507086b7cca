import { randomBytes } from "node:crypto";
import type { EntryContext, HandleDataRequestFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { servePage } from "~/html-cache/html-cache.server";
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
) {
  // Made here, for documents only: files and data need none.
  const nonce = randomBytes(16).toString("base64");
  responseHeaders.set("Content-Security-Policy", contentSecurityPolicy(nonce));
  applyPageCaching(responseHeaders);
  // Same URL and data, same page: it is rendered once and served again with
  // this response's nonce, and a refused post's typed text (app/html-cache/).
  return servePage(request, responseStatusCode, responseHeaders, remixContext, nonce, (context, whole) =>
    renderDocument(
      request,
      responseStatusCode,
      responseHeaders,
      context,
      nonce,
      // Bots get the whole document at once; only asked when the page is rendered.
      whole || isbot(request.headers.get("user-agent") ?? ""),
    ),
  );
}

/** React's render of the document; `whole` waits for all of it, else browsers get it streamed. */
function renderDocument(
  request: Request,
  status: number,
  headers: Headers,
  context: EntryContext,
  nonce: string,
  whole: boolean,
) {
  const readyEvent = whole ? "onAllReady" : "onShellReady";
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={context} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        [readyEvent]() {
          shellRendered = true;
          const body = endTagsLast();
          headers.set("Content-Type", "text/html; charset=utf-8");
          resolve(new Response(createReadableStreamFromReadable(body), { headers, status }));
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          status = 500;
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
