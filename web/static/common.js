// Shared by the pages: JSON requests that carry the CSRF token, and small DOM helpers.
"use strict";
const CSRF = document.querySelector('meta[name="csrf-token"]').content;

async function api(method, url, body) {
  const opts = {method, headers: {"X-CSRF-Token": CSRF}, credentials: "same-origin"};
  if (body instanceof FormData) opts.body = body;
  else if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
  const res = await fetch(url, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = {error: res.statusText}; }
  if (!res.ok) {
    // the message stays the server's words; a refusal of the rules also names its rule (.rule)
    const err = new Error((data && data.error) || res.statusText);
    if (data && typeof data.rule === "string" && data.rule) err.rule = data.rule;
    throw err;
  }
  return data;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "style") node.style.cssText = v;  // CSSOM: the content security policy allows no style attribute
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}
