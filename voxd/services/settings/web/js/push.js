// Notifications in the browser: the service worker, the push subscription made with voxd's VAPID key
// and registered as the user's `web` device token (docs/notifications.md). Permission is asked for
// only from the "Turn on notifications" button, never on load.
import { el } from "./dom.js";

const SERVICE = "notifications";

export function isIosSafari() {
  const ua = navigator.userAgent;
  const ios = /iPad|iPhone|iPod/.test(ua) || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);
  return ios && /Safari/.test(ua) && !/CriOS|FxiOS|EdgiOS/.test(ua);
}

export function isStandalone() {
  return window.matchMedia("(display-mode: standalone)").matches || navigator.standalone === true;
}

// What stops Web Push here, in words, or null when it can be turned on.
export function pushBlocker() {
  if (!window.isSecureContext) return "Notifications need the page over HTTPS (see the Talk page for how to trust voxd's certificate).";
  if (isIosSafari() && !isStandalone()) return "On iPhone and iPad, add voxd to the Home Screen first (below), then open it from there.";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    return "This browser does not support Web Push notifications.";
  }
  if (Notification.permission === "denied") return "Notifications are blocked for this site: allow them in the browser's site settings.";
  return null;
}

function keyBytes(base64url) {
  const padded = base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function deviceName() {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox" : /Chrom/.test(ua) ? "Chromium" : /Safari/.test(ua) ? "Safari" : "Browser";
  const system = /iPhone|iPad/.test(ua) ? "iOS" : /Android/.test(ua) ? "Android" : /Mac/.test(ua) ? "macOS" : /Windows/.test(ua) ? "Windows" : /Linux/.test(ua) ? "Linux" : "";
  return `${browser}${system ? " on " + system : ""}`;
}

// The whole flow, from the button's click: permission, the service worker, the subscription with
// voxd's key, and its registration. Answers the registered token.
export async function turnOnNotifications(api) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error("Notifications were not allowed, so none can be shown.");
  const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  await navigator.serviceWorker.ready;
  const { public_key: key } = await api.get(SERVICE, "/api/v0/device-tokens/web-push-key");
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  const token = JSON.stringify(subscription.toJSON ? subscription.toJSON() : subscription);
  return api.post(SERVICE, "/api/v0/device-tokens", { token, platform: "web", device_name: deviceName() });
}

// This browser's subscription, if it has one.
async function currentSubscription() {
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

// The way back: the device token removed from voxd first (so nothing more is sent to it), then the
// browser's subscription ended.
export async function turnOffNotifications(api) {
  const subscription = await currentSubscription();
  if (!subscription) return;
  const token = JSON.stringify(subscription.toJSON ? subscription.toJSON() : subscription);
  await api.delete(SERVICE, `/api/v0/device-tokens/${encodeURIComponent(token)}`);
  await subscription.unsubscribe();
}

// The panel the inbox shows: the switch, or what stands in its way, and the iOS Home Screen step.
export function notificationsPanel(ctx) {
  const status = el("p", { id: "push-state", "aria-live": "polite" });
  const blocker = pushBlocker();
  const on = el("button", { type: "button", id: "turn-on-notifications", disabled: Boolean(blocker) }, "Turn on notifications");
  const off = el("button", { type: "button", id: "turn-off-notifications", class: "secondary", hidden: true }, "Turn off notifications");
  const shown = (isOn, said) => {
    on.hidden = isOn;
    off.hidden = !isOn;
    on.disabled = Boolean(blocker);
    off.disabled = false;
    if (said) status.textContent = said;
  };
  const act = async (button, doing, call, after, failed) => {
    button.disabled = true;
    status.textContent = doing;
    try {
      shown(...after(await call()));
    } catch (error) {
      status.textContent = `${failed}: ${error.message || error}`;
      button.disabled = false;
    }
  };
  on.addEventListener("click", () => act(on, "Turning on notifications…", () => turnOnNotifications(ctx.api),
    (token) => [true, `Notifications are on for ${token.device_name || "this browser"}.`], "Notifications could not be turned on"));
  off.addEventListener("click", () => act(off, "Turning off notifications…", () => turnOffNotifications(ctx.api),
    () => [false, "Notifications are off for this browser."], "Notifications could not be turned off"));
  if (blocker) status.textContent = blocker;
  else currentSubscription().then((subscription) => subscription && shown(true, "Notifications are on for this browser."));
  return el("section", { class: "notifications", "aria-labelledby": "notifications-heading" },
    el("h2", { id: "notifications-heading" }, "Notifications on this device"), on, off, status,
    isIosSafari() && !isStandalone() ? homeScreenSteps() : null);
}

export function homeScreenSteps() {
  return el("div", { id: "ios-home-screen" }, el("p", {}, "iPhone and iPad show web notifications only for apps on the Home Screen:"),
    el("ol", {}, el("li", {}, "Tap the Share button (the square with an arrow) in Safari's toolbar."),
      el("li", {}, "Choose “Add to Home Screen”, then “Add”."),
      el("li", {}, "Open voxd from its new Home Screen icon, log in, and tap “Turn on notifications” there.")));
}
