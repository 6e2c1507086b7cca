// The contact feature's one entry for the browser and the page: the form's contract, its checks loaded
// with the first submission, the proof solver loaded at the form's first focus, and the client action.
export * from "./form/contract";
export { contactClientAction } from "./form/client-action";
export const loadSchema = () => import("./form/schema");
export const loadProofSolver = () => import("./form/proof.client");
export type { validateContact } from "./form/schema";
