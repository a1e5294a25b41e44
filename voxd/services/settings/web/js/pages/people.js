// Households & users (administrators): the auth service's /users and /households through /ui-api.

import { el } from "../dom.js";
import { failureText } from "../widgets.js";
import { householdsSection } from "../people/households.js";
import { usersSection } from "../people/users.js";

export async function render(main, ctx) {
  main.append(el("h1", {}, "Households & users"));
  const body = el("div");
  main.append(body);
  const reload = async () => {
    try {
      const [users, households] = await Promise.all([
        ctx.api.get("auth", "/users"), ctx.api.get("auth", "/households")]);
      body.replaceChildren(usersSection(ctx, users.users, households.households, reload),
        householdsSection(ctx, households.households, reload));
    } catch (error) {
      body.replaceChildren(el("p", { class: "error", role: "alert" }, failureText(error)));
    }
  };
  await reload();
}
