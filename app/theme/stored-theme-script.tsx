import { THEME_STORAGE_KEY } from "./theme";

// Runs before paint when there is no theme cookie, so a choice kept only in localStorage applies at once.
const script = `(function(){try{var t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});if(t==="light"||t==="dark"){var c=document.documentElement.classList;c.remove("light","dark");c.add(t)}}catch(e){}})()`;

export function StoredThemeScript() {
  return <script dangerouslySetInnerHTML={{ __html: script }} />;
}
