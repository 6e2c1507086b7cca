// pa11y drives the browser through Puppeteer; the tests give it the same
// Chromium as Playwright (tests/support/chromium.mjs), so Puppeteer's own
// browser download is never needed.
module.exports = { skipDownload: true };
