// POST /action/set-theme: the theme toggle's form (app/theme/).
export { setThemeAction as action, setThemeLoader as loader } from "~/theme/action.server";
