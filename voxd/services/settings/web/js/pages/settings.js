// Settings: every service's declared settings, grouped by service, one typed input each
// (a switch for a bool, a select for choices, a number box with the declared range), saved
// or reset one at a time through the settings service; errors (400 invalid, 409 locked) beside
// the input they are about.

import { el, when } from "../dom.js";
import { errorSlot, failureText, uid } from "../widgets.js";

function inputFor(setting) {
  const common = { id: uid("setting"), name: setting.key, disabled: setting.locked };
  if (setting.type === "bool") {
    return el("input", { ...common, type: "checkbox", role: "switch", checked: Boolean(setting.value) });
  }
  if (setting.choices && setting.choices.length) {
    const select = el("select", common, setting.choices.map((choice) => el("option", { value: String(choice) }, String(choice))));
    select.value = String(setting.value ?? setting.default ?? "");
    return select;
  }
  if (setting.secret) {
    return el("input", { ...common, type: "password", autocomplete: "new-password",
      placeholder: setting.is_set ? "set (hidden); type to replace" : "not set" });
  }
  if (setting.type === "number" || setting.type === "whole number") {
    return el("input", { ...common, type: "number", inputmode: setting.type === "number" ? "decimal" : "numeric",
      step: setting.type === "number" ? "any" : "1", min: setting.minimum ?? null, max: setting.maximum ?? null,
      value: setting.value === null || setting.value === undefined ? "" : String(setting.value) });
  }
  return el("input", { ...common, type: setting.type === "URL" ? "url" : "text",
    value: setting.value === null || setting.value === undefined ? "" : String(setting.value) });
}

function valueOf(setting, input) {
  if (setting.type === "bool") return input.checked;
  const text = input.value.trim();
  if (setting.choices && setting.choices.length) {
    return setting.choices.find((choice) => String(choice) === text) ?? text;
  }
  if (setting.type === "number" && text !== "") return Number(text);
  if (setting.type === "whole number" && /^-?\d+$/.test(text)) return Number.parseInt(text, 10);
  return text;
}

function marks(setting) {
  const out = [];
  if (setting.locked) out.push(el("span", { class: "badge warn" }, "locked: set in the environment"));
  if (setting.secret) out.push(el("span", { class: "badge" }, setting.is_set ? "secret (set)" : "secret"));
  if (setting.restart_required) out.push(el("span", { class: "badge" }, "needs a restart"));
  if (setting.pending_restart) out.push(el("span", { class: "badge warn" }, "changed; restart to use it"));
  out.push(el("span", { class: "badge muted" }, `from ${setting.source}`));
  return out;
}

function describe(setting) {
  const range = [setting.minimum !== undefined && setting.minimum !== null ? `at least ${setting.minimum}` : null,
    setting.maximum !== undefined && setting.maximum !== null ? `at most ${setting.maximum}` : null].filter(Boolean);
  const shownDefault = setting.secret ? "" : ` Default: ${JSON.stringify(setting.default)}.`;
  const type = setting.type === "bool" ? "on or off" : setting.type;
  return `${setting.description || ""} (${type}${range.length ? ", " + range.join(", ") : ""}).${shownDefault}`;
}

function changedLine(setting) {
  if (!setting.changed_by) return null;
  return el("p", { class: "muted" }, el("small", {}, `Changed by ${setting.changed_by} at ${when(setting.changed_at)}`));
}

/** One setting's block; `replace(view)` redraws it after a save or reset. */
function settingBlock(setting, ctx) {
  const input = inputFor(setting);
  const description = el("small", { id: uid("desc") }, describe(setting));
  input.setAttribute("aria-describedby", description.id);
  const error = errorSlot(input);
  // novalidate: the owning service says what is allowed, beside the input, in its own words
  const block = el("form", { class: "setting", "data-key": setting.key, "aria-label": setting.key, novalidate: true });
  const act = async (how) => {
    error.show("");
    try {
      const path = `/api/v0/settings/${encodeURIComponent(setting.key)}`;
      const view = how === "save" ? await ctx.api.put("settings", path, { value: valueOf(setting, input) })
        : await ctx.api.delete("settings", path);
      block.replaceWith(settingBlock(view, ctx));
      ctx.toast(how === "save" ? `${setting.key} saved.` : `${setting.key} is back to its default.`);
    } catch (failure) {
      error.show(failure.status === 503 ? failureText(failure) : failure.message);
      input.focus();
    }
  };
  const buttons = setting.locked ? [] : [
    el("button", { type: "submit", "aria-label": `Save ${setting.key}` }, "Save"),
    el("button", { type: "button", class: "secondary outline", onclick: () => act("reset"),
      disabled: setting.source !== "override", "aria-label": `Reset ${setting.key} to its default` }, "Reset"),
  ];
  const label = el("label", { for: input.id }, setting.key);
  if (setting.type === "bool") {
    const state = el("span", {}, input.checked ? "on" : "off");
    input.addEventListener("change", () => { state.textContent = input.checked ? "on" : "off"; });
    block.append(el("h3", {}, setting.key), el("label", { class: "switch" }, input, " ", state), description, error.slot);
    input.setAttribute("aria-label", setting.key);
  } else {
    block.append(el("h3", {}, label), input, description, error.slot);
  }
  block.addEventListener("submit", (event) => {
    event.preventDefault();
    act("save");
  });
  block.append(el("div", {}, marks(setting)), changedLine(setting) || "", el("div", { class: "actions" }, buttons));
  return block;
}

function serviceSection(entry, ctx, open) {
  const count = entry.reachable ? `${entry.settings.length} settings` : "unreachable";
  const summary = el("summary", {}, el("strong", {}, entry.service), " ",
    el("span", { class: entry.reachable ? "muted" : "badge down" }, count));
  const section = el("details", { class: "service-settings", "data-service": entry.service, open }, summary);
  if (!entry.reachable) {
    section.append(el("p", {}, "This service is down: its settings cannot be read or changed now. "
      + "It keeps the settings it has."));
  } else {
    section.append(...entry.settings.map((setting) => settingBlock(setting, ctx)));
  }
  return section;
}

function applyFilter(sections, text) {
  const wanted = text.trim().toLowerCase();
  for (const section of sections) {
    let shown = 0;
    for (const block of section.querySelectorAll(".setting")) {
      const match = !wanted || block.dataset.key.toLowerCase().includes(wanted);
      block.hidden = !match;
      shown += match ? 1 : 0;
    }
    section.hidden = Boolean(wanted) && shown === 0;
    if (wanted) section.open = shown > 0;
  }
}

export async function render(main, ctx) {
  main.append(el("h1", {}, "Settings"));
  let answer;
  try {
    answer = await ctx.api.get("settings", "/api/v0/settings");
  } catch (error) {
    main.append(el("p", { class: "error", role: "alert" }, failureText(error)));
    return;
  }
  const filter = el("input", { type: "search", id: uid("filter"), placeholder: "e.g. log_level" });
  const sections = answer.services.map((entry) => serviceSection(entry, ctx, false));
  filter.addEventListener("input", () => applyFilter(sections, filter.value));
  main.append(
    el("p", {}, "Each service's settings. A locked one is set in the environment and changes only there; "
      + "one that needs a restart is used after the next start."),
    el("label", { for: filter.id }, "Find a setting"), filter, ...sections);
}
