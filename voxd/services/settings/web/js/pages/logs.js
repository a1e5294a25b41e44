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
class Follower {
  constructor(ctx, view, list) {
    Object.assign(this, { ctx, view, list, stream: null, held: [], lastId: null });
  }

  following() {
    return Boolean(this.stream);
  }

  paused() {
    return this.view.pause.getAttribute("aria-pressed") === "true";
  }

  setPaused(value) {
    this.view.pause.setAttribute("aria-pressed", String(value));
    this.view.pause.textContent = value ? "Resume" : "Pause";
  }

  stop() {
    if (this.stream) this.stream.close();
    this.stream = null;
    this.held = [];
    const { follow, pause } = this.view;
    follow.setAttribute("aria-pressed", "false");
    follow.removeAttribute("data-open");
    follow.textContent = "Follow";
    pause.disabled = true;
    this.setPaused(false);
  }

  arrived(entry) {
    this.lastId = String(entry.id);
    if (!this.paused()) {
      this.list.prepend([entry]);
      return;
    }
    this.held.push(entry);
    const count = this.held.length;
    this.view.status.textContent = `Paused: ${count} new entr${count === 1 ? "y" : "ies"} held.`;
  }

  /** Follow with these filters; `resumeAfter` (an entry id) goes on after a stream that ended. */
  start(query, resumeAfter = null) {
    const { follow, pause, status } = this.view;
    follow.setAttribute("aria-pressed", "true");
    follow.textContent = "Stop following";
    pause.disabled = false;
    status.textContent = "Following: new entries appear on top.";
    let expired = false;
    const onEvent = (event) => {
      if (event.event === "expired") expired = true;
      else if (event.data && typeof event.data === "object" && event.data.id !== undefined) this.arrived(event.data);
    };
    const handle = this.ctx.api.stream(SERVICE, "/api/v0/logs/stream", onEvent, {
      query, signal: this.ctx.signal, lastEventId: resumeAfter, onOpen: () => follow.setAttribute("data-open", ""),
    });
    this.stream = handle;
    const ended = (text) => this.ended(handle, query, expired, text);
    handle.done.then(() => ended("The stream ended; press Follow to start again."), (error) => ended(failureText(error)));
  }

  /** A stream ended by the service: after the access token expired, a fresh one and on; else say so. */
  async ended(handle, query, expired, text) {
    if (this.stream !== handle) return; // stopped by hand, or a newer stream runs
    if (expired && (await this.ctx.api.refresh())) {
      this.start(query, this.lastId);
      return;
    }
    this.view.status.textContent = text;
    this.stop();
  }

  togglePause() {
    this.setPaused(!this.paused());
    if (this.paused()) return;
    this.list.prepend(this.held);
    this.held = [];
    this.view.status.textContent = "Following: new entries appear on top.";
  }
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
  const live = new Follower(ctx, view, list);
  filters.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const wasFollowing = live.following();
    live.stop();
    await list.load(filters.values(), false);
    if (wasFollowing) live.start(filters.values());
  });
  view.older.addEventListener("click", () => list.load(filters.values(), true));
  view.follow.addEventListener("click", () => (live.following() ? live.stop() : live.start(filters.values())));
  view.pause.addEventListener("click", () => live.togglePause());
  ctx.signal.addEventListener("abort", () => live.stop());
  await list.load(filters.values(), false);
}
