/**
 * The security headers. server/security-headers.ts puts them on every
 * response; app/page-response.server.ts gives each page its policy (decision 027).
 */

/** The policy of an HTML page: only its own inline scripts run, named by their SHA-256 hashes. */
export function contentSecurityPolicy(scriptHashes: readonly string[]) {
  return [
    "default-src 'self'",
    // 'strict-dynamic' lets the hashed scripts load the module scripts and route chunks.
    `script-src 'self' ${scriptHashes.map((hash) => `'sha256-${hash}'`).join(" ")} 'strict-dynamic'`,
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

/** Sent only on responses to requests that came over HTTPS (server/security-headers.ts). */
export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";

/** The same for every response, whatever it is. */
export const STATIC_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  "Cross-Origin-Opener-Policy": "same-origin",
} as const;
