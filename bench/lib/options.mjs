// The bench's command line: its help text and the options it takes.
export const HELP = `usage: npm run bench -- [--runs N] [--duration S] [--connections C]
                        [--skip weight,lighthouse,load,contact,owner,path,pacing] [--quick]
                        [--build] [--wait-idle LOAD[:MAXSEC]] [--busy N]
                        [--backlog N] [--visitors N] [--replicas N]

Builds when the build is missing or older than the sources (--build: always),
starts the production server (build/server.js, as npm start) with the EmailJS
fake as its provider, and a minimal static server with the same HTML, and
the floor: that HTML with every script and module preload stripped, with its
stylesheet, all on 127.0.0.1. Then measures, one after the other:
  weight      first load of / in Chromium, cold cache: requests, wire and
              decoded bytes by type, JS on and off; and the gzip-only load
              the byte-budget test asserts
  lighthouse  mobile: the app's / and the floor, interleaved, median of --runs
              (default 5) each, with the longest main-thread task after
              FCP and the sum of the parts over 50 ms; desktop: the app's
              /, median of --runs; then the same two pages loaded cold
              --runs times each with the CPU slowed 4× by DevTools, and
              the longest main-thread task after FCP in each trace and
              its parts (evaluation, script, rendering...); then
              the mobile runs and the traces again while --busy (2) loops
              of Node keep the CPUs busy (--busy 0: not)
  load        autocannon, --connections (50) for --duration s (10) after 2 s
              of warm-up: / (without and with a theme cookie), /robots.txt
              (the cheapest route through the whole stack) and a static
              asset from the app, / from the
              static server, and / through a shared cache (varnishd, built-in
              VCL) in front of the app; browser headers (Accept-Encoding br,
              gzip); and how many of 1,000 cookieless GETs through the cache
              reached the app
  contact     one request at a time for --duration s (at most 5), latency
              p50/p99: the contact action (a valid no-JS form post,
              answered 303) against the fake, the fake alone, and
              GET /healthz; then, in 10 interleaved rounds over 3 × that,
              the server's CPU time per request for a page view, a sent
              post, a refused post (400, page and data) and a throttled
              one (429, from a second server whose limit is used up)
  owner       the owner's sign-in to /owner, one whole passkey ceremony at a
              time (a software passkey), for --duration s (at most 5) alone,
              then as long while --connections other clients, each in a /64
              of its own, keep starting sign-ins: p50/p99 and whether every
              sign-in landed, on the SQLite file, then on PostgreSQL
  path        the project's files and functions one sent post runs through
              (a valid post with a solved proof, the provider answering 200),
              by V8's precise coverage of the contact action in a process
              of its own: on the SQLite file and on PostgreSQL
  pacing      on each database of the store, EMAILJS_MAX_PER_SECOND=1 and
              the fake answering 429 past one request a second: "sqlite",
              one process on its own OUTBOX_DIR/outbox.sqlite (no
              DATABASE_URL); "postgres", --replicas (2, as compose.yaml)
              processes with DATABASE_URL on one fresh database of a
              PostgreSQL server the bench starts. On each:
              --backlog (20) messages kept while the fake answers 500
              (counted by the engine's own \`outbox list\`), then drained
              (mails, seconds, requests a second, the most in any second,
              429s); then --visitors (20) posts, one at a time with the
              pacing idle and 5 at once: p50/p99 of the answer and how
              many were answered 303 before their mail went out (kept,
              sent later); then two posts in one second, and when the
              second one's mail reached the fake
--quick: 1 Lighthouse run and 3 s loads, to try the bench itself.
--wait-idle 1.5:120: before each part, wait (at most 120 s) until the
1-minute load average is under 1.5, then go on regardless.
Prints one Markdown table; saves everything as bench/results/<UTC time>.json.
KB = 1000 bytes.`;

export function parseArgs(argv) {
  const o = {
    runs: 5,
    duration: 10,
    connections: 50,
    skip: new Set(),
    build: false,
    idle: null,
    busy: 2,
    backlog: 20,
    visitors: 20,
    replicas: 2,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => argv[++i] ?? fail(`${a} needs a value`);
    if (a === "--help" || a === "-h") {
      console.log(HELP);
      process.exit(0);
    } else if (a === "--runs") o.runs = Number(value());
    else if (a === "--duration") o.duration = Number(value());
    else if (a === "--connections") o.connections = Number(value());
    else if (a === "--skip") for (const s of value().split(",")) o.skip.add(s.trim());
    else if (a === "--quick") Object.assign(o, { runs: 1, duration: 3 });
    else if (a === "--build") o.build = true;
    else if (a === "--busy") o.busy = Number(value());
    else if (a === "--backlog") o.backlog = Number(value());
    else if (a === "--visitors") o.visitors = Number(value());
    else if (a === "--replicas") o.replicas = Number(value());
    else if (a === "--wait-idle") {
      const [load, max = "300"] = value().split(":");
      o.idle = { load: Number(load), maxSeconds: Number(max) };
    } else fail(`unknown argument ${a}`);
  }
  if (!(o.runs >= 1 && o.duration > 0 && o.connections >= 1))
    fail("--runs, --duration and --connections must be positive");
  if (!(Number.isInteger(o.busy) && o.busy >= 0)) fail("--busy must be a whole number, 0 or more");
  if (!(Number.isInteger(o.replicas) && o.replicas >= 1 && o.replicas <= 8))
    fail("--replicas must be 1 to 8");
  // Each post comes from a network of its own, 10.N.x.1.
  for (const name of ["backlog", "visitors"]) {
    if (!(Number.isInteger(o[name]) && o[name] >= 1 && o[name] <= 250)) fail(`--${name} must be 1 to 250`);
  }
  return o;
}

function fail(message) {
  console.error(`${message}\n\n${HELP}`);
  process.exit(2);
}
