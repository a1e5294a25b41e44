// This week's meal plan, its merged shopping list, and the push of that list onto the household's
// shopping list in the command center (docs/mealplans.md).
import { el, failure, field } from "../dom.js";

const SERVICE = "recipes";
const PLANS = "/api/v0/meal-plans";
const MEALS = ["breakfast", "lunch", "dinner", "snack"];

function isoDate(day) {
  const local = new Date(day.getTime() - day.getTimezoneOffset() * 60000);
  return local.toISOString().slice(0, 10);
}

// Monday of the week `day` is in: plans are made a week at a time.
function weekStart(day) {
  const monday = new Date(day);
  monday.setDate(day.getDate() - ((day.getDay() + 6) % 7));
  return monday;
}

export async function render(main, ctx) {
  main.replaceChildren(el("h1", {}, "Meal plan"), el("p", { "aria-busy": "true" }, "Loading…"));
  let plans;
  try {
    plans = (await ctx.api.get(SERVICE, PLANS, { date: isoDate(new Date()), limit: 1 })).meal_plans;
  } catch (error) {
    main.replaceChildren(el("h1", {}, "Meal plan"), failure(error, "p"));
    return;
  }
  const plan = plans[0];
  main.replaceChildren(el("h1", {}, "Meal plan"),
    plan ? planSection(plan) : el("p", {}, "No meal plan covers this week yet."),
    plan ? await shoppingSection(ctx, plan) : "", generateForm(ctx, main, plan));
}

function planSection(plan) {
  const rows = plan.items.map((item) => el("tr", {},
    el("td", {}, new Date(item.date + "T12:00").toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short" })),
    el("td", {}, item.meal),
    el("td", {}, el("a", { href: `#/recipes?id=${encodeURIComponent(item.recipe_id)}` }, item.title))));
  return el("section", { "aria-labelledby": "plan-heading" },
    el("h2", { id: "plan-heading" }, plan.name),
    el("table", { id: "meal-plan" }, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Day"),
      el("th", { scope: "col" }, "Meal"), el("th", { scope: "col" }, "Recipe"))), el("tbody", {}, rows)));
}

function generateForm(ctx, main, plan) {
  const meals = MEALS.map((meal) => el("label", {}, el("input", { type: "checkbox", name: "meal", value: meal, checked: meal === "dinner" }), ` ${meal}`));
  const tag = el("input", { type: "text", name: "tag", id: "plan-tag", placeholder: "vegetarian" });
  const status = el("p", { "aria-live": "polite" });
  const form = el("form", { id: "generate-plan", onsubmit: async (event) => {
    event.preventDefault();
    const chosen = meals.map((label) => label.querySelector("input")).filter((box) => box.checked).map((box) => box.value);
    const generate = { start_date: isoDate(weekStart(new Date())), days: 7, meals: chosen.length ? chosen : ["dinner"],
      ...(tag.value.trim() ? { tags: [tag.value.trim()] } : {}) };
    try {
      if (plan) await ctx.api.put(SERVICE, `${PLANS}/${plan.id}`, { name: plan.name, generate });
      else await ctx.api.post(SERVICE, PLANS, { generate });
      await render(main, ctx);
    } catch (error) {
      status.replaceChildren(failure(error));
    }
  } }, el("fieldset", {}, el("legend", {}, "Meals"), meals), field("Only recipes tagged (optional)", tag),
  el("button", { type: "submit" }, plan ? "Plan this week again" : "Plan this week"), status);
  return el("section", { "aria-labelledby": "generate-heading" }, el("h2", { id: "generate-heading" }, "Plan the week"), form);
}

async function shoppingSection(ctx, plan) {
  const section = el("section", { "aria-labelledby": "shopping-heading" }, el("h2", { id: "shopping-heading" }, "Shopping list for this plan"));
  let items;
  try {
    items = (await ctx.api.get(SERVICE, `${PLANS}/${plan.id}/shopping-list`)).items;
  } catch (error) {
    section.append(failure(error, "p"));
    return section;
  }
  const status = el("p", { id: "push-status", "aria-live": "polite" });
  const push = el("button", { type: "button", id: "push-list", onclick: async () => {
    push.disabled = true;
    try {
      const answer = await ctx.api.post(SERVICE, `${PLANS}/${plan.id}/shopping-list/push`, {});
      status.textContent = `Added ${answer.added.length} to the shopping list; ${answer.already_there.length} already there.`;
    } catch (error) {
      status.replaceChildren(failure(error));
    } finally {
      push.disabled = false;
    }
  } }, "Put these on the household's shopping list");
  section.append(el("ul", { id: "plan-shopping" }, items.map((item) => el("li", {}, item.text))), push, status);
  return section;
}
