// The reminders a user can see (their own and their household's): the ones the voice commands set
// (docs/alarms-and-reminders.md), each with when it is next due and a button that cancels it.
import { el, failure, when } from "../dom.js";

const SERVICE = "command-center";
const REMINDERS = "/api/v0/reminders";
const REPEATS = { daily: "every day", weekdays: "on weekdays", weekends: "at weekends", weekly: "every week" };

export async function render(main, ctx) {
  const list = el("ul", { id: "reminder-items", "aria-live": "polite" });
  const status = el("p", { "aria-live": "polite" });
  main.replaceChildren(el("h1", {}, "Reminders"), list, status);
  try {
    show(ctx, list, status, (await ctx.api.get(SERVICE, REMINDERS)).reminders);
  } catch (error) {
    status.replaceChildren(failure(error));
  }
}

function show(ctx, list, status, reminders) {
  if (!reminders.length) {
    list.replaceChildren(el("li", { class: "empty" }, "No reminders. Say “remind me at 5 to call mum” to set one."));
    return;
  }
  list.replaceChildren(...reminders.map((reminder) => el("li", { "data-id": reminder.id },
    el("span", {}, reminder.task), " ",
    el("small", {}, when(reminder.due), REPEATS[reminder.repeat] ? `, ${REPEATS[reminder.repeat]}` : "",
      reminder.user_id ? "" : " (the household's)"), " ",
    el("button", { type: "button", class: "secondary outline", "aria-label": `Cancel ${reminder.task}`,
      onclick: () => cancel(ctx, list, status, reminder) }, "Cancel"))));
}

async function cancel(ctx, list, status, reminder) {
  try {
    await ctx.api.delete(SERVICE, `${REMINDERS}/${encodeURIComponent(reminder.id)}`);
    show(ctx, list, status, (await ctx.api.get(SERVICE, REMINDERS)).reminders);
    status.textContent = `Cancelled “${reminder.task}”.`;
  } catch (error) {
    status.replaceChildren(failure(error));
  }
}
