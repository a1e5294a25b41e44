// Building the page's elements without innerHTML (every text is set as text, so nothing a
// recipe page or an inbox item holds can run as markup).

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// The query part of the page's hash: `#/recipes?id=X` gives {id: "X"}.
export function hashQuery() {
  const hash = location.hash;
  const at = hash.indexOf("?");
  return Object.fromEntries(new URLSearchParams(at < 0 ? "" : hash.slice(at + 1)));
}

// What a failed call says to a person: the service's own message, else the status.
export function problem(error) {
  if (error && error.message) return error.message;
  return "Something went wrong: " + String(error);
}

// A failed call said where the person looks: an alert with what came before it, then the problem.
export function failure(error, tag = "span", before = "") {
  return el(tag, { class: "error", role: "alert" }, before, problem(error));
}

// A labelled input: the label wraps the control, so it is named for screen readers.
export function field(labelText, input) {
  return el("label", {}, labelText, input);
}

export function when(iso) {
  if (!iso) return "";
  const moment = new Date(iso);
  return isNaN(moment) ? iso : moment.toLocaleString();
}
