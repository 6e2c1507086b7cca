// Renders each document whole for page-response.server.ts to finish.
import { Writable } from "node:stream";
import type { EntryContext, HandleDataRequestFunction, HandleErrorFunction } from "@remix-run/node";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { renderToPipeableStream } from "react-dom/server";
import { dataCaching, pageResponse } from "~/page-response.server";

const ABORT_DELAY = 5_000;

export { startContactRedelivery } from "~/services.server";

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  return pageResponse(request, responseStatusCode, responseHeaders, remixContext, () =>
    renderDocument(request, responseStatusCode, remixContext),
  );
}

/** Whole, for the CSP's hashes (decision 027); `</body></html>` last (decision 014). */
function renderDocument(request: Request, status: number, context: EntryContext) {
  return new Promise<{ html: string; status: number }>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let shellRendered = false;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
      final(done) {
        const html = Buffer.concat(chunks).toString();
        resolve({ html: html.replace(END_TAGS, "") + END_TAGS, status });
        done();
      },
    });
    const { pipe, abort } = renderToPipeableStream(
      <RemixServer context={context} url={request.url} abortDelay={ABORT_DELAY} />,
      {
        onShellReady() {
          shellRendered = true;
        },
        onAllReady() {
          pipe(sink);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          // Failed after the shell: rendered on the client, the page answers 500. Remix logs earlier errors.
          status = 500;
          if (shellRendered) console.error(error);
        },
      },
    );
    // unref'd: it cuts a stuck render, and must not hold a shutting-down process.
    setTimeout(abort, ABORT_DELAY).unref();
  });
}

const END_TAGS = "</body></html>";

export const handleError: HandleErrorFunction = (error, { request }) => {
  if (request.signal.aborted || (isRouteErrorResponse(error) && error.status < 500)) return;
  console.error(error);
};

export const handleDataRequest: HandleDataRequestFunction = (response) => {
  dataCaching(response.headers);
  return response;
};
