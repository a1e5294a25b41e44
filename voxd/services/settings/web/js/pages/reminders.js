// The household's alarms and the reminders a user can see (their own and their household's): the
// ones the voice commands set (docs/alarms-and-reminders.md), each with when it is next due and a
// button that cancels it.
import { el, failure, when } from "../dom.js";

const SERVICE = "command-center";
const REPEATS = { daily: "every day", weekdays: "on weekdays", weekends: "at weekends", weekly: "every week" };
// What each list reads: its path, the answer's key, what names one entry, and a note on whose it is.
const KINDS = {
  alarms: { title: "Alarms", path: "/api/v0/alarms", name: (alarm) => alarm.label || `the ${alarm.hour}:${String(alarm.minute).padStart(2, "0")} alarm`,
    whose: (alarm) => (alarm.node_id ? "" : " (every room)"), none: "No alarms. Say “wake me up at 7” to set one." },
  reminders: { title: "Reminders", path: "/api/v0/reminders", name: (reminder) => reminder.task,
    whose: (reminder) => (reminder.user_id ? "" : " (the household's)"),
    none: "No reminders. Say “remind me at 5 to call mum” to set one." },
};

export async function render(main, ctx) {
  const sections = Object.entries(KINDS).map(([kind, spec]) => ({ kind, spec,
    list: el("ul", { id: `${kind}-items`, "aria-live": "polite" }), status: el("p", { "aria-live": "polite" }) }));
  main.replaceChildren(el("h1", {}, "Alarms & reminders"),
    ...sections.flatMap(({ spec, list, status }) => [el("h2", {}, spec.title), list, status]));
  await Promise.all(sections.map((section) => load(ctx, section)));
}

async function load(ctx, section) {
  try {
    show(ctx, section, (await ctx.api.get(SERVICE, section.spec.path))[section.kind]);
  } catch (error) {
    section.status.replaceChildren(failure(error));
  }
}

function show(ctx, section, entries) {
  const { spec, list } = section;
  if (!entries.length) {
    list.replaceChildren(el("li", { class: "empty" }, spec.none));
    return;
  }
  list.replaceChildren(...entries.map((entry) => el("li", { "data-id": entry.id },
    el("span", {}, spec.name(entry)), " ",
    el("small", {}, when(entry.due), REPEATS[entry.repeat] ? `, ${REPEATS[entry.repeat]}` : "", spec.whose(entry)), " ",
    el("button", { type: "button", class: "secondary outline", "aria-label": `Cancel ${spec.name(entry)}`,
      onclick: () => cancel(ctx, section, entry) }, "Cancel"))));
}

async function cancel(ctx, section, entry) {
  try {
    await ctx.api.delete(SERVICE, `${section.spec.path}/${encodeURIComponent(entry.id)}`);
    await load(ctx, section);
    section.status.textContent = `Cancelled “${section.spec.name(entry)}”.`;
  } catch (error) {
    section.status.replaceChildren(failure(error));
  }
}
