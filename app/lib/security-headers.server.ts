/** Security headers shared by every response the app makes. */

/** The policy of an HTML page: scripts run only with this response's nonce. */
export function contentSecurityPolicy(nonce: string) {
  return [
    "default-src 'self'",
    // 'strict-dynamic' lets the nonced module scripts load the route chunks.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    // Radix positions tooltips and toasts with inline style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join("; ");
}

/**
 * Data, JSON and redirects are never rendered as pages; should one be opened
 * in a tab anyway, it may load nothing and cannot be framed.
 */
export const NON_DOCUMENT_CSP =
  "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/** Sets the headers; a document passes its nonce, anything else gets the locked-down policy. */
export function applySecurityHeaders(headers: Headers, nonce?: string) {
  headers.set("Content-Security-Policy", nonce ? contentSecurityPolicy(nonce) : NON_DOCUMENT_CSP);
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set(
    "Permissions-Policy",
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  );
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  if (process.env.NODE_ENV === "production") {
    headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  }
  return headers;
}

/**
 * For resource routes: Remix passes their responses through neither
 * handleRequest nor handleDataRequest, so they call this themselves.
 */
export function withSecurityHeaders(response: Response): Response {
  applySecurityHeaders(response.headers);
  return response;
}
