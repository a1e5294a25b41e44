// Households: create, rename, change the time zone, delete (only an empty one: the auth service
// answers 409 with the count of users and nodes still in it, shown beside the form).

import { el, field } from "../dom.js";
import { errorSlot, uid } from "../widgets.js";

/** The IANA zones the browser knows, offered as suggestions (any zone the server knows is taken). */
export function zoneList() {
  const list = el("datalist", { id: uid("zones") });
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  list.append(...zones.map((zone) => el("option", { value: zone })));
  return list;
}

function householdForm(ctx, household, zones, reload) {
  const name = el("input", { name: "name", required: true, value: household ? household.name : "" });
  const timezone = el("input", { name: "timezone", list: zones.id, autocomplete: "off",
    value: household ? household.timezone : Intl.DateTimeFormat().resolvedOptions().timeZone });
  const error = errorSlot(name);
  const onsubmit = async (event) => {
    event.preventDefault();
    error.show("");
    try {
      if (household) {
        await ctx.api.patch("auth", `/households/${household.household_id}`,
          { name: name.value.trim(), timezone: timezone.value.trim() });
        ctx.toast(`Household ${name.value.trim()} saved.`);
      } else {
        await ctx.api.post("auth", "/households", { name: name.value.trim(), timezone: timezone.value.trim() });
        ctx.toast(`Household ${name.value.trim()} created.`);
      }
      await reload();
    } catch (failure) {
      error.show(failure.message);
    }
  };
  const buttons = [el("button", { type: "submit" }, household ? "Save household" : "Create household")];
  if (household) {
    buttons.push(el("button", {
      type: "button", class: "secondary outline",
      onclick: async () => {
        if (!window.confirm(`Delete the household ${household.name}? Only an empty one can be deleted.`)) return;
        try {
          await ctx.api.delete("auth", `/households/${household.household_id}`);
          ctx.toast(`Household ${household.name} deleted.`);
          await reload();
        } catch (failure) {
          error.show(failure.message);
        }
      },
    }, "Delete household"));
  }
  return el("form", { onsubmit, "aria-label": household ? `Household ${household.name}` : "New household" },
    field("Name", name), field("Time zone (e.g. Europe/London)", timezone), error.slot,
    el("div", { class: "actions" }, buttons));
}

export function householdsSection(ctx, households, reload) {
  const zones = zoneList();
  const section = el("section", { "aria-labelledby": "households-title" },
    el("h2", { id: "households-title" }, "Households"), zones);
  for (const household of households) {
    section.append(el("details", { class: "household" },
      el("summary", {}, `${household.name} · ${household.timezone}`),
      householdForm(ctx, household, zones, reload)));
  }
  section.append(el("details", {}, el("summary", {}, "New household"), householdForm(ctx, null, zones, reload)));
  return section;
}
