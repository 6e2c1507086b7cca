/**
 * redirectTo values that led a visitor off the site (dot segments before
 * "//") or threw a 500 (no URL at all), as a review sent them with curl.
 */
export const OFF_SITE_REDIRECTS = [
  "/.//evil.com",
  "/a/..//evil.com",
  "/..//evil.com",
  "/./\\evil.com",
  "/.//.//evil.com",
  "//%25",
  "//%40evil.com",
  "//%zz",
  "/\\%",
];
