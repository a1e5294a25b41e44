// Log in: email and password to /ui-api/auth/login; the answer's access token stays in memory and
// the refresh cookie keeps the session over a reload.

import { el, field } from "../dom.js";
import { errorSlot } from "../widgets.js";

export async function render(main, ctx) {
  const username = el("input", { name: "username", type: "email", autocomplete: "username", required: true });
  const password = el("input", { name: "password", type: "password", autocomplete: "current-password", required: true });
  const submit = el("button", { type: "submit" }, "Log in");
  const error = errorSlot(password);
  const form = el("form", {
    "aria-label": "Log in",
    onsubmit: async (event) => {
      event.preventDefault();
      submit.setAttribute("aria-busy", "true");
      error.show("");
      try {
        const user = await ctx.api.login(username.value.trim(), password.value);
        ctx.done(user);
      } catch (failure) {
        error.show(failure.status === 401 ? "Wrong email or password." : failure.message);
        password.select();
      } finally {
        submit.removeAttribute("aria-busy");
      }
    },
  }, field("Email", username), field("Password", password), error.slot, submit);
  main.append(el("article", { class: "login" }, el("h1", {}, "Log in to voxd"), form));
  username.focus();
}
