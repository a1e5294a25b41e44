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
  const narrow = window.matchMedia("(max-width: 600px)").matches; // a phone: the entries first
  const form = el("form", { class: "log-filters", "aria-label": "Log filters" },
    el("details", { open: !narrow }, el("summary", {}, "Filters"),
      el("div", { class: "grid" }, field("Service", service), field("Level", level), field("Node", nodeId)),
      el("div", { class: "grid" }, field("Text", search), field("Since", since))));
  return { form, values };
}

function entriesTable(body) {
  return el("div", { class: "table-wrap" }, el("table", { class: "log-table" },
    el("caption", {}, "Log entries, newest first"),
    el("thead", {}, el("tr", {}, ["Time", "Service", "Level", "Message"].map((name) => el("th", { scope: "col" }, name)))),
    body));
}

/** The table's rows: a page loaded (or the next, older one appended), followed entries on top. */
function entryList(ctx, view) {
  let cursor = null;
  return {
    async load(query, more) {
      try {
        const page = await ctx.api.get(SERVICE, "/api/v0/logs", { ...query, limit: 100, cursor: more ? cursor : null });
        const rows = page.logs.map(entryRow);
        if (more) view.body.append(...rows);
        else view.body.replaceChildren(...rows);
        cursor = page.next_cursor;
        view.older.hidden = !cursor;
        view.status.textContent = view.body.children.length ? "" : "No entries match.";
      } catch (error) {
        view.status.textContent = failureText(error);
      }
    },
    prepend(entries) {
      const fresh = entries.filter((entry) => !view.body.querySelector(`tr[data-id="${Number(entry.id)}"]`));
      view.body.prepend(...fresh.reverse().map(entryRow));
      while (view.body.children.length > SHOWN_AT_MOST) view.body.lastElementChild.remove();
    },
  };
}

/** Follow and Pause: one stream at a time; entries that come while paused wait in `held`. */
function follower(ctx, view, list) {
  let stream = null;
  let held = [];
  let lastId = null; // resumes after the token expired: the logs service ends a stream then
  const paused = () => view.pause.getAttribute("aria-pressed") === "true";
  const setPaused = (value) => {
    view.pause.setAttribute("aria-pressed", String(value));
    view.pause.textContent = value ? "Resume" : "Pause";
  };
  const stop = () => {
    if (stream) stream.close();
    stream = null;
    held = [];
    view.follow.setAttribute("aria-pressed", "false");
    view.follow.removeAttribute("data-open");
    view.follow.textContent = "Follow";
    view.pause.disabled = true;
    setPaused(false);
  };
  const arrived = (event) => {
    if (!event.data || typeof event.data !== "object" || event.data.id === undefined) return;
    lastId = event.id || String(event.data.id);
    if (!paused()) {
      list.prepend([event.data]);
      return;
    }
    held.push(event.data);
    view.status.textContent = `Paused: ${held.length} new entr${held.length === 1 ? "y" : "ies"} held.`;
  };
  const start = (query, resumeAfter = null) => {
    let expired = false;
    lastId = resumeAfter;
    view.follow.setAttribute("aria-pressed", "true");
    view.follow.textContent = "Stop following";
    view.pause.disabled = false;
    view.status.textContent = "Following: new entries appear on top.";
    const onEvent = (event) => {
      if (event.event === "expired") expired = true;
      else arrived(event);
    };
    const handle = ctx.api.stream(SERVICE, "/api/v0/logs/stream", onEvent,
      { query, signal: ctx.signal, lastEventId: resumeAfter, onOpen: () => view.follow.setAttribute("data-open", "") });
    stream = handle;
    const ended = async (text) => {
      if (stream !== handle) return; // stopped by hand, or a newer stream runs
      if (expired && (await ctx.api.refresh())) {
        start(query, lastId); // the access token ran out: a fresh one, and on from the last entry seen
        return;
      }
      view.status.textContent = text;
      stop();
    };
    handle.done.then(() => ended("The stream ended; press Follow to start again."), (error) => ended(failureText(error)));
  };
  const togglePause = () => {
    setPaused(!paused());
    if (paused()) return;
    list.prepend(held);
    held = [];
    view.status.textContent = "Following: new entries appear on top.";
  };
  return { start, stop, togglePause, following: () => Boolean(stream) };
}

export async function render(main, ctx) {
  const filters = filterForm();
  const view = {
    status: el("p", { role: "status", class: "muted" }),
    body: el("tbody", { id: "log-entries" }),
    older: el("button", { type: "button", class: "secondary outline", hidden: true }, "Older"),
    follow: el("button", { type: "button", "aria-pressed": "false" }, "Follow"),
    pause: el("button", { type: "button", class: "secondary", "aria-pressed": "false", disabled: true }, "Pause"),
  };
  filters.form.append(el("div", { class: "actions" }, el("button", { type: "submit" }, "Show"), view.follow, view.pause));
  main.append(el("h1", {}, "Logs"), filters.form, view.status, entriesTable(view.body), view.older);
  const list = entryList(ctx, view);
  const live = follower(ctx, view, list);
  filters.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const wasFollowing = live.following();
    live.stop();
    await list.load(filters.values(), false);
    if (wasFollowing) live.start(filters.values());
  });
  view.older.addEventListener("click", () => list.load(filters.values(), true));
  view.follow.addEventListener("click", () => (live.following() ? live.stop() : live.start(filters.values())));
  view.pause.addEventListener("click", live.togglePause);
  ctx.signal.addEventListener("abort", live.stop);
  await list.load(filters.values(), false);
}
