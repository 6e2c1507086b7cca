import { Scripts } from "@remix-run/react";

/** Starts Remix's <Scripts> from <noscript> after `load` or the first pointer or key press (decision 013). */
const START = `(function(){
var box=document.currentScript.previousElementSibling,parsed=document.createElement("template");
parsed.innerHTML=box.textContent;
var nodes=[].slice.call(parsed.content.children);
function later(node){return node.localName==="link"||node.type==="module"}
function add(node){var copy=document.createElement(node.localName);
[].forEach.call(node.attributes,function(a){copy.setAttribute(a.name,a.value)});
if(node.localName==="script")copy.text=node.text;box.appendChild(copy)}
function listen(method){window[method]("load",start);window[method]("pointerdown",start,true);window[method]("keydown",start,true)}
function start(){listen("removeEventListener");nodes.filter(later).forEach(function(node){setTimeout(add,0,node)})}
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
