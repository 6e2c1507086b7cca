import type { RequestHandler } from "express";
import onHeaders from "on-headers";
import {
  NON_DOCUMENT_CSP,
  STATIC_SECURITY_HEADERS,
  STRICT_TRANSPORT_SECURITY,
} from "../app/lib/security-headers.server";

/**
 * Every response gets the security headers here, static files included, as
 * they are written, so nothing a route or Remix returns can go out without
 * them. A header already set wins: a page's own Content-Security-Policy lists
 * its scripts' hashes (app/page-response.server.ts sets it), anything else
 * gets the locked-down policy. HSTS only when the visitor came over HTTPS.
 */
export const securityHeaders: RequestHandler = (req, res, next) => {
  onHeaders(res, () => {
    for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) {
      if (!res.hasHeader(name)) res.setHeader(name, value);
    }
    if (!res.hasHeader("Content-Security-Policy")) res.setHeader("Content-Security-Policy", NON_DOCUMENT_CSP);
    if (req.secure) res.setHeader("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY);
  });
  next();
};
