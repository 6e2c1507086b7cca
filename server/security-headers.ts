import type { RequestHandler } from "express";
import onHeaders from "on-headers";
import {
  NON_DOCUMENT_CSP,
  STATIC_SECURITY_HEADERS,
  STRICT_TRANSPORT_SECURITY,
} from "../app/lib/security-headers.server";

// On every response; a header already set wins, and HSTS goes only over HTTPS (decision 021).
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
