/**
 * The security headers. server/security-headers.ts puts them on every
 * response; app/entry.server.tsx gives each page its own nonce policy.
 */

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
 * Data, JSON, redirects and files are never rendered as pages; should one be
 * opened in a tab anyway, it may load nothing and cannot be framed.
 */
export const NON_DOCUMENT_CSP =
  "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/** The same for every response, whatever it is. */
export const STATIC_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  "Cross-Origin-Opener-Policy": "same-origin",
} as const;
