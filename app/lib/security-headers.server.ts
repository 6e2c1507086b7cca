/** Security headers shared by every response the app makes. */

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

export function applySecurityHeaders(headers: Headers, nonce?: string) {
  if (nonce) headers.set("Content-Security-Policy", contentSecurityPolicy(nonce));
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
