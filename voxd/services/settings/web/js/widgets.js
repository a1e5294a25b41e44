// The admin pages' form parts beside js/dom.js: ids that pair an input with its error text, the
// error shown beside an input, a duration in words, and the shown-once key box.

import { el } from "./dom.js";

let nextId = 0;

/** A unique id for pairing an input with its error text. */
export function uid(prefix = "f") {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** Where an input's error goes: beside it, announced, and named by the input's aria-describedby. */
export function errorSlot(input) {
  const slot = el("small", { class: "error", id: uid("error"), role: "alert" });
  const described = input.getAttribute("aria-describedby");
  input.setAttribute("aria-describedby", described ? `${described} ${slot.id}` : slot.id);
  return {
    slot,
    show(message) {
      slot.textContent = message || "";
      input.setAttribute("aria-invalid", message ? "true" : "false");
    },
  };
}

/** A failed call's message, saying so when the service is down (the other pages still work). */
export function failureText(error) {
  if (error && error.status === 503) return `${error.message} (the service is down; the other pages still work)`;
  return (error && error.message) || String(error);
}

/** Seconds as "3 d 4 h", "5 h 2 min", "42 s": the two largest units. */
export function duration(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  const out = [];
  let rest = Math.floor(seconds);
  for (const [size, unit] of [[86400, "d"], [3600, "h"], [60, "min"], [1, "s"]]) {
    if (out.length < 2 && (rest >= size || (unit === "s" && !out.length))) {
      out.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return out.join(" ");
}

/** A shown-once secret (a node's key): selectable and copyable, gone once the page changes. */
export function secretBox(title, secret, note) {
  const copy = el("button", { type: "button", class: "secondary" }, "Copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(secret);
      copy.textContent = "Copied";
    } catch {
      copy.textContent = "Select the key and copy it";
    }
  });
  return el("article", { class: "shown-once", role: "region", "aria-label": title },
    el("header", {}, el("strong", {}, title)),
    el("output", { class: "secret", "aria-label": `${title}: the key` }, secret),
    el("p", {}, note), copy);
}
