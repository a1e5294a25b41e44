// My account: who is logged in, and changing one's own password (the old one is asked). The auth
// service ends the person's other sessions, this one included on this page: they log in again.

import { el, field } from "../dom.js";
import { errorSlot } from "../widgets.js";

export async function render(main, ctx) {
  main.append(el("h1", {}, "My account"));
  const user = ctx.user;
  main.append(el("p", {}, `${user.display_name} <${user.email}>${user.is_admin ? " · administrator" : ""}`));
  const oldPassword = el("input", { name: "old_password", type: "password", required: true, autocomplete: "current-password" });
  const newPassword = el("input", { name: "new_password", type: "password", required: true, autocomplete: "new-password" });
  const error = errorSlot(newPassword);
  const form = el("form", {
    "aria-label": "Change my password",
    onsubmit: async (event) => {
      event.preventDefault();
      error.show("");
      try {
        await ctx.api.post("auth", "/auth/password", { old_password: oldPassword.value, new_password: newPassword.value });
        await ctx.api.logout();
        ctx.toast("Password changed. Log in with the new one.");
        window.dispatchEvent(new HashChangeEvent("hashchange"));
      } catch (failure) {
        error.show(failure.message);
      }
    },
  }, el("h2", {}, "Change my password"), field("Current password", oldPassword), field("New password", newPassword),
  error.slot, el("button", { type: "submit" }, "Change password"));
  main.append(form);
}
