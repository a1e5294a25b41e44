// The page's shell: the login gate, the nav from js/pages/index.js and a router on location.hash
// (#/overview imports js/pages/overview.js and calls its render(main, ctx)). A reload keeps the
// person logged in through the refresh cookie: api.refresh() asks for a new access token first.

import { SESSION_ENDED, api } from "./api.js";
import { el } from "./dom.js";
import { PAGES } from "./pages/index.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const logoutButton = document.getElementById("logout");
const toasts = document.getElementById("toasts");

let leaving = null; // aborts the shown page's streams and timers when another page is shown

export function toast(text) {
  const note = el("p", { class: "toast" }, text);
  toasts.append(note);
  setTimeout(() => note.remove(), 6000);
}

function visiblePages(user) {
  return PAGES.filter((page) => !page.admin || (user && user.is_admin));
}

/** Where a person lands: their first page, but never their own account page (a household
 * member's first page would otherwise be "My account", which sits before the household's pages). */
function landing(user) {
  const pages = visiblePages(user);
  return pages.find((page) => page.path !== "account") || pages[0];
}

function routeName() {
  return location.hash.replace(/^#\/?/, "").split("?")[0];
}

function drawNav(user) {
  const current = routeName();
  nav.replaceChildren(...(user ? visiblePages(user) : []).map((page) => el("li", {},
    el("a", { href: `#/${page.path}`, "aria-current": page.path === current ? "page" : false }, page.title))));
  logoutButton.hidden = !user;
  document.body.classList.toggle("logged-in", Boolean(user));
}

async function showLogin() {
  const { render } = await import("./pages/login.js");
  main.replaceChildren();
  await render(main, { api, toast, user: null, signal: new AbortController().signal, done: onLoggedIn });
}

function onLoggedIn(user) {
  const wanted = visiblePages(user).find((page) => page.path === routeName());
  const target = wanted || landing(user);
  if (routeName() === target.path) route();
  else location.hash = `#/${target.path}`;
}

async function route() {
  if (leaving) leaving.abort();
  leaving = new AbortController();
  const user = api.user();
  drawNav(user);
  if (!user) return showLogin();
  const page = visiblePages(user).find((entry) => entry.path === routeName());
  if (!page) {
    location.hash = `#/${landing(user).path}`;
    return undefined;
  }
  document.title = `${page.title} · voxd`;
  main.replaceChildren(el("p", { "aria-busy": "true" }, "Loading…"));
  const signal = leaving.signal;
  try {
    const module = await import(`./pages/${page.module}`);
    if (signal.aborted) return undefined;
    main.replaceChildren();
    main.removeAttribute("data-shown");
    await module.render(main, { api, user, toast, signal });
    if (!signal.aborted) main.dataset.shown = page.path; // the page has drawn what it first loads
  } catch (error) {
    if (!signal.aborted) main.replaceChildren(el("p", { class: "error", role: "alert" }, error.message || String(error)));
  }
  if (!signal.aborted) main.focus({ preventScroll: true });
  return undefined;
}

logoutButton.addEventListener("click", async () => {
  await api.logout();
  toast("Logged out.");
  route();
});

window.addEventListener("hashchange", route);
window.addEventListener(SESSION_ENDED, () => {
  toast("Your session has ended: log in again.");
  route();
});

(async () => {
  await api.refresh(); // a reload: the cookie, if there is one, gives a new access token
  route();
})();
