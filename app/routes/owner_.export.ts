// POST /owner/export: one kept message as a JSON download, as `outbox export` prints it.
export { exportAction as action } from "~/owner/page.server";
