// voxd's service worker: shows what voxd pushes (docs/notifications.md, "What each platform gets":
// UTF-8 JSON {title, body, data, tag, category, priority, actions}) and, on a tap, opens the page
// at that inbox item. It caches nothing: the page always comes from voxd.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function pushed(event) {
  try {
    return event.data ? event.data.json() : {};
  } catch (error) {
    return { title: "voxd", body: event.data.text() };
  }
}

self.addEventListener("push", (event) => {
  const message = pushed(event);
  const options = {
    body: message.body || "",
    data: message.data || {},
    tag: message.tag || undefined,
    actions: (message.actions || []).slice(0, 3),
    icon: "/icons/icon-192.png",
    badge: "/icons/icon-192.png",
    requireInteraction: message.priority === "high",
  };
  // Always a visible notification: browsers (and iOS) revoke push from sites that stay silent.
  event.waitUntil(self.registration.showNotification(message.title || "voxd", options));
});

// Where a tap leads: the inbox item the send made (its notification id), else the inbox.
function inboxUrl(data) {
  const query = data.inbox_item_id ? `?item=${encodeURIComponent(data.inbox_item_id)}`
    : data.notification_id ? `?notification=${encodeURIComponent(data.notification_id)}` : "";
  return new URL(`/#/inbox${query}`, self.location.origin).href;
}

// A reminder's button ("Done", "Snooze 10 min"): the page, which holds the login, takes the action
// (docs/alarms-and-reminders.md); a tap on the reminder itself opens it like any item.
function clickedUrl(data, action) {
  const url = inboxUrl(data);
  if (!action || !data.reminder_id) return url;
  const joiner = url.includes("?") ? "&" : "?";
  return `${url}${joiner}reminder=${encodeURIComponent(data.reminder_id)}&reminder_action=${encodeURIComponent(action)}`;
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = clickedUrl(event.notification.data || {}, event.action);
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
    if (open) {
      try {
        const moved = await open.navigate(url); // same origin: the page opens the item itself
        if (moved) {
          await moved.focus().catch(() => null); // a tap allows focusing; nothing is lost without it
          return;
        }
      } catch (error) {
        // a window this worker does not control cannot be navigated: open the item in a new one
      }
    }
    await self.clients.openWindow(url);
  })());
});
