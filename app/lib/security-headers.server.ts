// The security headers' values, for server/security-headers.ts and each page (decisions 021, 027).

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

export const NON_DOCUMENT_CSP =
  "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";

export const STATIC_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  "Cross-Origin-Opener-Policy": "same-origin",
} as const;
