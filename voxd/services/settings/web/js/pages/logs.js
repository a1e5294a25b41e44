// Logs (administrators): entries newest first with filters (service, minimum level, node, text,
// since), "Older" for the next page, and Follow: new entries arrive over server-sent events
// (api.stream, fetch with the bearer token) and go on top; Pause holds them until Resume.

import { el, field, when } from "../dom.js";
import { failureText } from "../widgets.js";

const SERVICE = "logs";
const LEVELS = ["debug", "info", "warning", "error", "critical"];
const SHOWN_AT_MOST = 500; // followed entries beyond this drop off the bottom

function entryRow(entry) {
  return el("tr", { class: `log-level-${entry.level}`, "data-id": String(entry.id) },
    el("td", {}, el("time", { datetime: entry.timestamp }, when(entry.timestamp))),
    el("td", {}, entry.service),
    el("td", {}, entry.level),
    el("td", { class: "log-message" }, entry.message,
      entry.node_id ? el("small", { class: "muted" }, ` node ${entry.node_id}`) : null));
}

function filterForm() {
  const service = el("input", { name: "service", placeholder: "any", autocomplete: "off" });
  const level = el("select", { name: "level" }, el("option", { value: "" }, "any"),
    LEVELS.map((name) => el("option", { value: name }, `${name} and above`)));
  const nodeId = el("input", { name: "node_id", placeholder: "any", autocomplete: "off" });
  const search = el("input", { name: "search", type: "search", maxlength: "200" });
  const since = el("input", { name: "since", placeholder: "e.g. 1h or 2026-11-26T10:00" });
  const inputs = { service, level, node_id: nodeId, search, since };
  const values = () => Object.fromEntries(Object.entries(inputs).map(([name, input]) => [name, input.value.trim()]));
  const form = el("form", { class: "log-filters", "aria-label": "Log filters" },
    el("div", { class: "grid" }, field("Service", service), field("Level", level), field("Node", nodeId)),
    el("div", { class: "grid" }, field("Text", search), field("Since", since)));
  return { form, values };
}

export async function render(main, ctx) {
  main.append(el("h1", {}, "Logs"));
  const filters = filterForm();
  const status = el("p", { role: "status", class: "muted" });
  const body = el("tbody", { id: "log-entries" });
  const older = el("button", { type: "button", class: "secondary outline", hidden: true }, "Older");
  const follow = el("button", { type: "button", "aria-pressed": "false" }, "Follow");
  const pause = el("button", { type: "button", class: "secondary", "aria-pressed": "false", disabled: true }, "Pause");
  filters.form.append(el("div", { class: "actions" }, el("button", { type: "submit" }, "Show"), follow, pause));
  main.append(filters.form, status, el("div", { class: "table-wrap" }, el("table", {},
    el("caption", {}, "Log entries, newest first"),
    el("thead", {}, el("tr", {}, ["Time", "Service", "Level", "Message"].map((name) => el("th", { scope: "col" }, name)))),
    body)), older);

  let cursor = null;
  let following = null;
  let held = [];
  const query = () => filters.values();

  const load = async (more) => {
    try {
      const page = await ctx.api.get(SERVICE, "/api/v0/logs", { ...query(), limit: 100, cursor: more ? cursor : null });
      const rows = page.logs.map(entryRow);
      if (more) body.append(...rows);
      else body.replaceChildren(...rows);
      cursor = page.next_cursor;
      older.hidden = !cursor;
      status.textContent = body.children.length ? "" : "No entries match.";
    } catch (error) {
      status.textContent = failureText(error);
    }
  };

  const show = (entries) => {
    const fresh = entries.filter((entry) => !body.querySelector(`tr[data-id="${Number(entry.id)}"]`));
    body.prepend(...fresh.reverse().map(entryRow));
    while (body.children.length > SHOWN_AT_MOST) body.lastElementChild.remove();
  };

  const stopFollowing = () => {
    if (following) following.close();
    following = null;
    held = [];
    follow.setAttribute("aria-pressed", "false");
    follow.textContent = "Follow";
    pause.disabled = true;
    pause.setAttribute("aria-pressed", "false");
    pause.textContent = "Pause";
  };

  const startFollowing = () => {
    follow.setAttribute("aria-pressed", "true");
    follow.textContent = "Stop following";
    pause.disabled = false;
    status.textContent = "Following: new entries appear on top.";
    const handle = ctx.api.stream(SERVICE, "/api/v0/logs/stream", (event) => {
      if (!event.data || typeof event.data !== "object" || event.data.id === undefined) return;
      if (pause.getAttribute("aria-pressed") === "true") {
        held.push(event.data);
        status.textContent = `Paused: ${held.length} new entr${held.length === 1 ? "y" : "ies"} held.`;
      } else {
        show([event.data]);
      }
    }, { query: query(), signal: ctx.signal });
    following = handle;
    const ended = (text) => {
      if (following !== handle) return; // stopped by hand, or a newer stream runs
      status.textContent = text;
      stopFollowing();
    };
    handle.done.then(() => ended("The stream ended; press Follow to start again."),
      (error) => ended(failureText(error)));
  };

  filters.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const wasFollowing = Boolean(following);
    stopFollowing();
    await load(false);
    if (wasFollowing) startFollowing();
  });
  older.addEventListener("click", () => load(true));
  follow.addEventListener("click", () => (following ? stopFollowing() : startFollowing()));
  pause.addEventListener("click", () => {
    const paused = pause.getAttribute("aria-pressed") !== "true";
    pause.setAttribute("aria-pressed", String(paused));
    pause.textContent = paused ? "Resume" : "Pause";
    if (!paused) {
      show(held);
      held = [];
      status.textContent = "Following: new entries appear on top.";
    }
  });
  ctx.signal.addEventListener("abort", stopFollowing);
  await load(false);
}
