#!/usr/bin/env node
// The contact helper's EmailJS fake (tests/support/emailjs-fake.ts) in its own
// process, so the bench's load generator does not share its event loop.
// Prints one JSON line {"url": ...} when listening; stops on SIGTERM.
import { importTs } from "./lib/ts.mjs";

const { modules, close } = await importTs("tests/support/emailjs-fake.ts");
const fake = await modules[0].startEmailJsFake();
await close();
// Requests are recorded in memory: forget them now and then under load.
setInterval(() => fake.requests.splice(0), 1000).unref();
console.log(JSON.stringify({ url: fake.url }));
process.on("SIGTERM", () => fake.close().then(() => process.exit(0)));
