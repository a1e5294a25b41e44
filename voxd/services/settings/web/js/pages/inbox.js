// The user's inbox: newest first, mark read, delete; #/inbox?item=ID (or ?notification=ID, what a
// tapped push carries) opens one item, and &reminder=ID&reminder_action=done|snooze (a reminder
// push's button) acts on the reminder. Also the device's notifications switch.
import { el, failure, hashQuery, when } from "../dom.js";
import { notificationsPanel } from "../push.js";

const SERVICE = "notifications";
const INBOX = "/api/v0/inbox";

export async function render(main, ctx) {
  const list = el("ul", { id: "inbox-items", class: "inbox" });
  const status = el("p", { "aria-live": "polite" });
  main.replaceChildren(el("h1", {}, "Inbox"), status, list, notificationsPanel(ctx));
  let items;
  try {
    items = (await ctx.api.get(SERVICE, INBOX, { limit: 100 })).items;
  } catch (error) {
    status.replaceChildren(failure(error));
    return;
  }
  const { item: itemId, notification } = hashQuery();
  const opened = items.find((item) => item.id === itemId || (notification && item.notification_id === notification));
  if (itemId && !opened) items.unshift(await fetchItem(ctx, itemId, status));
  if (!items.filter(Boolean).length) status.textContent = "Your inbox is empty.";
  list.replaceChildren(...items.filter(Boolean).map((item) => itemRow(ctx, item, status)));
  const target = opened || (itemId && items[0]);
  if (target) await openItem(ctx, list, target, status);
  await reminderAction(ctx, status);
}

const REMINDER_ACTIONS = { done: "Reminder marked done.", snooze: "Reminder snoozed for 10 minutes." };

async function reminderAction(ctx, status) {
  const { reminder, reminder_action: action } = hashQuery();
  if (!reminder || !REMINDER_ACTIONS[action]) return;
  try {
    await ctx.api.post("command-center", `/api/v0/reminders/${encodeURIComponent(reminder)}/actions`, { action });
    status.textContent = REMINDER_ACTIONS[action];
  } catch (error) {
    status.replaceChildren(failure(error));
  }
}

async function fetchItem(ctx, id, status) {
  try {
    return await ctx.api.get(SERVICE, `${INBOX}/${encodeURIComponent(id)}`);
  } catch (error) {
    status.replaceChildren(failure(error, "span", "That item is gone: "));
    return null;
  }
}

function itemRow(ctx, item, status) {
  const row = el("li", { id: `item-${item.id}`, class: item.read ? "read" : "unread", "data-id": item.id },
    el("article", {},
      el("header", {}, el("strong", {}, item.title), item.read ? null : el("mark", {}, " new"),
        el("br"), el("small", {}, when(item.created_at), item.category ? ` · ${item.category}` : "")),
      el("p", { class: "body" }, item.body),
      el("footer", {},
        item.read ? null : el("button", { type: "button", class: "mark-read", "aria-label": `Mark “${item.title}” read`,
          onclick: () => markRead(ctx, row, item, status) }, "Mark read"), " ",
        el("button", { type: "button", class: "delete secondary", "aria-label": `Delete “${item.title}”`,
          onclick: () => remove(ctx, row, item, status) }, "Delete"))));
  return row;
}

async function markRead(ctx, row, item, status) {
  try {
    const updated = await ctx.api.patch(SERVICE, `${INBOX}/${encodeURIComponent(item.id)}/read`, {});
    row.replaceWith(itemRow(ctx, updated, status));
  } catch (error) {
    status.replaceChildren(failure(error));
  }
}

async function remove(ctx, row, item, status) {
  try {
    await ctx.api.delete(SERVICE, `${INBOX}/${encodeURIComponent(item.id)}`);
    row.remove();
    status.textContent = `Deleted “${item.title}”.`;
  } catch (error) {
    status.replaceChildren(failure(error));
  }
}

// An item opened from a link or a notification: marked read, shown and scrolled to.
async function openItem(ctx, list, item, status) {
  const selector = `[data-id="${CSS.escape(item.id)}"]`;
  if (!list.querySelector(selector)) return;
  if (!item.read) await markRead(ctx, list.querySelector(selector), item, status);
  const row = list.querySelector(selector);
  row.classList.add("opened");
  row.setAttribute("aria-current", "true");
  row.scrollIntoView({ block: "center" });
}
