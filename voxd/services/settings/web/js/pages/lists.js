// The household's shopping and to-do lists: the same lists the voice commands keep (docs/api.md,
// Household lists). #/lists?list=todo shows the to-do list.
import { el, failure, field, hashQuery } from "../dom.js";

const SERVICE = "command-center";
const LISTS = { shopping: "Shopping", todo: "To-do" };

const itemsPath = (list) => `/api/v0/lists/${list}/items`;

export async function render(main, ctx) {
  const list = LISTS[hashQuery().list] ? hashQuery().list : "shopping";
  const tabs = el("nav", { "aria-label": "Lists" }, el("ul", {}, Object.entries(LISTS).map(([name, title]) =>
    el("li", {}, el("a", { href: `#/lists?list=${name}`, "aria-current": name === list ? "page" : null }, title)))));
  const items = el("ul", { id: "list-items", "aria-live": "polite" });
  const status = el("p", { "aria-live": "polite" });
  const input = el("input", { type: "text", name: "item", id: "new-item", required: true, maxlength: 200 });
  const form = el("form", { onsubmit: async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    await change(ctx, list, items, status, () => ctx.api.post(SERVICE, itemsPath(list), { items: [text] }),
      (answer) => (answer.already_there.length ? `“${text}” is already on the list.` : `Added “${text}”.`));
    input.value = "";
    input.focus();
  } }, field(`Add to the ${LISTS[list].toLowerCase()} list`, input), el("button", { type: "submit" }, "Add"));
  main.replaceChildren(el("h1", {}, `${LISTS[list]} list`), tabs, form, items, status);
  try {
    show(ctx, list, items, status, (await ctx.api.get(SERVICE, itemsPath(list))).items);
  } catch (error) {
    status.replaceChildren(failure(error));
  }
}

function show(ctx, list, items, status, entries) {
  if (!entries.length) {
    items.replaceChildren(el("li", { class: "empty" }, "Nothing on this list."));
    return;
  }
  items.replaceChildren(...entries.map((entry) => el("li", {}, el("span", {}, entry.text),
    entry.added_by ? el("small", {}, ` (${entry.added_by})`) : null, " ",
    el("button", { type: "button", class: "secondary outline", "aria-label": `Remove ${entry.text}`,
      onclick: () => change(ctx, list, items, status, () => ctx.api.delete(SERVICE, itemsPath(list), { items: [entry.text] }),
        () => `Removed “${entry.text}”.`) }, "Remove"))));
}

// One add or remove; the answer carries the whole list as it now is, so it is shown from that.
async function change(ctx, list, items, status, call, said) {
  try {
    const answer = await call();
    show(ctx, list, items, status, answer.items);
    status.textContent = said(answer);
  } catch (error) {
    status.replaceChildren(failure(error));
  }
}
