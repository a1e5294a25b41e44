// Overview: each service up or down, its version and uptime (the settings service's
// GET /api/v0/overview), refreshed every 10 s while shown.

import { el } from "../dom.js";
import { duration, failureText } from "../widgets.js";

function row(service) {
  return el("tr", {},
    el("th", { scope: "row" }, service.service),
    el("td", {}, el("span", { class: `badge ${service.up ? "up" : "down"}` }, service.up ? "up" : "down")),
    el("td", {}, service.version || "—"),
    el("td", {}, service.up ? duration(service.uptime_seconds) : "—"),
    el("td", { class: "hide-narrow" }, service.url || ""));
}

export async function render(main, ctx) {
  main.append(el("h1", {}, "Overview"));
  const status = el("p", { role: "status", class: "muted" });
  const body = el("tbody");
  const table = el("div", { class: "table-wrap" }, el("table", {},
    el("caption", {}, "Services"),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Service"), el("th", { scope: "col" }, "State"),
      el("th", { scope: "col" }, "Version"), el("th", { scope: "col" }, "Uptime"),
      el("th", { scope: "col", class: "hide-narrow" }, "Address"))),
    body));
  main.append(status, table);
  const load = async () => {
    try {
      const answer = await ctx.api.get("settings", "/api/v0/overview");
      body.replaceChildren(...answer.services.map(row));
      const down = answer.services.filter((service) => !service.up).length;
      status.textContent = down ? `${down} service(s) down.` : "Every service is up.";
    } catch (error) {
      status.textContent = failureText(error);
    }
  };
  await load();
  const timer = setInterval(load, 10000);
  ctx.signal.addEventListener("abort", () => clearInterval(timer));
}
