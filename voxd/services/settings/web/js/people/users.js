// Users: create; edit name, email, administrator and household; disable or enable; reset a
// password; delete (after a confirmation). An administrator cannot disable or delete themself
// (409 own_account, shown beside the form).

import { el, field } from "../dom.js";
import { errorSlot } from "../widgets.js";

function householdSelect(households, chosen) {
  const select = el("select", { name: "household_id" },
    el("option", { value: "" }, "— none —"),
    households.map((household) => el("option", { value: household.household_id }, household.name)));
  select.value = chosen || "";
  return select;
}

/** Run one call; on success toast and reload, on failure show the message beside the form. */
function action(ctx, error, reload, work, done) {
  return async (event) => {
    if (event) event.preventDefault();
    error.show("");
    try {
      await work();
      ctx.toast(done);
      await reload();
    } catch (failure) {
      error.show(failure.message);
    }
  };
}

function userControls(ctx, user, households, reload) {
  const name = el("input", { name: "display_name", required: true, value: user.display_name });
  const email = el("input", { name: "email", type: "email", required: true, value: user.email });
  const admin = el("input", { name: "is_admin", type: "checkbox", role: "switch", checked: user.is_admin });
  const household = householdSelect(households, user.household_id);
  const error = errorSlot(name);
  const path = `/users/${user.user_id}`;
  const save = action(ctx, error, reload, () => ctx.api.patch("auth", path, {
    display_name: name.value.trim(), email: email.value.trim(), is_admin: admin.checked,
    household_id: household.value || null,
  }), `${user.display_name}: saved.`);
  const newPassword = el("input", { name: "password", type: "password", autocomplete: "new-password" });
  const reset = action(ctx, error, reload, () => ctx.api.put("auth", `${path}/password`, { password: newPassword.value }),
    `${user.display_name} has a new password; their sessions ended.`);
  const toggle = action(ctx, error, reload, () => ctx.api.post("auth", `${path}/${user.disabled ? "enable" : "disable"}`),
    `${user.display_name} ${user.disabled ? "enabled" : "disabled"}.`);
  const remove = action(ctx, error, reload, () => ctx.api.delete("auth", path), `${user.display_name} deleted.`);
  return [
    el("form", { onsubmit: save, "aria-label": `Edit ${user.display_name}` },
      field("Name", name), field("Email", email), field("Household", household),
      el("label", {}, admin, " Administrator"), el("button", { type: "submit" }, "Save user")),
    el("form", { onsubmit: reset, "aria-label": `New password for ${user.display_name}` },
      field("New password (ends every session of theirs)", newPassword),
      el("button", { type: "submit", class: "secondary" }, "Reset password")),
    error.slot,
    el("div", { class: "actions" },
      el("button", { type: "button", class: "secondary", onclick: toggle }, user.disabled ? "Enable" : "Disable"),
      el("button", { type: "button", class: "secondary outline", onclick: (event) => {
        if (window.confirm(`Delete ${user.display_name} (${user.email})? This cannot be undone.`)) remove(event);
      } }, "Delete user")),
  ];
}

function newUserForm(ctx, households, reload) {
  const name = el("input", { name: "display_name", required: true });
  const email = el("input", { name: "email", type: "email", required: true, autocomplete: "off" });
  const password = el("input", { name: "password", type: "password", required: true, autocomplete: "new-password" });
  const household = householdSelect(households, households.length ? households[0].household_id : "");
  const admin = el("input", { name: "is_admin", type: "checkbox", role: "switch" });
  const error = errorSlot(email);
  const create = action(ctx, error, reload, () => ctx.api.post("auth", "/users", {
    display_name: name.value.trim(), email: email.value.trim(), password: password.value,
    household_id: household.value || null, is_admin: admin.checked,
  }), "User created.");
  return el("form", { onsubmit: create, "aria-label": "New user" },
    field("Name", name), field("Email", email), field("Password", password), field("Household", household),
    el("label", {}, admin, " Administrator"), error.slot, el("button", { type: "submit" }, "Create user"));
}

export function usersSection(ctx, users, households, reload) {
  const names = new Map(households.map((household) => [household.household_id, household.name]));
  const section = el("section", { "aria-labelledby": "users-title" }, el("h2", { id: "users-title" }, "Users"));
  for (const user of users) {
    const marks = [user.is_admin ? "administrator" : null, user.disabled ? "disabled" : null].filter(Boolean);
    section.append(el("details", { class: "user", "data-email": user.email },
      el("summary", {}, `${user.display_name} <${user.email}> · ${names.get(user.household_id) || "no household"}`,
        marks.map((mark) => el("span", { class: "badge" }, mark))),
      userControls(ctx, user, households, reload)));
  }
  section.append(el("details", {}, el("summary", {}, "New user"), newUserForm(ctx, households, reload)));
  return section;
}
