import { Scripts } from "@remix-run/react";

/**
 * Remix's own <Scripts>, kept out of the first paint (docs/decisions/013).
 *
 * The server renders <Scripts> inside <noscript>. With JavaScript on, the
 * parser reads that as text, so its module preloads and module script are
 * neither fetched nor run; without JavaScript they are inert anyway. React
 * never hydrates a <noscript>'s children, so the client's tree matches the
 * server's as it is.
 *
 * The script after it reads that markup back: Remix's context script runs at
 * once (the loader-data scripts streamed after it need its stream), and the
 * preloads and module script are added after `load` or on the first pointer
 * or key press, whichever comes first. They go inside the <noscript>, where
 * React never looks. The page's CSP lists each script's hash (decision 027).
 */
const START = `(function(){
var box=document.currentScript.previousElementSibling,parsed=document.createElement("template");
parsed.innerHTML=box.textContent;
var nodes=[].slice.call(parsed.content.children);
function later(node){return node.localName==="link"||node.type==="module"}
function add(node){var copy=document.createElement(node.localName);
[].forEach.call(node.attributes,function(a){copy.setAttribute(a.name,a.value)});
if(node.localName==="script")copy.text=node.text;box.appendChild(copy)}
function listen(method){window[method]("load",start);window[method]("pointerdown",start,true);window[method]("keydown",start,true)}
function start(){listen("removeEventListener");nodes.filter(later).forEach(add)}
nodes.filter(function(node){return!later(node)}).forEach(add);
if(document.readyState==="complete")start();else listen("addEventListener")
})()`;

export function DeferredScripts() {
  return (
    <>
      <noscript>
        <Scripts />
      </noscript>
      <script dangerouslySetInnerHTML={{ __html: START }} />
    </>
  );
}
