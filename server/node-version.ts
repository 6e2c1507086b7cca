// Called first by `npm start` and the owner's CLI: on a Node older than the image's (.nvmrc), one line that
// names the Node they need, not the stack trace of a missing built-in such as node:sqlite.
const NEEDED = 24;

export function refuseOlderNode() {
  if (Number(process.versions.node.split(".")[0]) >= NEEDED) return;
  console.error(`This needs Node ${NEEDED} or newer (.nvmrc); this is Node ${process.versions.node}.`);
  process.exit(1);
}
